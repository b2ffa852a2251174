import type { AlertRule } from "../../manifests";
import { certificateExpiresWithin } from "../../manifests";
import { istioCaNames } from "./manifests";

/** Istio's identity alerts: the intermediate CA that signs workloads, and the root within 60 days of expiry. */
export function istioIdentityAlertRules(props: {
  readonly namespace: string;
  readonly trustNamespace: string;
}): AlertRule[] {
  return [
    certificateExpiresWithin({
      alert: "IstioIntermediateCaExpiring",
      namespace: props.namespace,
      name: istioCaNames.intermediate,
      // Renewed with 30 days left: under 21 days, nine days of renewals have failed.
      within: "21 * 86400",
      what: "Istio's intermediate CA, which signs every workload certificate",
      why: "When it expires istio-csr can sign no certificate and mTLS stops within the hour; see kubectl describe certificate -n istio-system istio-intermediate-ca.",
    }),
    certificateExpiresWithin({
      alert: "IstioRootCaExpiring",
      namespace: props.trustNamespace,
      name: istioCaNames.root,
      within: "60 * 86400",
      what: "Istio's root CA",
      why: "cert-manager renews it a year before expiry, so this renewal failed; rotate it as docs/istio.md describes.",
    }),
  ];
}
