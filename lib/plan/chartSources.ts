import { nearest, type ConfigProblem, type PlatformConfig } from "../config";
import { chartLocation, type ChartFrom } from "../deploy";
import { charts, type ChartName } from "../versions";

/** A planned release, as its chart's location needs it. */
interface ReleaseChart {
  readonly chart: ChartName;
  readonly version?: string;
  readonly from?: ChartFrom;
}

/**
 * Every problem with where the environment's charts come from, before anything is deployed: a mirror
 * and a folder both set; a digest for a chart the environment does not install; a chart the folder
 * lacks, or whose archive has another digest; a digest an HTTPS repository cannot be checked against.
 */
export function chartSourceProblems(
  config: PlatformConfig,
  releases: Readonly<Record<string, ReleaseChart>>,
): ConfigProblem[] {
  const source = config.chartSource;
  const problems: ConfigProblem[] = [];
  if (source.mirror !== undefined && source.folder !== undefined) {
    problems.push({
      path: "platform:chartSource",
      problem: "sets both mirror and folder, and charts can come from only one of them",
      fix: "keep platform:chartSource.mirror (a registry or repository) or platform:chartSource.folder (charts on disk), not both",
    });
    return problems;
  }
  const installed: string[] = [...new Set(Object.values(releases).map((r) => charts[r.chart].chart))].sort();
  for (const name of Object.keys(source.digests)) {
    if (installed.includes(name)) continue;
    const guess = nearest(name, installed);
    problems.push({
      path: `platform:chartSource.digests.${name}`,
      problem: `names no chart this environment installs, so it would check nothing`,
      allowed: installed.join(", ") || "none: this environment installs no chart",
      fix: guess ? `did you mean ${guess}?` : "remove it",
    });
  }
  const seen = new Set<string>();
  for (const r of Object.values(releases)) {
    const pin = charts[r.chart];
    const version = r.version ?? pin.version;
    const key = `${pin.chart}@${version}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const { problems: found } = chartLocation(
      {
        name: pin.chart,
        version,
        repo: r.from?.repo ?? pin.repo,
        digest: r.from ? r.from.digest : source.digests[pin.chart],
        digestPath: r.from?.configPath,
      },
      source,
    );
    problems.push(...found);
  }
  return problems;
}
