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

/**
 * Paths in `values` that the chart's values.yaml does not have. Keys a chart documents only as
 * comments (`# enableHttpRoutes: false` in linkerd-crds, `# annotations: {}` under cert-manager's
 * serviceAccount) count as present, placed by their indentation; below a free-form map or list
 * (podAnnotations: {}) anything goes.
 */
export function unknownValuePaths(
  values: Tree,
  valuesYaml: string,
  passThrough: readonly string[] = [],
): string[] {
  const reference = (YAML.parse(valuesYaml) ?? {}) as Tree;
  const documented = documentedPaths(valuesYaml);
  const missing: string[] = [];
  const walk = (v: unknown, ref: unknown, at: string): void => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return;
    // Below a list, a key with no default, or one documented only as a comment, the chart takes any shape.
    if (ref === null || Array.isArray(ref)) return;
    const known = ref !== null && typeof ref === "object" ? (ref as Tree) : {};
    if (ref !== undefined && ref !== null && typeof ref === "object" && Object.keys(known).length === 0)
      return;
    if (passThrough.includes(at)) return;
    for (const [k, child] of Object.entries(v as Tree)) {
      const next = at ? `${at}.${k}` : k;
      if (k in known) walk(child, known[k], next);
      else if (documented.has(next)) walk(child, null, next);
      else missing.push(next);
    }
  };
  walk(values, reference, "");
  return missing;
}

/** Key paths of a values.yaml, commented-out keys included, from indentation. */
function documentedPaths(valuesYaml: string): Set<string> {
  const paths = new Set<string>();
  const stack: { indent: number; key: string }[] = [];
  for (const line of valuesYaml.split("\n")) {
    const m = /^(\s*)(#\s?)?([A-Za-z_][\w-]*):(\s|$)/.exec(line);
    if (!m || (m[2] && /^\s*#\s?-/.test(line))) continue;
    const indent = m[1].length;
    while (stack.length > 0 && stack[stack.length - 1].indent >= indent) stack.pop();
    const path = [...stack.map((s) => s.key), m[3]].join(".");
    paths.add(path);
    if (!m[2]) stack.push({ indent, key: m[3] });
  }
  return paths;
}

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
