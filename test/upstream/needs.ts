import * as fs from "fs";
import * as path from "path";
import { charts, gatewayApi } from "../../lib/versions";
import { sources as valuesSources } from "../../scripts/valuesKeys";
import { cacheDir } from "../real/tools";

/**
 * What the pins need from a reference folder: the team's ../shared/reference, or the merged folder
 * `npm run reference` makes in the cache from it and the Go module proxy. One list, read by
 * test/upstream/reference.ts (the tests skip, naming what is missing) and scripts/reference.ts (which
 * prepares what it can and fails naming the rest).
 */

export const repositoryRoot = path.resolve(__dirname, "../..");

/** The shared reference folder: `reference/` in SHARED_DIR, by default ../shared beside the clone. */
export function sharedReference(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(repositoryRoot, env.SHARED_DIR ?? "../shared", "reference");
}

/** The merged reference folder `npm run reference` makes, in the cache folder outside the work tree. */
export function mergedReference(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheDir(env), "reference");
}

/** Where `npm run reference` keeps what it prepared, by module and version, across runs. */
export function preparedCache(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(cacheDir(env), "reference-prepared");
}

/** The file in the merged folder holding the absolute path of the shared reference it links to. */
export const sharedMarker = ".shared";

/** The shared reference a merged folder links to, as its marker names it; undefined where it has none. */
export function markedShared(merged: string): string | undefined {
  const marker = path.join(merged, sharedMarker);
  return fs.existsSync(marker) ? fs.readFileSync(marker, "utf8").trim() : undefined;
}

/** Something the pins need, by its path in a reference folder. */
export interface Need {
  /** Relative to the reference folder: `charts/...` or `upstream/...`. */
  readonly path: string;
  readonly kind: "folder" | "file";
  /** What it is, and the pin that asks for it. */
  readonly what: string;
}

/** A pinned chart's folder, as helm pull --untar names it (lib/deploy/chartSource chartDirOf). */
export const chartFolder = (chart: string, version: string): string => `charts/${chart}-${version}`;

/** The cert-manager CRDs the tests check emitted objects against, by plural. */
export const certManagerCrds = ["certificates", "issuers", "clusterissuers", "certificaterequests"] as const;
export const certManagerCrdFile = (version: string, plural: string): string =>
  `upstream/crds/cert-manager-${version}.${plural}.yaml`;

/** A Gateway API bundle: the channel's CRD files and the kustomization that orders them. */
export const gatewayApiBundle = (version: string, channel: string): string =>
  `upstream/gateway-api-${version}-${channel}`;

/**
 * Everything the pins need: every pinned chart's folder, the values.yaml copy scripts/valuesKeys.ts reads for
 * each chart it records, cert-manager's CRDs and the Gateway API bundle.
 */
export function pinnedNeeds(): Need[] {
  const cm = charts.certManager.version;
  const needs: Need[] = [
    ...Object.entries(charts).map(([name, pin]): Need => ({
      path: chartFolder(pin.chart, pin.version),
      kind: "folder",
      what: `the ${pin.chart} ${pin.version} chart, charts.${name}`,
    })),
    ...Object.entries(valuesSources).map(([name, source]): Need => {
      const pin = charts[name as keyof typeof charts];
      return {
        path: path.posix.join("upstream", source.file),
        kind: "file",
        what: `the ${pin.chart} ${pin.version} values.yaml, charts.${name}`,
      };
    }),
    ...certManagerCrds.map((plural): Need => ({
      path: certManagerCrdFile(cm, plural),
      kind: "file",
      what: `the cert-manager ${cm} ${plural} CRD, charts.certManager`,
    })),
    {
      path: gatewayApiBundle(gatewayApi.version, gatewayApi.channel),
      kind: "folder",
      what: `the Gateway API ${gatewayApi.version} ${gatewayApi.channel} bundle, gatewayApi`,
    },
  ];
  return needs.filter((n, i) => needs.findIndex((m) => m.path === n.path) === i);
}

/** A reference folder's two halves; CHARTS_DIR and PLATFORM_REFERENCE_DIR may put either elsewhere. */
export interface ReferenceDirs {
  readonly charts: string;
  readonly upstream: string;
}

/** Where a reference path is on disk. */
export function locate(dirs: ReferenceDirs, referencePath: string): string {
  const [top, ...rest] = referencePath.split("/");
  return path.join(top === "charts" ? dirs.charts : dirs.upstream, ...rest);
}

/** The needs a reference folder lacks. */
export function lacking(dirs: ReferenceDirs, needs: readonly Need[] = pinnedNeeds()): Need[] {
  return needs.filter((n) => !fs.existsSync(locate(dirs, n.path)));
}

/** One need, for a message: its path and what it is. */
export const describeNeed = (n: Need): string => `${n.path} (${n.what})`;
