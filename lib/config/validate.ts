import { z } from "zod";
import { ConfigError, nearest, showValue, type ConfigProblem } from "./errors";
import { environmentInputSchema, type EnvironmentInput } from "./schema";

/**
 * Checks a raw environment (as assembled from Pulumi config) against the schema. Throws one
 * `ConfigError` listing every problem. The whole check, defaults and rules included, is the plan's
 * `resolvePlan` (lib/plan).
 * @param source where the config came from, for the message (e.g. `stacks/Pulumi.dev.yaml`)
 */
export function parseInput(raw: unknown, source?: string): EnvironmentInput {
  const parsed = environmentInputSchema.safeParse(raw, { reportInput: true });
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.flatMap((issue) => toProblems(issue)),
      source,
    );
  }
  return parsed.data;
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
    case "invalid_type":
      return [
        {
          path,
          problem:
            input === undefined
              ? `is required`
              : `${showValue(input)} is a ${typeName(input)}, not a ${issue.expected}`,
          allowed: `a ${issue.expected}`,
          fix: input === undefined ? `set ${path}` : `write ${path} as a ${issue.expected}`,
        },
      ];
    case "invalid_format":
      return [
        {
          path,
          problem: `${showValue(input)} is not valid`,
          allowed: issue.message,
          fix: `set ${path} to ${issue.message}`,
        },
      ];
    case "too_small":
    case "too_big": {
      const bound = issue.code === "too_small" ? `at least ${issue.minimum}` : `at most ${issue.maximum}`;
      const unit = issue.origin === "array" ? " items" : issue.origin === "string" ? " characters" : "";
      return [
        {
          path,
          problem: `${showValue(input)} is too ${issue.code === "too_small" ? "small" : "large"}`,
          allowed: `${bound}${unit}`,
          fix: `set ${path} to ${bound}${unit}`,
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
    default:
      return [{ path, problem: issue.message, fix: `correct ${path}` }];
  }
}

/** The keys the schema accepts at a path, for "did you mean" on unknown keys. */
function keysAt(path: readonly PropertyKey[]): string[] {
  let schema: z.core.$ZodType = environmentInputSchema;
  for (const segment of path) {
    schema = unwrap(schema);
    if (schema instanceof z.ZodObject) {
      const shape: Record<string, z.core.$ZodType | undefined> = schema.shape;
      const next = shape[String(segment)];
      if (!next) return [];
      schema = next;
    } else if (schema instanceof z.ZodArray) {
      schema = schema.element;
    } else if (schema instanceof z.ZodRecord) {
      schema = schema.valueType;
    } else {
      return [];
    }
  }
  schema = unwrap(schema);
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault)
    s = s.unwrap();
  return s;
}

function typeName(value: unknown): string {
  if (Array.isArray(value)) return "list";
  if (value === null) return "null";
  return typeof value === "object" ? "map" : typeof value;
}
