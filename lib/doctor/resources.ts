import { stringify } from "yaml";
import { helmMarks } from "../versions/doctorFacts";

/** A kind of object the doctor lists, in every namespace. */
export interface ResourceType {
  /** The API group: "" for the core group. */
  readonly group: string;
  /** The plural resource name, as RBAC names it. */
  readonly resource: string;
  /** The kind of its objects. */
  readonly kind: string;
  /** Only objects matching this field selector (Helm's release Secrets, by type). */
  readonly fieldSelector?: { readonly field: string; readonly value: string };
}

/** How kubectl names a resource type unambiguously: `<resource>.<group>`, or the resource for the core group. */
export function resourceArg(r: Pick<ResourceType, "group" | "resource">): string {
  return r.group ? `${r.resource}.${r.group}` : r.resource;
}

const r = (group: string, resource: string, kind: string): ResourceType => ({ group, resource, kind });

/** Everything the fixed checks read. `--stack` also reads every kind the stack renders. */
export const resources = {
  crds: r("apiextensions.k8s.io", "customresourcedefinitions", "CustomResourceDefinition"),
  namespaces: r("", "namespaces", "Namespace"),
  pods: r("", "pods", "Pod"),
  services: r("", "services", "Service"),
  endpointSlices: r("discovery.k8s.io", "endpointslices", "EndpointSlice"),
  deployments: r("apps", "deployments", "Deployment"),
  replicaSets: r("apps", "replicasets", "ReplicaSet"),
  statefulSets: r("apps", "statefulsets", "StatefulSet"),
  daemonSets: r("apps", "daemonsets", "DaemonSet"),
  jobs: r("batch", "jobs", "Job"),
  cronJobs: r("batch", "cronjobs", "CronJob"),
  ingresses: r("networking.k8s.io", "ingresses", "Ingress"),
  gatewayClasses: r("gateway.networking.k8s.io", "gatewayclasses", "GatewayClass"),
  gateways: r("gateway.networking.k8s.io", "gateways", "Gateway"),
  httpRoutes: r("gateway.networking.k8s.io", "httproutes", "HTTPRoute"),
  backendConfigs: r("cloud.google.com", "backendconfigs", "BackendConfig"),
  gcpBackendPolicies: r("networking.gke.io", "gcpbackendpolicies", "GCPBackendPolicy"),
  mutatingWebhooks: r(
    "admissionregistration.k8s.io",
    "mutatingwebhookconfigurations",
    "MutatingWebhookConfiguration",
  ),
  validatingWebhooks: r(
    "admissionregistration.k8s.io",
    "validatingwebhookconfigurations",
    "ValidatingWebhookConfiguration",
  ),
  certificates: r("cert-manager.io", "certificates", "Certificate"),
  issuers: r("cert-manager.io", "issuers", "Issuer"),
  clusterIssuers: r("cert-manager.io", "clusterissuers", "ClusterIssuer"),
  bundles: r("trust.cert-manager.io", "bundles", "Bundle"),
  podMonitors: r("monitoring.coreos.com", "podmonitors", "PodMonitor"),
  serviceMonitors: r("monitoring.coreos.com", "servicemonitors", "ServiceMonitor"),
  podMonitorings: r("monitoring.googleapis.com", "podmonitorings", "PodMonitoring"),
  clusterPodMonitorings: r("monitoring.googleapis.com", "clusterpodmonitorings", "ClusterPodMonitoring"),
  /** Helm's release records only (a field selector on the Secret's type); their values are never printed. */
  helmReleases: {
    ...r("", "secrets", "Secret"),
    fieldSelector: { field: "type", value: helmMarks.releaseSecretType },
  },
} as const satisfies Record<string, ResourceType>;

export type ResourceName = keyof typeof resources;

/** The ClusterRole's name in the printed RBAC. */
export const doctorRoleName = "gke-mesh-platform-doctor";

/**
 * The ClusterRole the doctor needs: get and list, nothing else, on every resource it reads. Secrets are
 * read for Helm's release records (listed by type) and for certificates (each Secret's tls.crt and ca.crt,
 * never its key); drop that rule and those checks say they could not check.
 */
export function doctorClusterRole(): Record<string, unknown> {
  const byGroup = new Map<string, Set<string>>();
  for (const t of Object.values(resources) as ResourceType[]) {
    if (t.resource === "secrets") continue;
    byGroup.set(t.group, (byGroup.get(t.group) ?? new Set()).add(t.resource));
  }
  const rules = [...byGroup]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([group, names]) => ({ apiGroups: [group], resources: [...names].sort(), verbs: ["get", "list"] }));
  return {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: doctorRoleName, labels: { "app.kubernetes.io/name": "gke-mesh-platform-doctor" } },
    rules: [...rules, { apiGroups: [""], resources: ["secrets"], verbs: ["get", "list"] }],
  };
}

/** The RBAC as `--rbac` prints it: the ClusterRole, with how to bind it in comments. */
export function rbacYaml(): string {
  return [
    "# The read-only access `gke-mesh-platform doctor` needs: get and list, never a write.",
    "# Secrets: Helm's release records (type helm.sh/release.v1) and the tls.crt/ca.crt of certificate",
    "# Secrets, never a key and never printed. Without that rule those checks say they could not check.",
    `# Bind it: kubectl create clusterrolebinding ${doctorRoleName} --clusterrole=${doctorRoleName} --user=<you>`,
    "# (--group=<group> for a group; --serviceaccount=<namespace>:<name> for a service account).",
    "# With --stack, drift also lists every kind the stack renders: bind the built-in view ClusterRole too",
    `# (kubectl create clusterrolebinding ${doctorRoleName}-view --clusterrole=view --user=<you>), or add its kinds here.`,
    stringify(doctorClusterRole()).trimEnd(),
  ].join("\n");
}
