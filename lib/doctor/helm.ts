import { gunzipSync } from "zlib";
import { parseAllDocuments } from "yaml";
import type { KubeObject } from "../cluster";
import { helmMarks } from "../versions/doctorFacts";
import { at, isObj, labelsOf, num, str, type Json } from "./objects";

/** One object a Helm release's manifest holds: its kind and name, and whether an uninstall keeps it. */
export interface ManifestObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
  /** `helm.sh/resource-policy: keep`: uninstall and upgrade leave it. */
  readonly keep: boolean;
}

/** A Helm release, as its newest deployed record in the cluster says. */
export interface HelmRelease {
  readonly name: string;
  readonly namespace: string;
  readonly revision: number;
  readonly status: string;
  /** The chart's name and version (Chart.yaml). */
  readonly chart: string;
  readonly chartVersion: string;
  /**
   * The values the release runs with: the chart's defaults merged with the release's own. Read by
   * the checks (the proxy's settings), never printed: they may hold secrets.
   */
  readonly values: Readonly<Json>;
  /** What an uninstall deletes or keeps: every object of the manifest (not the chart's crds/, which Helm never deletes). */
  readonly manifest: readonly ManifestObject[];
  /** The Secret it was read from. */
  readonly record: string;
}

/** A release record that would not decode, and why. */
export interface UnreadableRelease {
  readonly record: string;
  readonly reason: string;
}

/**
 * The newest record of each release among Helm's release Secrets: its deployed revision, else its newest.
 * Only `data.release` is decoded (base64 of the Secret's data, then Helm's own base64 of gzipped JSON,
 * helm/helm v3.19.4 pkg/storage/driver/util.go decodeRelease); nothing of it is kept but the chart, the
 * values and the manifest's kinds and names.
 */
export function helmReleases(secrets: readonly KubeObject[]): {
  releases: HelmRelease[];
  unreadable: UnreadableRelease[];
} {
  const newest = new Map<string, KubeObject>();
  const rank = (s: KubeObject) =>
    (labelsOf(s).status === "deployed" ? 1_000_000 : 0) + Number(labelsOf(s).version ?? 0);
  for (const s of secrets) {
    if (str(s.type) !== helmMarks.releaseSecretType) continue;
    const name = labelsOf(s).name ?? s.metadata.name;
    const key = `${s.metadata.namespace ?? ""}/${name}`;
    const seen = newest.get(key);
    if (!seen || rank(s) > rank(seen)) newest.set(key, s);
  }
  const releases: HelmRelease[] = [];
  const unreadable: UnreadableRelease[] = [];
  for (const s of newest.values()) {
    const record = `Secret ${s.metadata.namespace ?? ""}/${s.metadata.name}`;
    try {
      releases.push(decodeRelease(s, record));
    } catch (err) {
      unreadable.push({ record, reason: err instanceof Error ? err.message : String(err) });
    }
  }
  releases.sort((a, b) => compare(`${a.namespace}/${a.name}`, `${b.namespace}/${b.name}`));
  return { releases, unreadable };
}

function decodeRelease(secret: KubeObject, record: string): HelmRelease {
  const data = str(at(secret, "data", helmMarks.releaseKey));
  if (!data) throw new Error(`${record} has no ${helmMarks.releaseKey} key`);
  const helmEncoded = Buffer.from(data, "base64").toString("utf8");
  let bytes = Buffer.from(helmEncoded, "base64");
  // Helm gzips every release it writes; records of old Helm 3 versions may be plain JSON.
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
  let release: unknown;
  try {
    release = JSON.parse(bytes.toString("utf8"));
  } catch {
    release = undefined;
  }
  if (!isObj(release))
    throw new Error("its release key is not a release as Helm 3 writes it (gzipped JSON, base64)");
  const metadata = at(release, "chart", "metadata");
  return {
    name: str(release.name) ?? labelsOf(secret).name ?? "",
    namespace: str(release.namespace) ?? secret.metadata.namespace ?? "",
    revision: num(release.version) ?? Number(labelsOf(secret).version ?? 0),
    status: str(at(release, "info", "status")) ?? labelsOf(secret).status ?? "unknown",
    chart: str(at(metadata, "name")) ?? "",
    chartVersion: str(at(metadata, "version")) ?? "",
    values: merge(
      isObj(at(release, "chart", "values")) ? (at(release, "chart", "values") as Json) : {},
      isObj(release.config) ? release.config : {},
    ),
    manifest: manifestObjects(str(release.manifest) ?? "", str(release.namespace) ?? ""),
    record,
  };
}

/** The kinds and names of a release's manifest, and whether each is kept on uninstall. */
export function manifestObjects(manifest: string, releaseNamespace: string): ManifestObject[] {
  const out: ManifestObject[] = [];
  for (const doc of parseAllDocuments(manifest)) {
    const o: unknown = doc.toJS();
    if (!isObj(o)) continue;
    const kind = str(o.kind);
    const name = str(at(o, "metadata", "name"));
    if (!kind || !name) continue;
    const policy = str(at(o, "metadata", "annotations", helmMarks.resourcePolicy));
    out.push({
      apiVersion: str(o.apiVersion) ?? "",
      kind,
      name,
      namespace:
        str(at(o, "metadata", "namespace")) ?? (clusterScopedKinds.has(kind) ? undefined : releaseNamespace),
      // Helm compares the trimmed, lower-cased value (pkg/action/resource_policy.go).
      keep: policy !== undefined && policy.trim().toLowerCase() === helmMarks.keep,
    });
  }
  return out;
}

/** Kinds without a namespace (a manifest or a render leaves their namespace out). */
export const clusterScopedKinds: ReadonlySet<string> = new Set([
  "CustomResourceDefinition",
  "ClusterRole",
  "ClusterRoleBinding",
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "Namespace",
  "PriorityClass",
  "StorageClass",
  "APIService",
  "IngressClass",
  "GatewayClass",
  "ClusterIssuer",
  "Bundle",
  "PersistentVolume",
  "RuntimeClass",
  "ClusterPodMonitoring",
  "ClusterRules",
]);

/** Helm's coalescing, as far as the checks need it: the release's values over the chart's, maps merged. */
function merge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = isObj(b) && isObj(v) ? merge(b, v) : v;
  }
  return out;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
