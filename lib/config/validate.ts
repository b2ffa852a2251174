import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { z } from "zod";
import { ConfigError, nearest, secretPlaceholder, showValue, type ConfigProblem } from "./errors";
import { environmentInputSchema, type EnvironmentInput } from "./environment";
import { valueProblemOf } from "./valueChecks";

/**
 * Checks a raw environment (as assembled from Pulumi config) against the schema. Throws one
 * `ConfigError` listing every problem. The whole check, defaults and rules included, is the plan's
 * `resolvePlan` (lib/plan).
 * @param source where the config came from, for the message (e.g. `stacks/Pulumi.dev.yaml`)
 */
export function parseInput(
  raw: unknown,
  source?: string,
  secretKeys: readonly string[] = [],
): EnvironmentInput {
  const parsed = environmentInputSchema.safeParse(raw, { reportInput: true });
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.flatMap((issue) => {
        const problems = toProblems(issue);
        return secretKeys.includes(configKeyOf(issue.path))
          ? problems.map((p) => keptSecret(p, issue))
          : problems;
      }),
      source,
    );
  }
  return withKubeconfigFile(parsed.data, source);
}

/** The config path of the kubeconfig file an existing cluster is reached through. */
const kubeconfigPathKey = "platform:cluster.existing.kubeconfigPath";

/**
 * An existing cluster's kubeconfig file, read as kubectl reads the path: `~` is the home folder; a
 * relative path is the program's folder's (where `pulumi up` runs it). A path that is not a file is a
 * config error here, naming the stack file, before anything is created.
 */
function withKubeconfigFile(input: EnvironmentInput, source: string | undefined): EnvironmentInput {
  const existing = input.cluster?.existing;
  const file = existing?.kubeconfigPath;
  if (!existing || file === undefined || file === secretPlaceholder) return input;
  // The home folder as a shell expands ~: HOME, where set.
  const home = process.env.HOME || os.homedir();
  const expanded = file === "~" || /^~[/\\]/.test(file) ? path.join(home, file.slice(1)) : file;
  if (!fs.existsSync(expanded) || !fs.statSync(expanded).isFile()) {
    const read = path.resolve(expanded);
    throw new ConfigError(
      [
        {
          path: kubeconfigPathKey,
          problem: `${showValue(file)} ${fs.existsSync(expanded) ? "is a folder, not a file" : "does not exist"}${read !== file ? ` (read as ${read})` : ""}`,
          allowed:
            "the path of a kubeconfig file: absolute, relative to the program's folder, or under ~/, such as ~/.kube/config",
          fix: `set ${kubeconfigPathKey} to the kubeconfig file of the cluster, such as the one \`gcloud container clusters get-credentials\` or \`kind export kubeconfig\` writes (~/.kube/config)`,
        },
      ],
      source,
    );
  }
  return expanded === file
    ? input
    : { ...input, cluster: { ...input.cluster, existing: { ...existing, kubeconfigPath: expanded } } };
}

/** The Pulumi config key a path lies under: `platform:ingress` for ingress.acme.email, `gcp:region`. */
function configKeyOf(path: readonly PropertyKey[]): string {
  const [head, next] = path.map(String);
  return head === "gcp" && next !== undefined ? `gcp:${next}` : `platform:${head}`;
}

/**
 * A problem with a secret's decrypted value, told without the value: no quote of it, no suggestion
 * near it.
 */
function keptSecret(problem: ConfigProblem, issue: z.core.$ZodIssue): ConfigProblem {
  const input: unknown = "input" in issue ? issue.input : undefined;
  if (input === secretPlaceholder || input === undefined || typeof input === "object") return problem;
  const shown = showValue(input);
  const hide = (text: string) =>
    text
      .split(shown)
      .join("the secret value")
      .replace(/ \(did you mean [^)]*\)/g, "");
  return {
    path: problem.path,
    problem: hide(problem.problem),
    ...(problem.allowed ? { allowed: hide(problem.allowed) } : {}),
    fix: `set the secret again: pulumi config set --secret --path '${problem.path}' <value>`,
  };
}

