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

// The doctor: the same read-only checks of a live cluster as `gke-mesh-platform doctor` (docs/doctor.md).
// Imported from its modules, not lib/doctor/index.ts, so the command line (and the render it parses
// flags with) stays out; a drift check (`stack`) loads the render only when it runs.
export { doctor, type DoctorOptions } from "./doctor/doctor";
export {
  checkNames,
  checkTitles,
  exitCodeOf,
  reportText,
  type CheckName,
  type CheckRun,
  type DoctorReport,
  type Finding,
  type Note,
  type Severity,
} from "./doctor/report";
export { doctorClusterRole, doctorRoleName, rbacYaml, type ResourceType } from "./doctor/resources";
export {
  objectSource,
  type ClusterIdentity,
  type KubeSource,
  type ListOutcome,
  type SecretCertificates,
  type SecretOutcome,
} from "./doctor/source";
export { DoctorError } from "./doctor/kubectl";
export type { StackRender } from "./doctor/checks/drift";
export type { KubeObject } from "./cluster";
