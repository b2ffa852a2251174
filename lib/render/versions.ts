import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import {
  advisoriesCheckedOn,
  advisoriesOf,
  charts,
  compareVersions,
  gatewayApi,
  images,
  isOci,
  istioFacts,
  retiredHostOf,
  type Advisory,
  type ChartName,
  type ChartPin,
} from "../versions";

/**
 * `gke-mesh-platform versions`: every upstream the package pins (chart, version, source, app version,
 * CRDs), and, where the chart repositories can be reached, how far each pin is behind its newest release,
 * with the known advisories that reach it. Offline it says so and still lists the pins and advisories.
 */

/** One pinned chart, as `versions` reports it. */
export interface PinReport {
  readonly name: ChartName;
  readonly chart: string;
  readonly version: string;
  readonly appVersion: string;
  readonly repo: string;
  /** Where the chart carries CRDs, and whether Helm upgrades them. */
  readonly crds?: string;
  /** The newest releases upstream, where its repository answered. */
  readonly upstream?: {
    /** The newest release of the pin's own line (same major and minor). */
    readonly newestPatch: string;
    readonly newest: string;
    /** How many releases of the pin's line are newer, and how many in all. */
    readonly patchesBehind: number;
    readonly releasesBehind: number;
  };
  /** Why the repository gave no answer. */
  readonly unreachable?: string;
  readonly advisories: readonly Advisory[];
  /** The host its source is on, where the upstream project retired it. */
  readonly retiredHost?: string;
}

export interface VersionsReport {
  readonly pins: readonly PinReport[];
  readonly gatewayApi: typeof gatewayApi;
  readonly images: Readonly<Record<string, string>>;
  readonly advisoriesCheckedOn: string;
  /** True when no chart repository could be reached (or none was asked). */
  readonly offline: boolean;
}

/** Reads a Helm repository's index.yaml; rejects when it cannot be reached. */
export type IndexReader = (repo: string) => Promise<string>;

