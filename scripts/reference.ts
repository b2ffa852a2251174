import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import { charts, gatewayApi } from "../lib/versions";
import {
  certManagerCrdFile,
  certManagerCrds,
  chartFolder,
  describeNeed,
  gatewayApiBundle,
  lacking,
  mergedReference,
  pinnedNeeds,
  preparedCache,
  sharedMarker,
  sharedReference,
  type Need,
} from "../test/upstream/needs";

/**
 * `npm run reference`: the reference folder the tests and tiers read (test/upstream/reference.ts), made in the
 * cache folder outside the work tree as `<cache>/reference`:
 * - a link to every entry of the shared reference (../shared/reference, or SHARED_DIR's), made again on
 *   every run, so it always shows the shared folder as it is now;
 * - what the pins (lib/versions) need that the shared folder lacks, where a Go module holds it: downloaded
 *   with `go mod download` through the Go module proxy (checked against the Go checksum database) and
 *   prepared the way the shared copies were taken from their repositories (charts/PROVENANCE.md there).
 *   Each module's copy is kept under `<cache>/reference-prepared/<module>@<version>`, so a second run
 *   downloads nothing.
 * PREPARED.md there lists what was prepared, from where; `.shared` names the shared folder it links to.
 * Anything the pins need that is in neither is named, and the run fails. Nothing is copied into the project.
 */

/** One thing the pins need, taken from a module. */
interface Item {
  /** Where it goes, relative to the reference folder, as test/upstream/needs.ts names it. */
  readonly to: string;
  /**
   * Where it is in the module: a file or folder copied as `to`; or files copied into the folder `to`,
   * `<folder>/*.yaml` standing for every YAML file of that folder.
   */
  readonly from: string | readonly string[];
  /** A chart: its Chart.yaml's version and appVersion set to the release, its .gitignore files left out. */
  readonly chart?: boolean;
}

interface GoModule {
  readonly module: string;
  readonly version: string;
  readonly items: readonly Item[];
}

/**
 * What Go modules hold of what the pins need. trust-manager is not here: its published chart also carries a
 * default image tag its release tooling computes (charts/PROVENANCE.md), more than a copy can reproduce.
 */
export function goModules(
  cm: string = charts.certManager.version,
  gw: string = gatewayApi.version,
): GoModule[] {
  return [
    {
      module: "github.com/cert-manager/cert-manager",
      version: cm,
      items: [
        // deploy/charts/cert-manager: the chart the jetstack repository publishes at the release.
        { to: chartFolder(charts.certManager.chart, cm), from: "deploy/charts/cert-manager", chart: true },
        // deploy/charts/cert-manager/values.yaml: the chart's values, read by scripts/valuesKeys.ts.
        { to: `upstream/cert-manager-${cm}.values.yaml`, from: "deploy/charts/cert-manager/values.yaml" },
        // deploy/crds/cert-manager.io_<plural>.yaml: the plain controller-gen CRDs, without the chart's Helm guards.
        ...certManagerCrds.map((plural) => ({
          to: certManagerCrdFile(cm, plural),
          from: `deploy/crds/cert-manager.io_${plural}.yaml`,
        })),
      ],
    },
    {
      module: "sigs.k8s.io/gateway-api",
      version: gw,
      items: [
        // config/crd/standard/*.yaml and config/crd/kustomization.yaml, which orders them into standard-install.yaml.
        {
          to: gatewayApiBundle(gw, "standard"),
          from: ["config/crd/standard/*.yaml", "config/crd/kustomization.yaml"],
        },
      ],
    },
  ];
}

/** An expected failure: its message says what is missing and the fix, with no stack trace. */
class Failure extends Error {}

/** What `go mod download -json` prints for one module. */
interface Download {
  readonly Dir?: string;
  readonly Sum?: string;
  readonly Error?: string;
  readonly Origin?: { readonly Hash?: string; readonly Ref?: string };
}

