import { istioAdmission } from "./istio/admission";
import { linkerdAdmission } from "./linkerd/admission";
import type { MeshAdmission } from "./admissionModel";

/**
 * The meshes' models of what their own components do with objects: who gets injected and with what,
 * what each inbound policy lets in. The checks (the render's invariants, the policy pack, the cluster
 * tier, the doctor) read them; the constructs do not, so `import "gke-mesh-platform"` does not load
 * them (test/entryPoints.test.ts).
 */

export { linkerdAdmission } from "./linkerd/admission";
export { istioAdmission } from "./istio/admission";
export { refusedProbes, type RefusedProbe } from "./probes";
export { cidrWithin } from "./cidr";

/** Every mesh's admission model: the cluster tier applies the one whose injector is installed. */
export const meshAdmissions: readonly MeshAdmission[] = [linkerdAdmission, istioAdmission];
