import { z } from "zod";
import { configNamespace, environmentInputSchema, installedDoc } from "../config";

/**
 * A JSON Schema (draft-07, which editors' YAML support reads) of a stack file, `Pulumi.<stack>.yaml`,
 * of a program that uses the platform: generated from the config's zod schema, so it cannot drift from
 * what the render and `pulumi up` accept. The build writes it to `dist/stack-config.schema.json`, which
 * the package exports as `gke-mesh-platform/stack-config.schema.json`; an editor with YAML support
 * (the YAML language server, as in VS Code's YAML extension) checks and completes a stack file whose
 * first line names it:
 *
 *   # yaml-language-server: $schema=./node_modules/gke-mesh-platform/dist/stack-config.schema.json
 *
 * It checks each key's shape: names, types, enums, patterns and ranges. The rules between keys, and the
 * checks of GCP regions, zones and machine types against pinned lists, are the render's
 * (`gke-mesh-platform render --check`).
 */
export function stackConfigJsonSchema(): Record<string, unknown> {
  const environment = z.toJSONSchema(environmentInputSchema, {
    io: "input",
    target: "draft-7",
    unrepresentable: "any",
  }) as { properties: Record<string, JsonSchema>; required?: string[] };
  const { gcp, ...platform } = environment.properties;
  const gcpKeys = (gcp.properties ?? {}) as Record<string, JsonSchema>;
  const keys: Record<string, JsonSchema> = {};
  for (const [key, schema] of Object.entries(gcpKeys)) keys[`gcp:${key}`] = orSecure(schema);
  for (const [key, schema] of Object.entries(platform)) keys[`${configNamespace}:${key}`] = orSecure(schema);
  const platformKeys = Object.keys(platform);
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    title: "A stack file (Pulumi.<stack>.yaml) of a program that uses gke-mesh-platform",
    description: `Every key: ${installedDoc("docs/configuration.md")}`,
    type: "object",
    properties: {
      config: {
        type: "object",
        description:
          "The stack's config: the platform's keys under platform:, the Google provider's gcp:project and gcp:region, and any other namespace's keys.",
        properties: keys,
        // The platform reads the provider's project and region; a program of building blocks alone needs neither.
        dependencies: Object.fromEntries(
          platformKeys.map((k) => [
            `${configNamespace}:${k}`,
            ((gcp as { required?: string[] }).required ?? []).map((g) => `gcp:${g}`),
          ]),
        ),
        // A key in the platform's namespace that it does not have is a mistake, not another program's key.
        patternProperties: { [`^${configNamespace}:(?!(?:${platformKeys.join("|")})$)`]: false },
      },
      secretsprovider: { type: "string" },
      encryptionsalt: { type: "string" },
      encryptedkey: { type: "string" },
    },
    definitions: {
      secure: {
        type: "object",
        description: "A value Pulumi encrypted (pulumi config set --secret)",
        properties: { secure: { type: "string" } },
        required: ["secure"],
        additionalProperties: false,
      },
    },
  };
}

type JsonSchema = Record<string, unknown>;

/** The formats JSON Schema draft-07 defines. */
const standardFormats = new Set([
  "date-time",
  "date",
  "time",
  "email",
  "idn-email",
  "hostname",
  "idn-hostname",
  "ipv4",
  "ipv6",
  "uri",
  "uri-reference",
  "iri",
  "iri-reference",
  "uri-template",
  "json-pointer",
  "relative-json-pointer",
  "regex",
]);

/** A value may also be written encrypted, `{secure: ...}`, at any depth (`pulumi config set --secret --path`). */
function orSecure(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = { ...schema };
  // zod names its own checks as formats (starts_with, includes); their pattern says the same, and a
  // format a validator does not know fails the whole schema there.
  if (typeof out.format === "string" && !standardFormats.has(out.format)) delete out.format;
  if (isSchema(schema.properties)) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([k, v]) => [k, orSecure(v as JsonSchema)]),
    );
  }
  if (isSchema(schema.items)) out.items = orSecure(schema.items);
  if (isSchema(schema.additionalProperties)) out.additionalProperties = orSecure(schema.additionalProperties);
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const list = schema[key];
    if (Array.isArray(list)) out[key] = (list as unknown[]).map((s) => (isSchema(s) ? orSecure(s) : s));
  }
  return { anyOf: [out, { $ref: "#/definitions/secure" }] };
}

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