/** A module's prepared copy, as `<cache>/reference-prepared/<module>@<version>/prepared.json` records it. */
interface Prepared {
  readonly module: string;
  readonly version: string;
  /** The module's go.sum hash (h1:, of its zip). */
  readonly sum: string;
  /** The commit the proxy reports for the version, where it reports one. */
  readonly commit?: string;
  /** The recipe it was prepared by: a changed recipe prepares the module again. */
  readonly items: readonly Item[];
  /** What differs from the module, per item. */
  readonly changes: Readonly<Record<string, string>>;
}

const recordName = "prepared.json";

function goFound(): boolean {
  return !spawnSync("go", ["version"], { encoding: "utf8" }).error;
}

function download(m: GoModule): Download & { Dir: string; Sum: string } {
  const result = spawnSync("go", ["mod", "download", "-json", `${m.module}@${m.version}`], {
    // Outside any module, so the command neither reads nor changes a go.mod.
    cwd: os.tmpdir(),
    encoding: "utf8",
  });
  let printed: Download = {};
  try {
    printed = JSON.parse(result.stdout) as Download;
  } catch {
    // Nothing parsable: the go command failed before downloading; its stderr says why.
  }
  if (result.error || result.status !== 0 || !printed.Dir || !printed.Sum)
    throw new Failure(
      `go mod download ${m.module}@${m.version} failed: ${printed.Error ?? result.error?.message ?? result.stderr.trim()} (is the Go module proxy, GOPROXY, reachable?)`,
    );
  return { ...printed, Dir: printed.Dir, Sum: printed.Sum };
}

/** Copies a file or a folder, as new files: the module cache's are read-only. */
function copy(source: string, target: string, skip: (name: string) => boolean = () => false): void {
  if (fs.statSync(source).isDirectory()) {
    fs.mkdirSync(target, { recursive: true });
    for (const name of fs.readdirSync(source).sort())
      if (!skip(name)) copy(path.join(source, name), path.join(target, name), skip);
  } else {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, fs.readFileSync(source));
  }
}

/** The release's version in Chart.yaml, where the repository holds its release tooling's placeholder. */
function releaseChart(folder: string, version: string): string {
  const file = path.join(folder, "Chart.yaml");
  const meta = YAML.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
  const before = `version ${String(meta.version)}, appVersion ${String(meta.appVersion)}`;
  meta.version = version;
  meta.appVersion = version;
  // Written as the shared copies' Chart.yaml are (v1.21.1's is byte-identical so): sequences not indented,
  // single quotes, the comments and blank lines left out.
  fs.writeFileSync(file, YAML.stringify(meta, { indentSeq: false, singleQuote: true }));
  return `Chart.yaml version and appVersion set to ${version} (the module has ${before}; rewritten without its comments, as the shared copies are); .gitignore files left out`;
}

function copyItem(m: GoModule, moduleDir: string, out: string, item: Item): string {
  const target = path.join(out, item.to);
  const need = (p: string) => {
    const file = path.join(moduleDir, p);
    if (!fs.existsSync(file))
      throw new Failure(`${m.module}@${m.version} has no ${p}: fix its row in ${__filename}`);
    return file;
  };
  if (typeof item.from === "string") {
    copy(need(item.from), target, (name) => item.chart === true && name === ".gitignore");
  } else {
    fs.mkdirSync(target, { recursive: true });
    for (const p of item.from) {
      const files = p.endsWith("/*.yaml")
        ? fs
            .readdirSync(need(path.dirname(p)))
            .filter((f) => f.endsWith(".yaml"))
            .map((f) => path.join(path.dirname(p), f))
        : [p];
      for (const f of files) copy(need(f), path.join(target, path.basename(f)));
    }
  }
  return item.chart ? releaseChart(target, m.version) : "none: byte-identical";
}

/** A module's copy prepared by an earlier run with the same recipe; undefined where there is none. */
function cachedCopy(m: GoModule, cache: string): Prepared | undefined {
  const record = path.join(cache, `${m.module}@${m.version}`, recordName);
  if (!fs.existsSync(record)) return undefined;
  const prepared = JSON.parse(fs.readFileSync(record, "utf8")) as Prepared;
  return JSON.stringify(prepared.items) === JSON.stringify(m.items) ? prepared : undefined;
}

