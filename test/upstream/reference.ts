import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import {
  describeNeed,
  lacking,
  markedShared,
  mergedReference,
  pinnedNeeds,
  repositoryRoot,
  sharedReference,
  type Need,
} from "./needs";

/**
 * The verbatim upstream copies (charts, chart values, CRDs) the tests and tiers read, in one place. The team
 * keeps them beside the repository in ../shared/reference; where the pins have moved past it, `npm run
 * reference` (scripts/reference.ts) makes a merged folder in the cache: links to every shared entry, and
 * what the pins need beyond them prepared from the Go module proxy. CI runs it; a user's clone may have
 * neither, and then these checks skip, saying why.
 *
 * The reference folder, first found of:
 * - PLATFORM_REFERENCE, as given (a folder with charts/ and upstream/);
 * - the merged folder `<cache>/reference`, where its `.shared` marker names this clone's shared reference
 *   (another clone's ../shared may differ);
 * - the shared reference itself, `reference/` in SHARED_DIR (default ../shared).
 * CHARTS_DIR and PLATFORM_REFERENCE_DIR put its charts/ or its upstream/ elsewhere.
 */

export interface Reference {
  /** The reference folder; undefined where none is found. */
  readonly root: string | undefined;
  /** The pinned charts, as helm templates them; undefined where there is no reference. */
  readonly charts: string | undefined;
  /** The values.yaml copies, CRDs and bundles; undefined where there is no reference. */
  readonly upstream: string | undefined;
  /** What the pins need and the reference lacks (everything, where there is none). */
  readonly lacks: readonly Need[];
  /** Why the reference cannot be used; undefined where it can. */
  readonly problem: string | undefined;
  /** Why its pinned charts cannot be templated; undefined where they can. */
  readonly chartsProblem: string | undefined;
}

function realpath(p: string): string | undefined {
  return fs.existsSync(p) ? fs.realpathSync(p) : undefined;
}

/** Where the reference is and whether it has what the pins need, for an environment. */
export function resolveReference(env: NodeJS.ProcessEnv = process.env): Reference {
  const shared = sharedReference(env);
  const sharedReal = realpath(shared);
  const merged = mergedReference(env);
  const root = env.PLATFORM_REFERENCE
    ? path.resolve(repositoryRoot, env.PLATFORM_REFERENCE)
    : sharedReal && fs.existsSync(merged) && markedShared(merged) === sharedReal
      ? merged
      : sharedReal
        ? shared
        : undefined;
  const charts = env.CHARTS_DIR
    ? path.resolve(repositoryRoot, env.CHARTS_DIR)
    : root
      ? path.join(root, "charts")
      : undefined;
  const upstream = env.PLATFORM_REFERENCE_DIR
    ? path.resolve(repositoryRoot, env.PLATFORM_REFERENCE_DIR)
    : root
      ? path.join(root, "upstream")
      : undefined;
  const lacks = charts && upstream ? lacking({ charts, upstream }) : pinnedNeeds();
  const noFolder = (dir: string | undefined, variable: string): string | undefined =>
    !dir
      ? `no reference folder: no ${shared} beside this clone (CI provides ../shared; SHARED_DIR or PLATFORM_REFERENCE names another)`
      : fs.existsSync(dir)
        ? undefined
        : root && env.PLATFORM_REFERENCE && !env[variable] && !fs.existsSync(root)
          ? `no reference folder at ${root} (PLATFORM_REFERENCE)`
          : `no folder ${dir}${env[variable] ? ` (${variable})` : ""}`;
  const lacksText = (where: string, needs: readonly Need[]): string | undefined =>
    needs.length > 0
      ? `${where} lacks ${needs.map(describeNeed).join(", ")}: \`npm run reference\` prepares what Go modules hold from the Go module proxy (needs Go) and names what it cannot`
      : undefined;
  const chartsProblem =
    noFolder(charts, "CHARTS_DIR") ??
    lacksText(
      charts ?? "",
      lacks.filter((n) => n.path.startsWith("charts/")),
    );
  const problem =
    noFolder(charts, "CHARTS_DIR") ??
    noFolder(upstream, "PLATFORM_REFERENCE_DIR") ??
    lacksText(`the reference ${root ?? upstream ?? ""}`, lacks);
  return { root, charts, upstream, lacks, problem, chartsProblem };
}

const reference = resolveReference();

/** The reference folder (see above); undefined where none is found. */
export const referenceRoot: string | undefined = reference.root;

/** The pinned charts' folder: CHARTS_DIR, else the reference's charts/. Each chart is `<chart>-<version>`. */
export const chartsDir: string | undefined = reference.charts;

/** The upstream copies' folder: PLATFORM_REFERENCE_DIR, else the reference's upstream/. */
export const upstreamDir: string | undefined = reference.upstream;

/** The upstream copies' folder where the reference has everything the pins need; undefined otherwise. */
export const referenceDir: string | undefined = reference.problem ? undefined : reference.upstream;

/** Why the reference cannot be used (no folder, or what it lacks and the fix); undefined where it can. */
export const referenceProblem: string | undefined = reference.problem;

/** Why the pinned charts cannot be templated (no folder, or the charts it lacks and the fix); undefined where they can. */
export const chartsProblem: string | undefined = reference.chartsProblem;

/** Why a test cannot template the pinned charts with the real helm (`helm`, as findHelm found it); undefined where it can. */
export function helmChartsProblem(helm: string | undefined): string | undefined {
  if (!helm) return "no helm (set HELM or put helm on PATH)";
  return chartsDir ? undefined : (chartsProblem ?? "no reference folder");
}

/** Why the checks against the reference skip (CI=true makes a skip fail). */
export const skipReason = `skipped: ${reference.problem ?? "the reference is complete"}`;

/** What the pins need and the reference lacks, each with what it is and the pin that asks for it. */
export function referenceLacks(): string[] {
  return reference.lacks.map(describeNeed);
}

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
