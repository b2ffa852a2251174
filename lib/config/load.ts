import { ConfigError } from "./errors";

/** The Pulumi config namespace of the platform's keys: `platform:tier`, `platform:mesh`, ... */
export const configNamespace = "platform";

/** Assembles the raw environment object from flat Pulumi config keys. */
export function environmentFromConfig(values: Record<string, string>): Record<string, unknown> {
  const env: Record<string, unknown> = {};
  const prefix = `${configNamespace}:`;
  for (const key of Object.keys(values).sort()) {
    if (key.startsWith(prefix)) env[key.slice(prefix.length)] = parseValue(values[key]);
  }
  if ("gcp" in env) {
    throw new ConfigError([
      {
        path: "platform:gcp",
        problem: "is not a platform key: the project and region are the Google provider's own config",
        fix: "use gcp:project and gcp:region instead",
      },
    ]);
  }
  const gcp: Record<string, string> = {};
  if (values["gcp:project"] !== undefined) gcp.project = values["gcp:project"];
  if (values["gcp:region"] !== undefined) gcp.region = values["gcp:region"];
  env.gcp = gcp;
  return env;
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
