/**
 * gke-mesh-platform/check: the platform's checks, without the constructs' programs or the render.
 *
 * The safety invariants over a program's resources (what the render and the policy pack run), the
 * certificate inventory they judge renewal by, and the cluster invariants over a cluster's object set
 * (the platform's objects joined with what its Helm releases render). A `pulumi up` program imports
 * `gke-mesh-platform`, which loads none of this (test/entryPoints.test.ts).
 */

// The safety invariants, over resources as Pulumi registers them (docs/safety.md).
export {
  certificateInventory,
  checkInvariants,
  checks,
  invariants,
  type CertificateEntry,
  type InvariantName,
  type RemoteChildren,
  type ResourceView,
  type Violation,
} from "./safety";

// The cluster invariants, over the objects a cluster receives (docs/safety.md, "The cluster tier").
export {
  checkClusterInvariants,
  clusterInvariants,
  type ClusterFinding,
  type ClusterInvariant,
  type ObjectSet,
} from "./cluster";
