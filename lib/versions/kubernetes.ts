/**
 * The Kubernetes minor versions the platform supports on GKE: the lowest and highest minor GKE offers
 * new clusters in its release channels as of 2026-11 (docs.cloud.google.com/kubernetes-engine/docs/release-schedule;
 * 1.34 stays in the Extended channel), within every pinned chart's `kubeVersion` (Linkerd's charts
 * need >=1.31.0-0). The cluster tier renders every release at both.
 */
export const supportedKubernetes = { lowest: "1.34.0", highest: "1.36.0" } as const;

/**
 * API versions every GKE cluster serves beyond Kubernetes' own, which charts may gate templates on:
 * BackendConfig (cloud.google.com), the GKE networking policies and managed certificates
 * (networking.gke.io), as `kubectl api-versions` lists them on a GKE cluster.
 */
export const gkeApis = ["cloud.google.com/v1", "networking.gke.io/v1", "networking.gke.io/v1beta1"] as const;

/** What GKE serves when its Gateway API is on (gatewayApiConfig.channel CHANNEL_STANDARD). */
export const gkeGatewayApis = ["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1beta1"] as const;

/** What GKE serves with Managed Service for Prometheus (monitoringConfig.managedPrometheus). */
export const gkeManagedPrometheusApis = ["monitoring.googleapis.com/v1"] as const;

/** The Kubernetes minors the platform supports, lowest first. */
export const supportedMinors = ["1.34", "1.35", "1.36"] as const;
export type KubernetesMinor = (typeof supportedMinors)[number];

/**
 * The standard-channel Gateway API bundle GKE installs and upgrades with `CHANNEL_STANDARD`, by the
 * cluster's minor: "GKE 1.35.2-gke.1842000 or later: 1.5.0; GKE 1.34.1-gke.1822000 or later: 1.4.0"
 * (docs.cloud.google.com/kubernetes-engine/docs/how-to/gatewayclass-capabilities, "Gateway API versions";
 * ../shared/reference/gke-gateway.md section 2.2). Early 1.35 patches still served 1.4.0.
 */
export const gkeGatewayApiBundles: Readonly<Record<KubernetesMinor, { bundle: string; from: string }>> = {
  "1.34": { bundle: "v1.4.0", from: "1.34.1-gke.1822000" },
  "1.35": { bundle: "v1.5.0", from: "1.35.2-gke.1842000" },
  "1.36": { bundle: "v1.5.0", from: "1.35.2-gke.1842000" },
};

/**
 * The minor each GKE release channel upgrades clusters to (its recommended auto-upgrade target), which a
 * cluster that names no version runs: the "Current versions" table of
 * docs.cloud.google.com/kubernetes-engine/docs/release-notes, read on 2026-11-26 (Rapid 1.36.4-gke.1082000,
 * Regular 1.35.7-gke.1222000, Stable 1.34.9-gke.1655001, Extended 1.32.13-gke.2268000, below the range
 * the platform supports, so read as its lowest).
 */
export const releaseChannelMinors: Readonly<
  Record<"RAPID" | "REGULAR" | "STABLE" | "EXTENDED", KubernetesMinor>
> = {
  RAPID: "1.36",
  REGULAR: "1.35",
  STABLE: "1.34",
  EXTENDED: "1.34",
};

/** Compares two `v1.2.3` versions: negative when a is older. */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.replace(/^v/, "").split(".").map(Number);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