/** `["mesh", "kind"]` → `platform:mesh.kind`; `["gcp", "region"]` → `gcp:region` (the provider's key). */
export function configPath(path: readonly PropertyKey[]): string {
  const [head, ...rest] = path.map((p) => (typeof p === "symbol" ? p.toString() : p));
  if (head === undefined) return "platform";
  if (head === "gcp" && rest.length > 0) return `gcp:${String(rest[0])}`;
  let out = `platform:${String(head)}`;
  for (const p of rest) out += typeof p === "number" ? `[${p}]` : `.${p}`;
  return out;
}

function toProblems(issue: z.core.$ZodIssue): ConfigProblem[] {
  const path = configPath(issue.path);
  const input: unknown = "input" in issue ? issue.input : undefined;
  if (input === secretPlaceholder) return [secretProblem(path, issue)];
  switch (issue.code) {
    case "unrecognized_keys": {
      // gcp:project and gcp:region are the provider's keys, not platform:* keys.
      const known = keysAt(issue.path).filter((k) => issue.path.length > 0 || k !== "gcp");
      return issue.keys.map((key) => {
        const keyPath = configPath([...issue.path, key]);
        const suggestion = nearest(key, known);
        return {
          path: keyPath,
          problem: `unknown key ${showValue(key)}` + (suggestion ? ` (did you mean "${suggestion}"?)` : ""),
          allowed: known.join(", "),
          fix: suggestion ? `rename it to ${configPath([...issue.path, suggestion])}` : `remove ${keyPath}`,
        };
      });
    }
    case "invalid_value": {
      const allowed = issue.values.map((v) => showValue(v));
      const suggestion = typeof input === "string" ? nearest(input, issue.values.map(String)) : undefined;
      return [
        {
          path,
          problem:
            input === undefined
              ? "is required"
              : `${showValue(input)} is not allowed` + (suggestion ? ` (did you mean "${suggestion}"?)` : ""),
          allowed: allowed.join(", "),
          fix: `set ${path} to ` + (suggestion ? `"${suggestion}"` : `one of ${allowed.join(", ")}`),
        },
      ];
    }
    case "invalid_type": {
      const leaf = schemaAt(issue.path);
      const expected = leaf ? kindOf(leaf) : (expectedKinds[issue.expected] ?? issue.expected);
      const accepted = leaf instanceof z.ZodNumber ? numberRange(leaf) : expected;
      const example =
        leaf && !/\bsuch as\b/.test(accepted) ? exampleOf(leaf, lastKey(issue.path)) : undefined;
      const withExample = example === undefined ? "" : `, such as ${example}`;
      return [
        {
          path,
          problem:
            input === undefined
              ? "is required"
              : `${showValue(input)} is ${typeName(input)}, not ${nounOf(expected) ?? expected}`,
          allowed: `${accepted}${withExample}`,
          fix: `set ${path} to ${accepted}${withExample}`,
        },
      ];
    }
    case "invalid_format": {
      const allowed = formatText(issue, lastKey(issue.path));
      // "an email address such as ops@example.com" → "is not an email address"; longer descriptions
      // (alternatives, lists of rules) are not one noun, so the value "is not valid".
      const noun = nounOf(allowed);
      // A short description is the fix itself; a long one is not repeated: the fix is a value, the
      // input made to fit where it can be ("B_1" → "b-1"), else the description's example.
      const fitted =
        issue.format === "regex" ? fittedValue(input, (issue as { pattern?: string }).pattern) : undefined;
      const example = /\bsuch as ([^\s,;()]+)/.exec(allowed)?.[1];
      // A noun with its example ("an email address such as ...") reads well as the fix; rules do not.
      const short = /^an? /.test(allowed) && !/;/.test(allowed);
      const fix = fitted
        ? `set ${path} to ${showValue(fitted)}`
        : short
          ? `set ${path} to ${allowed}`
          : example
            ? `set ${path} to a value such as ${showValue(example)}`
            : `set ${path} to a value as allowed says`;
      return [{ path, problem: `${showValue(input)} is not ${noun ?? "valid"}`, allowed, fix }];
    }
    case "too_small":
    case "too_big": {
      const leaf = schemaAt(issue.path);
      const example = leaf ? exampleOf(leaf, lastKey(issue.path)) : undefined;
      const withExample = example === undefined ? "" : `, such as ${example}`;
      const small = issue.code === "too_small";
      const bound = small ? issue.minimum : issue.maximum;
      if (issue.origin === "array" || issue.origin === "string") {
        const unit = issue.origin === "array" ? "item" : "character";
        const limit = `${small ? "at least" : "at most"} ${bound} ${unit}${Number(bound) === 1 ? "" : "s"}`;
        const count = Array.isArray(input) || typeof input === "string" ? input.length : undefined;
        return [
          {
            path,
            problem:
              count === 0
                ? "is empty"
                : `${showValue(input)} has ${count} ${unit}${count === 1 ? "" : "s"}, too ${small ? "few" : "many"}`,
            allowed: limit,
            fix: `set ${path} to ${limit}${withExample}`,
          },
        ];
      }
      const range =
        leaf instanceof z.ZodNumber ? numberRange(leaf) : `${small ? "at least" : "at most"} ${bound}`;
      return [
        {
          path,
          problem: `${showValue(input)} is too ${small ? "small" : "large"}`,
          allowed: range,
          fix: `set ${path} to ${range}${withExample}`,
        },
      ];
    }
    case "invalid_key":
      // A map key (e.g. a label name) is wrong: the fix is to rename the key, not to change its value.
      return issue.issues.flatMap((inner) =>
        toProblems({ ...inner, path: [...issue.path, ...inner.path] }).map((p) => ({
          ...p,
          problem: `key ${p.problem}`,
          fix: `rename the key to ${p.allowed ?? "a valid key"}`,
        })),
      );
    case "invalid_element":
      return issue.issues.flatMap((inner) => toProblems({ ...inner, path: [...issue.path, ...inner.path] }));
    case "custom": {
      const found = valueProblemOf(issue.params);
      if (found) return [{ path, problem: found.problem, allowed: found.allowed, fix: found.fix(path) }];
      return [{ path, problem: issue.message, fix: `correct ${path}` }];
    }
    default:
      return [{ path, problem: issue.message, fix: `correct ${path}` }];
  }
}

