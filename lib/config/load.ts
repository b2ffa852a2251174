import { ConfigError, nearest, type ConfigProblem } from "./errors";
import { environmentInputSchema } from "./environment";

/** The Pulumi config namespace of the platform's keys: `platform:tier`, `platform:mesh`, ... */
export const configNamespace = "platform";

/** The provider's namespace, whose `gcp:project` and `gcp:region` the platform reads too. */
const gcpNamespace = "gcp";
const gcpKeys = ["project", "region"];

/** Top-level keys of the platform's namespace: `tier`, `mesh`, ... (not gcp, which is the provider's). */
const platformKeys = Object.keys(environmentInputSchema.shape).filter((k) => k !== gcpNamespace);

/**
 * Assembles the raw environment object from flat Pulumi config keys. Throws a `ConfigError` for
 * keys the platform would otherwise never read (see `configKeyProblems`).
 * @param project the program's own config namespace (its Pulumi project name), where platform keys
 *   written without `platform:` land
 */
export function environmentFromConfig(
  values: Record<string, string>,
  project?: string,
): Record<string, unknown> {
  const problems = configKeyProblems(values, project);
  if (problems.length > 0) throw new ConfigError(problems);
  return assembleEnvironment(values);
}

/** `environmentFromConfig` without the key checks: every `platform:*` key, and the provider's two. */
export function assembleEnvironment(values: Record<string, string>): Record<string, unknown> {
  const env: Record<string, unknown> = {};
  const prefix = `${configNamespace}:`;
  for (const key of Object.keys(values).sort()) {
    if (key.startsWith(prefix) && key !== `${prefix}${gcpNamespace}`) {
      env[key.slice(prefix.length)] = parseValue(values[key]);
    }
  }
  const gcp: Record<string, string> = {};
  if (values["gcp:project"] !== undefined) gcp.project = values["gcp:project"];
  if (values["gcp:region"] !== undefined) gcp.region = values["gcp:region"];
  env.gcp = gcp;
  return env;
}

/**
 * Config keys meant for the platform that it would not read: a platform key in the program's own
 * namespace (in a stack file, a key without a namespace is the program's: `mesh:` is `<project>:mesh`),
 * any key in a namespace one typo away from `platform` (`platfrom:monitoring`), the provider's
 * project or region one typo away from `gcp:`, and `platform:gcp`. Unknown keys inside `platform:`
 * are the schema's to report.
 */
export function configKeyProblems(values: Record<string, string>, project?: string): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const key of Object.keys(values).sort()) {
    const colon = key.indexOf(":");
    if (colon === -1) continue;
    const namespace = key.slice(0, colon);
    const name = key.slice(colon + 1);
    const platformKey = platformKeys.includes(name) ? name : nearest(name, platformKeys);
    if (namespace === configNamespace) {
      if (name === gcpNamespace) {
        problems.push({
          path: key,
          problem: "is not a platform key: the project and region are the Google provider's own config",
          allowed: "gcp:project and gcp:region, such as gcp:project: acme-platform-dev",
          fix: "use gcp:project and gcp:region instead",
        });
      }
    } else if (namespace === project) {
      if (platformKeys.includes(name)) {
        problems.push({
          path: key,
          problem: `is in the program's own namespace "${project}", where the platform does not look; ${name} is a platform key`,
          allowed: `platform:${name}`,
          fix: `rename it to platform:${name} (in a stack file, a key without a namespace belongs to the program)`,
        });
      }
    } else if (nearest(namespace, [configNamespace]) !== undefined) {
      problems.push({
        path: key,
        problem: `is in namespace "${namespace}", which nothing reads (did you mean "${configNamespace}"?)`,
        allowed: `platform:<key>, with a key of ${platformKeys.join(", ")}`,
        fix: platformKey
          ? `rename it to platform:${platformKey}`
          : `remove ${key}, or rename it to a platform key such as platform:mesh`,
      });
    } else if (namespace !== gcpNamespace && gcpKeys.includes(name) && nearest(namespace, [gcpNamespace])) {
      problems.push({
        path: key,
        problem: `is in namespace "${namespace}", which nothing reads (did you mean "${gcpNamespace}"?)`,
        allowed: "gcp:project and gcp:region, the Google provider's keys",
        fix: `rename it to gcp:${name}`,
      });
    }
  }
  return problems;
}

/** Pulumi passes structured values as JSON text and plain values as strings. */
function parseValue(value: string): unknown {
  const trimmed = value.trim();
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    try {
      return JSON.parse(trimmed);
    } catch {
      return value;
    }
  }
  return value;
}
