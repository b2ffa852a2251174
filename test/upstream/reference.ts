import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";

/**
 * The verbatim upstream copies (chart values, CRDs) the team keeps beside the repository in
 * ../shared/reference/upstream. CI has them; a user's clone may not, and then these checks skip.
 */
export const referenceDir: string | undefined = [
  process.env.PLATFORM_REFERENCE_DIR,
  path.resolve(__dirname, "../../../shared/reference/upstream"),
].find((d): d is string => d !== undefined && fs.existsSync(d));

export const skipReason = "skipped: ../shared/reference/upstream is not beside this clone (CI provides it)";

export function readReference(file: string): string {
  if (!referenceDir) throw new Error(skipReason);
  return fs.readFileSync(path.join(referenceDir, file), "utf8");
}

type Tree = Record<string, unknown>;

interface Schema {
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
}

/** The openAPI schema of one version of a CRD file, by kind. */
export function crdSchema(file: string, kind: string, version: string): Schema {
  for (const doc of YAML.parseAllDocuments(readReference(file))) {
    const crd = doc.toJS() as {
      spec?: {
        names?: { kind?: string };
        versions?: { name: string; schema?: { openAPIV3Schema?: Schema } }[];
      };
    } | null;
    if (crd?.spec?.names?.kind !== kind) continue;
    const v = crd.spec.versions?.find((x) => x.name === version);
    if (v?.schema?.openAPIV3Schema) return v.schema.openAPIV3Schema;
  }
  throw new Error(`no ${kind} ${version} schema in ${file}`);
}

/** Field paths of an object that its CRD schema does not define: what the API server would prune. */
export function unknownFields(object: unknown, schema: Schema, at = ""): string[] {
  if (schema["x-kubernetes-preserve-unknown-fields"]) return [];
  if (Array.isArray(object))
    return schema.items
      ? object.flatMap((o, i) => unknownFields(o, schema.items as Schema, `${at}[${i}]`))
      : [];
  if (object === null || typeof object !== "object") return [];
  const out: string[] = [];
  for (const [k, v] of Object.entries(object as Tree)) {
    const next = at ? `${at}.${k}` : k;
    if (at === "" && (k === "apiVersion" || k === "kind" || k === "metadata")) continue;
    const child =
      schema.properties?.[k] ??
      (typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined);
    if (!child) {
      if (schema.additionalProperties !== true) out.push(next);
      continue;
    }
    out.push(...unknownFields(v, child, next));
  }
  return out;
}