/** A module's prepared copy: from the cache where its recipe is the same, else downloaded and prepared now. */
export function prepare(
  m: GoModule,
  cache: string,
): { prepared: Prepared; dir: string; downloaded: boolean } {
  const dir = path.join(cache, `${m.module}@${m.version}`);
  const reused = cachedCopy(m, cache);
  if (reused) return { prepared: reused, dir, downloaded: false };
  const got = download(m);
  // Prepared beside its place and moved there whole: an interrupted run leaves nothing a later one reuses.
  const building = `${dir}.tmp-${process.pid}`;
  fs.rmSync(building, { recursive: true, force: true });
  fs.mkdirSync(building, { recursive: true });
  try {
    const changes = Object.fromEntries(
      m.items.map((item) => [item.to, copyItem(m, got.Dir, building, item)]),
    );
    const prepared: Prepared = {
      module: m.module,
      version: m.version,
      sum: got.Sum,
      ...(got.Origin?.Hash ? { commit: got.Origin.Hash } : {}),
      items: m.items,
      changes,
    };
    fs.writeFileSync(path.join(building, recordName), `${JSON.stringify(prepared, null, 2)}\n`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.renameSync(building, dir);
    return { prepared, dir, downloaded: true };
  } finally {
    fs.rmSync(building, { recursive: true, force: true });
  }
}

/** One prepared item linked into the merged folder. */
interface Linked {
  readonly item: Item;
  readonly prepared: Prepared;
  readonly source: string;
}

const fromText = (from: Item["from"]): string => (typeof from === "string" ? from : from.join(", "));

function preparedText(shared: string, cache: string, linked: readonly Linked[]): string {
  const rows = linked.map(
    ({ item, prepared }) =>
      `| \`${item.to}\` | ${prepared.module}@${prepared.version} | \`${prepared.sum}\` | ${prepared.commit ?? "not reported"} | ${fromText(item.from)} | ${prepared.changes[item.to]} |`,
  );
  return [
    "# Prepared reference copies",
    "",
    `\`npm run reference\` (scripts/reference.ts) links every entry of the shared reference ${shared} here and`,
    "adds what the pins (lib/versions) need that it lacks, from the Go modules that hold it, prepared the way the",
    "shared copies were taken from their repositories (charts/PROVENANCE.md, upstream/crds/PROVENANCE.md and",
    "upstream/PROVENANCE-gke-gateway.md there). `go mod download` fetched each module through the Go module proxy",
    `and checked it against the Go checksum database; its go.sum hash is below. The copies are kept in ${cache}.`,
    "",
    ...(rows.length > 0
      ? [
          "| item | module | go.sum hash | commit | path in the module | changed |",
          "| --- | --- | --- | --- | --- | --- |",
          ...rows,
        ]
      : ["Nothing prepared: the shared reference has everything the pins need."]),
    "",
  ].join("\n");
}

/** Links every entry of `source` into `target`, making real folders of `expanded` (relative paths) to add to. */
function linkEntries(source: string, target: string, expanded: ReadonlySet<string>, at = ""): number {
  let count = 0;
  for (const name of fs.readdirSync(source).sort()) {
    const rel = at ? `${at}/${name}` : name;
    const from = path.join(source, name);
    if (expanded.has(rel) && fs.statSync(from).isDirectory()) {
      fs.mkdirSync(path.join(target, name));
      count += linkEntries(from, path.join(target, name), expanded, rel);
    } else {
      fs.symlinkSync(from, path.join(target, name));
      count++;
    }
  }
  return count;
}

function main(): number {
  const shared = sharedReference();
  if (!fs.existsSync(shared))
    throw new Failure(
      `no shared reference at ${shared}: CI provides ../shared beside the clone; set SHARED_DIR to the folder that holds reference/`,
    );
  const sharedReal = fs.realpathSync(shared);
  const merged = mergedReference();
  if (fs.existsSync(merged) && !fs.existsSync(path.join(merged, sharedMarker)))
    throw new Failure(
      `${merged} exists and npm run reference did not make it (it has no ${sharedMarker}): move it away and run again`,
    );
  const cache = preparedCache();
  const needs = pinnedNeeds();
  const lacks = new Set(
    lacking(
      { charts: path.join(sharedReal, "charts"), upstream: path.join(sharedReal, "upstream") },
      needs,
    ).map((n) => n.path),
  );

  // Prepare each module that holds something the shared folder lacks.
  const failures: string[] = [];
  const linked: Linked[] = [];
  const wanted = goModules().filter((m) => m.items.some((i) => lacks.has(i.to)));
  const cached = (m: GoModule) => cachedCopy(m, cache) !== undefined;
  const toDownload = wanted.filter((m) => !cached(m));
  const noGo = toDownload.length > 0 && !goFound();
  if (noGo)
    failures.push(
      `no go command on PATH, so ${toDownload.map((m) => `${m.module}@${m.version}`).join(" and ")} cannot be downloaded: install Go (https://go.dev/doc/install; .ci/run's machines have it) and run \`npm run reference\` again, or set PLATFORM_REFERENCE to a reference folder that has everything the pins need`,
    );
  let downloads = 0;
  for (const m of wanted) {
    if (noGo && !cached(m)) continue;
    try {
      const { prepared, dir, downloaded } = prepare(m, cache);
      if (downloaded) downloads++;
      for (const item of m.items.filter((i) => lacks.has(i.to))) {
        linked.push({ item, prepared, source: path.join(dir, item.to) });
        console.log(
          `prepared ${item.to} from ${m.module}@${m.version} ${fromText(item.from)} (${downloaded ? "prepared now" : "from the cache"})`,
        );
      }
    } catch (err) {
      if (!(err instanceof Failure)) throw err;
      failures.push(err.message);
    }
  }

  // The merged folder, made beside its place and swapped in whole.
  const building = `${merged}.new-${process.pid}`;
  const old = `${merged}.old-${process.pid}`;
  fs.rmSync(building, { recursive: true, force: true });
  fs.mkdirSync(building, { recursive: true });
  // Real folders where prepared items are added (and the layout the tests expect), links everywhere else.
  const expanded = new Set(["charts", "upstream", "upstream/crds"]);
  for (const { item } of linked)
    for (let d = path.posix.dirname(item.to); d !== "."; d = path.posix.dirname(d)) expanded.add(d);
  const entries = linkEntries(sharedReal, building, expanded);
  for (const { item, source } of linked) {
    fs.mkdirSync(path.dirname(path.join(building, item.to)), { recursive: true });
    fs.symlinkSync(source, path.join(building, item.to));
  }
  fs.writeFileSync(path.join(building, "PREPARED.md"), preparedText(sharedReal, cache, linked));
  fs.writeFileSync(path.join(building, sharedMarker), `${sharedReal}\n`);
  if (fs.existsSync(merged)) fs.renameSync(merged, old);
  fs.renameSync(building, merged);
  fs.rmSync(old, { recursive: true, force: true });

  // Whatever the pins need that the merged folder still lacks.
  const missing: Need[] = lacking(
    { charts: path.join(merged, "charts"), upstream: path.join(merged, "upstream") },
    needs,
  );
  const preparable = new Set(goModules().flatMap((m) => m.items.map((i) => i.to)));
  for (const f of failures) console.error(`reference: ${f}`);
  for (const n of missing)
    console.error(
      `reference: missing ${describeNeed(n)}: ${
        preparable.has(n.path)
          ? "its module could not be prepared (above)"
          : `not in ${sharedReal}, and no Go module in scripts/reference.ts holds it; add it there or to the shared reference`
      }`,
    );
  const modules = new Set(linked.map((l) => l.prepared.module)).size;
  console.log(
    `reference: ${merged}: ${entries} entries linked from ${sharedReal}, ${linked.length} prepared from ${modules} Go module${modules === 1 ? "" : "s"} (${downloads} prepared now, ${modules - downloads} from the cache ${cache})${missing.length > 0 ? `; ${missing.length} missing` : ""}`,
  );
  return missing.length > 0 || failures.length > 0 ? 1 : 0;
}

if (require.main === module) {
  try {
    process.exitCode = main();
  } catch (err) {
    if (!(err instanceof Failure)) throw err;
    console.error(`reference: ${err.message}`);
    process.exitCode = 1;
  }
}
