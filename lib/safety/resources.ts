import { at, isObj, type Json as Obj } from "../json";

/** The checks read resources' inputs through the project's JSON accessors. */
export { at, isObj, str, type Json as Obj } from "../json";

/**
 * What every safety invariant reads and reports: resources as Pulumi sees them, and the names, meanings
 * and findings of the invariants.
 */

/** What a remote component's transforms do to the children its provider registers (a helm.v4.Chart's). */
export interface RemoteChildren {
  /** A CustomResourceDefinition among its children, after the transforms. */
  readonly crd: {
    readonly retainOnDelete: boolean;
    readonly annotations: Readonly<Record<string, string>>;
  };
  /** The transforms refuse every child that is not a CustomResourceDefinition. */
  readonly crdsOnly: boolean;
}

/** A resource as a check sees it: what a render records, and what a policy pack is given. */
export interface ResourceView {
  readonly type: string;
  readonly name: string;
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly protect: boolean;
  /** Undefined where the caller cannot see it (policy packs are not told). */
  readonly retainOnDelete?: boolean;
  /**
   * For a remote component (a helm.v4.Chart), what its transforms make of the children its provider
   * registers; undefined where the caller cannot see it (a policy pack sees the children themselves).
   */
  readonly children?: RemoteChildren;
}

export const invariants = {
  "single-crd-owner": "One owner per CRD family, and no chart installs Gateway API CRDs while GKE owns them.",
  "crd-releases-retained":
    "CRDs, Helm releases that install them and the CRDs of CRD charts are retained on delete; charts keep their CRDs where they can.",
  "prod-protected": "Prod clusters have GKE deletion protection and Pulumi protect.",
  "no-plain-secrets": "No private key, token or password in plain inputs.",
  "namespace-pod-security": "Every namespace enforces a Pod Security level.",
  "jobs-finish": "Jobs in meshed namespaces can finish: native sidecars, or not injected.",
  "consistent-neg":
    "Every Service behind a Google load balancer carries one NEG annotation that every controller reaching it accepts.",
  "probes-authorized":
    "Where a Linkerd Server has routes, every HTTP probe of its pods matches a route authorized from the networks kubelet probes from.",
  "certificates-renewed":
    "Every certificate the program's components make, mount or reference has something that renews it.",
  "network-policy-admits-mesh-grants":
    "Where a NetworkPolicy isolates pods, every caller the mesh's authorization lets in from another namespace or from outside the cluster gets through it, on the port the mesh receives the call on.",
} as const;

export type InvariantName = keyof typeof invariants;

export interface Violation {
  readonly invariant: InvariantName;
  /** `type::name` of the resource at fault. */
  readonly resource: string;
  readonly message: string;
}

export const key = (r: ResourceView) => `${r.type}::${r.name}`;

export const helmRelease = "kubernetes:helm.sh/v3:Release";
/** A chart the provider renders and applies object by object: the platform's CRD charts. */
export const helmChart = "kubernetes:helm.sh/v4:Chart";
export const gkeCluster = "gcp:container/cluster:Cluster";

/** A Kubernetes object's kind and metadata, from a render's inputs or a policy's props. */
export function object(r: ResourceView): {
  kind?: string;
  name?: string;
  namespace?: string;
  labels: Obj;
  annotations: Obj;
} {
  const kind = at(r.inputs, "kind");
  const metadata = at(r.inputs, "metadata");
  return {
    kind: typeof kind === "string" ? kind : undefined,
    name: typeof at(metadata, "name") === "string" ? (at(metadata, "name") as string) : undefined,
    namespace:
      typeof at(metadata, "namespace") === "string" ? (at(metadata, "namespace") as string) : undefined,
    labels: isObj(at(metadata, "labels")) ? (at(metadata, "labels") as Obj) : {},
    annotations: isObj(at(metadata, "annotations")) ? (at(metadata, "annotations") as Obj) : {},
  };
}