/**
 * A `secure:` value the render could not decrypt holds a placeholder, which no format accepts; say so
 * instead of calling the placeholder invalid.
 */
function secretProblem(path: string, issue: z.core.$ZodIssue): ConfigProblem {
  const leaf = schemaAt(issue.path);
  const example = leaf ? exampleOf(leaf, lastKey(issue.path)) : undefined;
  const allowed =
    issue.code === "invalid_format"
      ? formatText(issue, lastKey(issue.path))
      : (valueProblemOf("params" in issue ? issue.params : undefined)?.allowed ??
        (leaf ? `${kindOf(leaf)}${example === undefined ? "" : `, such as ${example}`}` : undefined));
  return {
    path,
    problem: "is encrypted (secure:), and this render could not decrypt it, so its value cannot be checked",
    ...(allowed ? { allowed } : {}),
    fix: "render with PULUMI_CONFIG_PASSPHRASE set to the stack's passphrase (passphrase secrets provider); with another secrets provider, pulumi preview checks it",
  };
}

/** What a field accepts, in words: the schema's own text, or plain words for zod's built-in formats. */
function formatText(issue: z.core.$ZodIssue & { code: "invalid_format" }, key: string | undefined): string {
  if (!/^Invalid\b/.test(issue.message)) return issue.message;
  switch (issue.format) {
    case "email":
      return "an email address such as ops@example.com";
    case "url":
      return "a URL such as https://example.com";
    case "starts_with": {
      const prefix = (issue as { prefix?: string }).prefix ?? "";
      return `text starting with ${showValue(prefix)}, such as ${stringExamples[key ?? ""] ?? `${prefix}example`}`;
    }
    case "regex":
      return `text matching ${String((issue as { pattern?: string }).pattern)}`;
    default:
      return `a valid ${issue.format}`;
  }
}

