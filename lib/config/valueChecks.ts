import { z } from "zod";
import { showValue } from "./errors";

/**
 * Checks of single values whose grammar a regular expression states badly or not at all: a DNS host
 * name's label lengths and an image reference. Each returns the problem in the shape of a config
 * error, or nothing; `checkedString` makes one a schema field, so its problem is reported with every
 * other schema problem at once.
 */

/** What is wrong with one value; `fix` is given the field's config path. */
export interface ValueProblem {
  readonly problem: string;
  readonly allowed: string;
  readonly fix: (path: string) => string;
}

/** A string field checked by `check`; its problem becomes one config problem with the field's path. */
export function checkedString(check: (value: string) => ValueProblem | undefined): z.ZodString {
  return z.string().check(valueCheck(check));
}

/** A schema check (`.check(...)`) reporting `check`'s problem with every other schema problem. */
export function valueCheck<T>(
  check: (value: T) => ValueProblem | undefined,
): (ctx: z.core.ParsePayload<T>) => void {
  return (ctx) => {
    const found = check(ctx.value);
    if (found) {
      ctx.issues.push({
        code: "custom",
        message: found.problem,
        params: { valueProblem: found },
        input: ctx.value,
      });
    }
  };
}

/** The `ValueProblem` a `checkedString` attached to a schema issue, if any. */
export function valueProblemOf(params: unknown): ValueProblem | undefined {
  if (params === null || typeof params !== "object" || !("valueProblem" in params)) return undefined;
  return (params as { valueProblem: ValueProblem }).valueProblem;
}

const hostPattern = /^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/;
const hostExample = "shop.example.com";

/**
 * A host name a load balancer and a certificate can serve: lowercase DNS labels of letters, digits
 * and '-', at least two of them, optionally a leading `*.`; each label at most 63 characters and the
 * whole name at most 253 (RFC 1035 2.3.4).
 */
export function hostNameProblem(value: string): ValueProblem | undefined {
  const allowed = `a DNS host name of lowercase labels (letters, digits and '-') joined by dots, each label at most 63 characters, such as ${hostExample}`;
  if (!hostPattern.test(value)) {
    const lower = value.trim().toLowerCase();
    const suggestion = lower !== value && hostPattern.test(lower) ? lower : undefined;
    return {
      problem:
        `${showValue(value)} is not a DNS host name` + (suggestion ? ` (did you mean "${suggestion}"?)` : ""),
      allowed,
      fix: (path) =>
        `set ${path} to ${suggestion ? `"${suggestion}"` : `a host name such as ${hostExample}`}`,
    };
  }
  const long = value.split(".").find((label) => label.length > 63);
  if (long) {
    return {
      problem: `${showValue(value)} has a label of ${long.length} characters, "${long.slice(0, 20)}..."; a DNS label (the text between two dots) has at most 63`,
      allowed,
      fix: (path) => `shorten that label of ${path} to at most 63 characters, e.g. ${hostExample}`,
    };
  }
  if (value.length > 253) {
    return {
      problem: `${showValue(value)} is ${value.length} characters long; a DNS name has at most 253`,
      allowed,
      fix: (path) => `shorten ${path} to at most 253 characters, e.g. ${hostExample}`,
    };
  }
  return undefined;
}

// The reference grammar of the OCI distribution spec, as distribution/reference (reference.go,
// regexp.go) implements it: [domain[:port]/]path[:tag][@digest], path components lowercase.
const alphanumeric = "[a-z0-9]+";
const separator = "(?:[._]|__|[-]+)";
const pathComponent = `${alphanumeric}(?:${separator}${alphanumeric})*`;
const domainComponent = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const domain = `(?:${domainComponent}(?:\\.${domainComponent})*|\\[[a-fA-F0-9:]+\\])(?::[0-9]+)?`;
const tag = "[\\w][\\w.-]{0,127}";
const digest = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
const referencePattern = new RegExp(
  `^((?:${domain}/)?${pathComponent}(?:/${pathComponent})*)(?::(${tag}))?(?:@(${digest}))?$`,
);
/** distribution/reference NameTotalLengthMax. */
const nameMaxLength = 255;
const imageExample = "europe-docker.pkg.dev/acme/apps/shop:1.4.2";

/** An image reference a kubelet can pull: `[registry/]repository[:tag][@digest]`. */
export function imageReferenceProblem(value: string): ValueProblem | undefined {
  const match = referencePattern.exec(value);
  if (match && match[1].length <= nameMaxLength) return undefined;
  const reason = imageReason(value, match?.[1]);
  const suggestion = repairedImage(value);
  return {
    problem:
      `${showValue(value)} is not an image reference: ${reason}` +
      (suggestion ? ` (did you mean "${suggestion}"?)` : ""),
    allowed: `an image reference [registry/]repository[:tag][@digest], the repository in lowercase, such as ${imageExample}`,
    fix: (path) => `set ${path} to ${suggestion ? `"${suggestion}"` : `an image such as ${imageExample}`}`,
  };
}

function imageReason(value: string, name: string | undefined): string {
  if (value.length === 0) return "it is empty";
  if (/\s/.test(value)) return "it contains a space";
  if (name !== undefined) return `the repository is longer than ${nameMaxLength} characters`;
  const [withoutDigest, digestPart] = value.split("@");
  if (digestPart !== undefined && !new RegExp(`^${digest}$`).test(digestPart)) {
    return "the digest after '@' is not an algorithm and hex digits, such as sha256:<64 hex digits>";
  }
  const lastSlash = withoutDigest.lastIndexOf("/");
  const colon = withoutDigest.indexOf(":", lastSlash + 1);
  const tagPart = colon === -1 ? undefined : withoutDigest.slice(colon + 1);
  if (tagPart !== undefined && !new RegExp(`^${tag}$`).test(tagPart)) {
    return "the tag after ':' has letters, digits, '_', '.' and '-' only, at most 128 characters";
  }
  const repository = colon === -1 ? withoutDigest : withoutDigest.slice(0, colon);
  if (/[A-Z]/.test(repository.slice(repository.indexOf("/") + 1)) || /^[^./:]*[A-Z]/.test(repository)) {
    return "the repository has capital letters";
  }
  return "the repository has lowercase letters, digits and single '.', '_' or '-' between them, in parts separated by '/'";
}

/** The likely intended reference: lowercase repository, a space read as the tag's ':'. */
function repairedImage(value: string): string | undefined {
  const parts = value.trim().split(/\s+/);
  if (parts.length > 2) return undefined;
  const [repository, tagPart] = parts;
  const candidate = `${repository.toLowerCase()}${tagPart ? `:${tagPart}` : ""}`;
  return candidate !== value && referencePattern.test(candidate) ? candidate : undefined;
}
