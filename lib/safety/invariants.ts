import { certificateInventory } from "./certificates";
import { crdReleasesRetained, singleCrdOwner } from "./crdInvariants";
import { consistentNeg } from "./exposure";
import { jobsFinish, networkPolicyAdmitsMeshGrants, probesAuthorized } from "./meshInvariants";
import { namespacePodSecurity, noPlainSecrets, prodProtected } from "./protection";
import { invariants, type InvariantName, type ResourceView, type Violation } from "./resources";

export {
  invariants,
  type InvariantName,
  type RemoteChildren,
  type ResourceView,
  type Violation,
} from "./resources";

/**
 * The platform's safety invariants, as pure checks over resources as Pulumi sees them. The test
 * suite asserts them on every render; the policy pack (policy/) enforces them on any Pulumi program.
 */

/** Every violation of every invariant among these resources. */
export function checkInvariants(resources: readonly ResourceView[]): Violation[] {
  return (Object.keys(invariants) as InvariantName[]).flatMap((name) => checks[name](resources));
}

/** One check per invariant, over all the resources of a program. */
export const checks: Record<InvariantName, (resources: readonly ResourceView[]) => Violation[]> = {
  "single-crd-owner": singleCrdOwner,
  "crd-releases-retained": crdReleasesRetained,
  "prod-protected": prodProtected,
  "no-plain-secrets": noPlainSecrets,
  "namespace-pod-security": namespacePodSecurity,
  "jobs-finish": jobsFinish,
  "consistent-neg": consistentNeg,
  "probes-authorized": probesAuthorized,
  "certificates-renewed": certificatesRenewed,
  "network-policy-admits-mesh-grants": networkPolicyAdmitsMeshGrants,
};

/** The certificate inventory's entries that nothing renews (lib/safety/certificates.ts). */
function certificatesRenewed(resources: readonly ResourceView[]): Violation[] {
  return certificateInventory(resources)
    .filter((e) => e.renewer === undefined)
    .map((e) => ({
      invariant: "certificates-renewed" as const,
      resource: e.resource,
      message: `${e.certificate} (${e.purpose}) from ${e.source} has nothing that renews it${e.evidence ? ` (${e.evidence})` : ""}: when it expires, whatever trusts it fails; issue it with a cert-manager Certificate (for Linkerd's webhooks: <webhook>.externalSecret and injectCaFrom)`,
    }));
}
