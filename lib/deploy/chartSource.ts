import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import type { ConfigProblem } from "../config";
import { isOci } from "../versions";

/**
 * Where every release's chart comes from (`platform:chartSource`): each chart's upstream repository
 * (the default), a mirror holding the pinned charts (an OCI registry or an HTTPS Helm repository), or a
 * local folder of them. Air-gapped and private-registry clusters need one of the last two.
 */
export interface ChartSource {
  /** `oci://host/path` (each chart at `<mirror>/<chart>:<version>`) or an `https://` Helm repository. */
  readonly mirror?: string;
  /** A folder of the pinned charts, `.tgz` or unpacked; relative paths are the program folder's. */
  readonly folder?: string;
  /** Each chart's expected sha256 digest, by chart name. */
  readonly digests: Readonly<Record<string, string>>;
}

/** Every chart from its upstream repository, unchecked by digest (an HTTPS repository cannot be). */
export const upstreamCharts: ChartSource = { digests: {} };

/** One chart to locate: its name, version and upstream repository. */
export interface ChartWanted {
  readonly name: string;
  readonly version: string;
  /** The upstream repository: an `https://` Helm repository or an `oci://` registry path. */
  readonly repo: string;
  /** The sha256 digest the chart must have, where its source can be checked. */
  readonly digest?: string;
  /** The config path that set the digest, for problems with it. @default platform:chartSource.digests.<name> */
  readonly digestPath?: string;
}

/**
 * A chart version's own repository and digest, where they are not its pin's: an Istio revision at a
 * version this package does not pin yet. A mirror or folder in the chart source still applies.
 */
export interface ChartFrom {
  readonly repo: string;
  readonly digest?: string;
  /** The config path that set them, for problems with them. */
  readonly configPath?: string;
}

/** What a `helm.v3.Release` is given to find a chart: a name in a repository, an OCI reference or a path. */
export interface ChartLocation {
  readonly chart: string;
  readonly version: string;
  /** The HTTPS repository, where the chart comes from one. */
  readonly repo?: string;
}

/**
 * Where Helm finds one chart, or the problems that stop it (reported before anything is deployed):
 * a folder without the chart, a digest that does not match, a digest nothing can check.
 */
export function chartLocation(
  wanted: ChartWanted,
  source: ChartSource,
): { location?: ChartLocation; problems: ConfigProblem[] } {
  const { name, version, digest } = wanted;
  const digestPath = wanted.digestPath ?? `platform:chartSource.digests.${name}`;
  if (source.folder !== undefined) return inFolder(wanted, source.folder, digestPath);
  const repo = source.mirror ?? wanted.repo;
  if (isOci(repo)) {
    // Helm pulls `<repo>/<chart>@<digest>` and checks that the version's tag resolves to that digest
    // (helm v3.19.4 pkg/registry/client.go ValidateReference).
    return { location: { chart: `${repo}/${name}${digest ? `@${digest}` : ""}`, version }, problems: [] };
  }
  if (digest) {
    return {
      problems: [
        {
          path: digestPath,
          problem: `is set, but ${name} comes from the HTTPS repository ${repo}, whose downloads Helm does not check against a digest: the setting would not apply`,
          allowed:
            "a digest with an oci:// mirror (Helm checks it) or a folder of .tgz charts (the platform checks it)",
          fix: `set platform:chartSource.mirror to an OCI registry holding the charts, or platform:chartSource.folder, or remove ${digestPath}`,
        },
      ],
    };
  }
  return { location: { chart: name, version, repo }, problems: [] };
}

function inFolder(
  wanted: ChartWanted,
  folder: string,
  digestPath: string,
): { location?: ChartLocation; problems: ConfigProblem[] } {
  const { name, version, digest } = wanted;
  const dir = path.resolve(folder);
  const archive = [`${name}-${version}.tgz`, `${name}-${version.replace(/^v/, "")}.tgz`]
    .map((f) => path.join(dir, f))
    .find((f) => fs.existsSync(f));
  if (archive) {
    const actual = digest
      ? `sha256:${crypto.createHash("sha256").update(fs.readFileSync(archive)).digest("hex")}`
      : "";
    if (digest && actual !== digest) {
      return {
        problems: [
          {
            path: digestPath,
            problem: `is ${digest}, but ${archive} has ${actual}: it is not the chart the digest names`,
            fix: `fetch ${name} ${version} again from ${wanted.repo}, or correct the digest`,
          },
        ],
      };
    }
    return { location: { chart: archive, version }, problems: [] };
  }
  const unpacked = chartDirOf(dir, name, version);
  if (unpacked && !digest) return { location: { chart: unpacked, version }, problems: [] };
  return {
    problems: [
      unpacked
        ? {
            path: digestPath,
            problem: `is set, but ${folder} holds ${name} ${version} unpacked, and a digest is the archive's`,
            fix: `keep the archive: ${pullCommand(folder, wanted, false)}`,
          }
        : {
            path: "platform:chartSource.folder",
            problem: `${JSON.stringify(folder)} holds no ${name} ${version} (neither ${name}-${version}.tgz nor the chart unpacked)`,
            fix: `fetch it: ${pullCommand(folder, wanted, digest === undefined)}`,
          },
    ],
  };
}

/**
 * The folder of a chart inside a chart folder, in any of the layouts users get from `helm pull
 * --untar`: `<chart>-<version>/` (as `../shared/reference/charts` holds them), `<chart>-<version>/<chart>/`
 * (`--untardir <chart>-<version>`, what `pullCommand` writes), or `<chart>/` whose Chart.yaml has the
 * version. Undefined when none is there.
 */
export function chartDirOf(chartsDir: string, chart: string, version: string): string | undefined {
  const candidates = [
    path.join(chartsDir, `${chart}-${version}`),
    path.join(chartsDir, `${chart}-${version}`, chart),
    path.join(chartsDir, chart),
  ];
  return candidates.find((dir) => {
    const file = path.join(dir, "Chart.yaml");
    if (!fs.existsSync(file)) return false;
    const meta = YAML.parse(fs.readFileSync(file, "utf8")) as { name?: string; version?: string };
    return meta.name === chart && String(meta.version).replace(/^v/, "") === version.replace(/^v/, "");
  });
}

/** The `helm pull` command that puts a chart where `chartLocation` and `chartDirOf` find it. */
export function pullCommand(
  chartsDir: string,
  chart: Pick<ChartWanted, "name" | "version" | "repo">,
  untar = true,
): string {
  const from = isOci(chart.repo) ? `${chart.repo}/${chart.name}` : `${chart.name} --repo ${chart.repo}`;
  return untar
    ? `helm pull ${from} --version ${chart.version} --untar --untardir ${path.join(chartsDir, `${chart.name}-${chart.version}`)}`
    : `helm pull ${from} --version ${chart.version} --destination ${chartsDir}`;
}
