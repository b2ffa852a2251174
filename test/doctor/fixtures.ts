import { gzipSync } from "zlib";
import type { KubeObject } from "../../lib/cluster";
import { ClusterReads, type Check } from "../../lib/doctor/context";
import { objectSource, type Finding, type Note } from "../../lib/doctor";

/** Live objects as `kubectl get -o json` returns them, and a check run over them without a cluster. */

type Meta = { labels?: Record<string, string>; annotations?: Record<string, string> };

export const namespace = (name: string, meta: Meta = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "Namespace",
  metadata: {
    name,
    labels: { "kubernetes.io/metadata.name": name, ...meta.labels },
    annotations: meta.annotations,
  },
});

export function obj(
  apiVersion: string,
  kind: string,
  name: string,
  namespace: string | undefined,
  rest: Record<string, unknown> = {},
  meta: Meta & { managedFields?: unknown[]; ownerReferences?: unknown[] } = {},
): KubeObject {
  return {
    apiVersion,
    kind,
    metadata: { name, ...(namespace ? { namespace } : {}), ...meta },
    ...rest,
  };
}

/** A CRD of a group and plural, with the owner's marks given. */
export const crd = (
  group: string,
  plural: string,
  kind: string,
  meta: Meta & { managedFields?: unknown[] } = {},
) =>
  obj(
    "apiextensions.k8s.io/v1",
    "CustomResourceDefinition",
    `${plural}.${group}`,
    undefined,
    {
      spec: { group, names: { kind, plural }, scope: "Namespaced", versions: [{ name: "v1", served: true }] },
    },
    meta,
  );

export const helmOwned = (release: string, ns: string): Meta => ({
  labels: { "app.kubernetes.io/managed-by": "Helm" },
  annotations: { "meta.helm.sh/release-name": release, "meta.helm.sh/release-namespace": ns },
});

export const gkeOwned: Meta = {
  labels: { "addonmanager.kubernetes.io/mode": "Reconcile" },
  annotations: { "components.gke.io/component-name": "gateway-api-crds" },
};

export interface ReleaseSpec {
  readonly name: string;
  readonly namespace: string;
  readonly chart: string;
  readonly version: string;
  readonly revision?: number;
  readonly status?: string;
  readonly values?: Record<string, unknown>;
  readonly config?: Record<string, unknown>;
  readonly manifest?: string;
}

/** Helm's release record for a release, encoded as Helm writes it (gzipped JSON in base64, in base64). */
export function helmRecord(r: ReleaseSpec): KubeObject {
  const revision = r.revision ?? 1;
  const release = {
    name: r.name,
    namespace: r.namespace,
    version: revision,
    info: { status: r.status ?? "deployed" },
    chart: { metadata: { name: r.chart, version: r.version }, values: r.values ?? {} },
    config: r.config ?? {},
    manifest: r.manifest ?? "",
  };
  const helmEncoded = gzipSync(Buffer.from(JSON.stringify(release))).toString("base64");
  return {
    apiVersion: "v1",
    kind: "Secret",
    type: "helm.sh/release.v1",
    metadata: {
      name: `sh.helm.release.v1.${r.name}.v${revision}`,
      namespace: r.namespace,
      labels: { name: r.name, owner: "helm", status: r.status ?? "deployed", version: String(revision) },
    },
    data: { release: Buffer.from(helmEncoded).toString("base64") },
  };
}

/** What a check finds over these objects, judged at `now`. */
export async function runCheck(
  check: Check,
  objects: readonly KubeObject[],
  options: { readonly forbidden?: readonly string[]; readonly now?: Date } = {},
): Promise<{ findings: Omit<Finding, "check">[]; notes: Omit<Note, "check">[]; unchecked: string[] }> {
  const unchecked: string[] = [];
  const reads = new ClusterReads(objectSource(objects, { forbidden: options.forbidden }));
  const result = await check(reads.contextFor(options.now ?? new Date("2027-01-01T00:00:00Z"), unchecked));
  return { findings: [...result.findings], notes: [...(result.notes ?? [])], unchecked };
}

/** The codes of findings, with their severity: what most tests assert first. */
export const codes = (findings: readonly Omit<Finding, "check">[]) =>
  findings.map((f) => `${f.severity} ${f.code}`);
