/**
 * `gke-mesh-platform doctor`: a read-only look at a live cluster for the known outages the platform
 * prevents by construction (docs/doctor.md). `doctor()` is the library function, `doctorCommand` the
 * command line; both read through kubectl with the user's credentials, get and list only.
 */
export { doctor, type DoctorOptions } from "./doctor";
export { doctorCommand, doctorFlags, doctorHelp } from "./command";
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
} from "./report";
export { doctorClusterRole, doctorRoleName, rbacYaml, resources, type ResourceType } from "./resources";
export {
  certificatesOfSecret,
  objectSource,
  type ClusterIdentity,
  type KubeSource,
  type ListOutcome,
  type SecretCertificates,
  type SecretOutcome,
} from "./source";
export { DoctorError, findKubectl, kubectlMissing, kubectlSource, type KubectlOptions } from "./kubectl";
export { helmReleases, manifestObjects, type HelmRelease, type ManifestObject } from "./helm";
export { clusterChecks, driftCheck, renderForDrift, type StackRender } from "./checks";
export type { Check, CheckContext, CheckResult } from "./context";
