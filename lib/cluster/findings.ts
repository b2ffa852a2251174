/** One thing in a render's object set that would fail or silently degrade on a cluster. */
export interface ClusterFinding {
  readonly invariant: ClusterInvariant;
  /** The object (or release) at fault, as `Kind namespace/name`. */
  readonly object: string;
  /** What is wrong and the fix. */
  readonly message: string;
}

/** The invariants over the whole object set a cluster receives. */
export const clusterInvariants = {
  "releases-template": "every release templates: no chart refuses the platform's values",
  "monitors-select": "every monitor selects a pod exposing the port it scrapes; every mesh part is scraped",
  "proxies-injected":
    "every namespace and pod that asks for a mesh proxy is selected by an installed injection webhook",
  "production-sizing":
    "in prod: requests and a memory limit on every container, two replicas of every control plane spread across zones, a disruption budget that keeps one replica and lets one go for every replicated workload",
  "references-resolve":
    "every Service a route sends to and every Linkerd Server selects a pod; every issuer, ServiceAccount, Secret and ConfigMap a pod or Certificate needs exists",
  "objects-unique": "no object is rendered twice: by two releases, or by a release and the platform",
  "scrapes-pass-the-mesh": "every monitor's scrape of a meshed pod gets through the mesh's mTLS",
  "acme-solvers-outside-the-mesh":
    "every ACME HTTP-01 solver pod stays out of the mesh, so no policy or mTLS refuses the challenge",
  "no-open-access": "no policy the platform writes lets every address in",
  "probes-authorized":
    "kubelet's HTTP probes of every meshed pod, the charts' included, get through the mesh's inbound policy",
  "certificate-facts-hold":
    "the certificate inventory's chart facts, which certificates-renewed judges, match what each chart renders: its issuers and Certificates, the TLS Secrets and CA bundles it writes at template time, the Secrets its pods mount",
  "crd-claims-hold":
    "the CRD ownership model's claims (crdClaims), which decide every CRD family's one owner, match the CRDs each release's chart renders with the platform's values",
  "disruption-budgets-valid": "no PodDisruptionBudget sets both minAvailable and maxUnavailable",
  "ca-keys-confined":
    "no identity but the component that owns a CA key (cert-manager; trust-manager in its trust namespace) can read the Secret that holds it",
} as const;

export type ClusterInvariant = keyof typeof clusterInvariants;