/** The keys the schema accepts at a path, for "did you mean" on unknown keys. */
function keysAt(path: readonly PropertyKey[]): string[] {
  const schema = schemaAt(path);
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/** The schema of the field at a path, unwrapped of optional and nullable; undefined when none. */
function schemaAt(path: readonly PropertyKey[]): z.core.$ZodType | undefined {
  let schema: z.core.$ZodType = environmentInputSchema;
  for (const segment of path) {
    schema = unwrap(schema);
    if (schema instanceof z.ZodObject) {
      const shape: Record<string, z.core.$ZodType | undefined> = schema.shape;
      const next = shape[String(segment)];
      if (!next) return undefined;
      schema = next;
    } else if (schema instanceof z.ZodArray) {
      schema = schema.element;
    } else if (schema instanceof z.ZodRecord) {
      schema = schema.valueType;
    } else {
      return undefined;
    }
  }
  return unwrap(schema);
}

function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault)
    s = s.unwrap();
  return s;
}

function lastKey(path: readonly PropertyKey[]): string | undefined {
  const keys = path.filter((p): p is string => typeof p === "string");
  return keys[keys.length - 1];
}

/** "an email address such as ops@example.com" → "an email address": a description that is one noun. */
function nounOf(description: string): string | undefined {
  return /^(an? [^,;]+?),? such as \S+$/.exec(description)?.[1];
}

/**
 * A text value made to fit a pattern the way people mean it (lower case, `_`, `.` and spaces as `-`),
 * where that fits: "B_1" → "b-1" for a DNS label. Undefined where it still does not.
 */
function fittedValue(input: unknown, pattern: string | undefined): string | undefined {
  if (typeof input !== "string" || pattern === undefined) return undefined;
  const fitted = input
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "");
  // zod gives the pattern as a regex literal, `/^...$/flags`.
  const literal = /^\/(.*)\/([a-z]*)$/s.exec(pattern);
  try {
    const regex = literal ? new RegExp(literal[1], literal[2]) : new RegExp(pattern);
    return fitted !== "" && fitted !== input && regex.test(fitted) ? fitted : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What a field accepts, in words, as in "not a whole number" or "allowed: an email address such as
 * ops@example.com". Every kind of field the schema holds has its words (a test walks the schema).
 */
export function kindOf(schema: z.core.$ZodType): string {
  const def = schema._zod.def as { type: string; values?: readonly unknown[] };
  switch (def.type) {
    case "number":
      return schema instanceof z.ZodNumber && schema.isInt ? "a whole number" : "a number";
    case "boolean":
      return "true or false";
    case "string":
      return formatMessage(schema) ?? stringFormats[(def as { format?: string }).format ?? ""] ?? "text";
    case "array":
      return "a list";
    case "object":
    case "record":
      return "a map";
    case "enum":
      return schema instanceof z.ZodEnum
        ? `one of ${schema.options.map((o) => showValue(o)).join(", ")}`
        : "one of its values";
    case "literal":
      return (def.values ?? []).map((v) => showValue(v)).join(" or ");
    case "optional":
    case "nullable":
    case "default":
      return kindOf(unwrap(schema));
    case "unknown":
    case "any":
      return "any value";
    default:
      return def.type;
  }
}

/** zod's built-in string formats, in words, where the schema gives none of its own. */
const stringFormats: Record<string, string> = {
  email: "an email address such as ops@example.com",
  url: "a URL such as https://example.com",
};

/** zod's names for types, in words, for issues whose field the schema walk does not reach. */
const expectedKinds: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  array: "a list",
  object: "a map",
  record: "a map",
};

function typeName(value: unknown): string {
  if (Array.isArray(value)) return "a list";
  if (value === null) return "null";
  if (typeof value === "boolean") return "true or false";
  return typeof value === "object" ? "a map" : `a ${typeof value}`;
}