/** Fetches `<repo>/index.yaml` over HTTPS, giving up after `timeoutMs`. */
export function httpIndexReader(timeoutMs = 15_000): IndexReader {
  return async (repo) => {
    const response = await fetch(`${repo.replace(/\/+$/, "")}/index.yaml`, {
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
    return response.text();
  };
}

/**
 * Reads recorded indexes from a folder, one file per repository named after its host and path
 * (`charts.jetstack.io.yaml`, `prometheus-community.github.io_helm-charts.yaml`).
 */
export function recordedIndexReader(dir: string): IndexReader {
  return (repo) => {
    const file = path.join(dir, `${indexFileName(repo)}`);
    return fs.existsSync(file)
      ? Promise.resolve(fs.readFileSync(file, "utf8"))
      : Promise.reject(new Error(`no recorded index ${file}`));
  };
}

/** The file a repository's recorded index is kept in. */
export function indexFileName(repo: string): string {
  return `${repo
    .replace(/^[a-z]+:\/\//, "")
    .replace(/\/+$/, "")
    .replace(/\//g, "_")}.yaml`;
}

interface IndexEntry {
  readonly version: string;
  readonly appVersion?: string;
}

/** Stable releases only: a pre-release (`-rc.0`) is never a pin to move to. */
function releasesOf(index: string, chart: string): string[] {
  const doc = YAML.parse(index, { maxAliasCount: -1 }) as {
    entries?: Record<string, readonly IndexEntry[]>;
  } | null;
  return (doc?.entries?.[chart] ?? [])
    .map((e) => String(e.version))
    .filter((v) => !/-/.test(v.replace(/^v/, "")))
    .sort((a, b) => compareVersions(b, a));
}

const line = (v: string) => v.replace(/^v/, "").split(".").slice(0, 2).join(".");

/** What the package pins, compared with upstream where `read` reaches it. */
export async function versionsReport(read?: IndexReader): Promise<VersionsReport> {
  const repos = [...new Set(Object.values(charts).map((c) => c.repo))].filter((r) => !isOci(r));
  const indexes = new Map<string, Promise<string>>();
  if (read) for (const repo of repos) indexes.set(repo, read(repo));
  const settled = new Map<string, { text?: string; error?: string }>();
  for (const [repo, p] of indexes) {
    settled.set(
      repo,
      await p.then(
        (text) => ({ text }),
        (err: unknown) => ({
          error:
            err instanceof Error
              ? err.cause instanceof Error
                ? err.cause.message
                : err.message
              : String(err),
        }),
      ),
    );
  }
  const pins = (Object.entries(charts) as [ChartName, ChartPin][]).map(([name, pin]): PinReport => {
    const got = settled.get(pin.repo);
    const all = got?.text ? releasesOf(got.text, pin.chart) : [];
    const newer = all.filter((v) => compareVersions(v, pin.version) > 0);
    const sameLine = newer.filter((v) => line(v) === line(pin.version));
    return {
      name,
      chart: pin.chart,
      version: pin.version,
      appVersion: pin.appVersion,
      repo: pin.repo,
      crds: pin.crds
        ? `${pin.crds.groups.join(", ")} (${pin.crds.in === "templates" ? "templates: Helm upgrades them" : "crds/: Helm never upgrades them"})`
        : undefined,
      upstream:
        all.length > 0
          ? {
              newestPatch: sameLine[0] ?? pin.version,
              newest: all[0],
              patchesBehind: sameLine.length,
              releasesBehind: newer.length,
            }
          : undefined,
      unreachable:
        got?.error ?? (got?.text && all.length === 0 ? `its index lists no ${pin.chart}` : undefined),
      advisories: advisoriesOf(name, pin.appVersion),
      retiredHost: retiredHostOf(pin.repo)?.host,
    };
  });
  return {
    pins,
    gatewayApi,
    images: { ...images, istioHub: istioFacts.imageHub },
    advisoriesCheckedOn,
    offline: !read || [...settled.values()].every((s) => s.error !== undefined),
  };
}

/** The report for people: the pins, then what is behind and by how much, then the advisories. */
export function versionsText(report: VersionsReport): string {
  const rows = report.pins.map((p) => [p.chart, p.version, p.appVersion, p.repo, p.crds ?? "none"]);
  const head = ["chart", "version", "app", "repository", "CRDs"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const table = [head, ...rows].map(
    (r) => `  ${r.map((c, i) => (i < r.length - 1 ? c.padEnd(widths[i]) : c)).join("  ")}`,
  );
  const lines = [
    "Pinned upstreams (one file: lib/versions/charts.ts):",
    ...table,
    `  Gateway API bundle ${report.gatewayApi.version} (${report.gatewayApi.channel} channel; GKE serves its own where it owns the Gateway API)`,
    ...Object.entries(report.images).map(([k, v]) => `  image ${k}: ${v}`),
    "",
  ];
  if (report.offline) {
    const why = report.pins.find((p) => p.unreachable)?.unreachable;
    lines.push(
      `Offline: ${why ? `no chart repository answered (${why})` : "no chart repository was asked (--offline)"}, so nothing was compared with upstream; the advisories below are the ones recorded with the pins.`,
    );
  } else {
    lines.push("Against upstream:");
    for (const p of report.pins) {
      if (!p.upstream) {
        lines.push(`  ${p.chart} ${p.version}: not compared (${p.unreachable ?? "no answer"})`);
        continue;
      }
      const u = p.upstream;
      lines.push(
        u.releasesBehind === 0
          ? `  ${p.chart} ${p.version}: current`
          : `  ${p.chart} ${p.version}: BEHIND: ${u.patchesBehind > 0 ? `${u.newestPatch} on its line (${u.patchesBehind} newer), ` : ""}${u.newest} newest (${u.releasesBehind} newer in all)`,
      );
    }
  }
  lines.push("", `Known advisories (checked ${report.advisoriesCheckedOn}):`);
  const reached = [...new Set(report.pins.flatMap((p) => p.advisories))];
  const retired = report.pins.filter((p) => p.retiredHost);
  if (reached.length === 0 && retired.length === 0) lines.push("  none reaches a pin");
  for (const a of reached) {
    const pins = report.pins.filter((p) => p.advisories.includes(a)).map((p) => `${p.chart} ${p.version}`);
    lines.push(`  ${a.id} (${a.published}) reaches ${pins.join(", ")}; fixed in ${a.fixedIn.join(", ")}`);
    lines.push(`    ${a.summary} (${a.source})`);
    if (a.meanwhile) lines.push(`    meanwhile: ${a.meanwhile}`);
  }
  for (const p of retired)
    lines.push(`  ${p.chart} ${p.version}: its source ${p.retiredHost} is retired by its project`);
  return lines.join("\n");
}