function numberRange(schema: z.ZodNumber): string {
  const kind = schema.isInt ? "a whole number" : "a number";
  const { minValue: min, maxValue: max } = schema;
  const finite = (n: number | null): n is number => n !== null && Number.isFinite(n) && Math.abs(n) < 2 ** 52;
  if (finite(min) && finite(max)) return `${kind} from ${min} to ${max}`;
  if (finite(min)) return `${kind} of at least ${min}`;
  if (finite(max)) return `${kind} of at most ${max}`;
  return kind;
}

// Typical values of fields whose schema says no example itself, by the field's key.
const numberExamples: Record<string, number> = {
  port: 8080,
  replicas: 2,
  minNodes: 1,
  maxNodes: 3,
  diskSizeGb: 100,
  hours: 6,
  timeoutSeconds: 30,
  drainingTimeoutSeconds: 30,
  rotationDays: 90,
  percent: 10,
  status: 503,
  weight: 1,
  attempts: 2,
};
const stringExamples: Record<string, string> = {
  region: "europe-west1",
  location: "europe-west1-b",
  machineType: "e2-standard-4",
  image: "europe-docker.pkg.dev/acme/apps/shop:1.4.2",
  host: "shop.example.com",
  email: "ops@example.com",
  path: "/shop",
  healthCheckPath: "/healthz",
  kubeconfigPath: "~/.kube/config",
  context: "gke_acme_europe-west1_shared",
  serviceAccount: "collector",
  namespace: "tracing",
  gatewayApiBundleFile: "gateway-api/standard-install.yaml",
  certificates: "shop-example-com",
  name: "office",
};

/** A concrete valid value for a field, written as in a stack file. */
function exampleOf(schema: z.core.$ZodType, key: string | undefined, depth = 0): string | undefined {
  const s = unwrap(schema);
  if (depth > 3) return undefined;
  if (s instanceof z.ZodEnum) return showValue(s.options[0]);
  if (s instanceof z.ZodBoolean) return "true";
  if (s instanceof z.ZodNumber) {
    const typical = numberExamples[key ?? ""] ?? 1;
    return String(Math.min(Math.max(typical, s.minValue ?? typical), s.maxValue ?? typical));
  }
  if ((s._zod.def as { type: string }).type === "string") {
    const fromFormat = /such as ([^\s,;()]+)/.exec(formatMessage(s) ?? "")?.[1];
    const text = fromFormat ?? stringExamples[key ?? ""];
    return text === undefined ? undefined : showValue(text);
  }
  if (s instanceof z.ZodArray) {
    const element = exampleOf(s.element, key, depth + 1);
    return element === undefined ? undefined : `[${element}]`;
  }
  if (s instanceof z.ZodObject) {
    const shape: Record<string, z.core.$ZodType> = s.shape;
    const required = Object.keys(shape).filter((k) => !(shape[k] instanceof z.ZodOptional));
    const keys = required.length > 0 ? required : Object.keys(shape).slice(0, 1);
    const parts = keys.map((k) => `${k}: ${exampleOf(shape[k], k, depth + 1) ?? "..."}`);
    return `{${parts.join(", ")}}`;
  }
  return undefined;
}

/**
 * The message a string schema's regex or format check gives, which names an example: a check's, or the
 * schema's own where the schema is a format (`z.email("an email address such as ...")`).
 */
function formatMessage(schema: z.core.$ZodType): string | undefined {
  const own = schema._zod.def as { check?: string; error?: (issue: never) => unknown };
  if (own.check === "string_format" && typeof own.error === "function") {
    const text = own.error(undefined as never);
    if (typeof text === "string") return text;
  }
  for (const check of schema._zod.def.checks ?? []) {
    const def = check._zod.def as { error?: (issue: never) => unknown };
    const text = typeof def.error === "function" ? def.error(undefined as never) : undefined;
    if (typeof text === "string") return text;
  }
  return undefined;
}
