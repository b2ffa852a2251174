import type { AlertRule } from "../../manifests";
import { certificateExpiresWithin } from "../../manifests";
import { linkerdIdentityNames } from "./identity";

/**
 * Linkerd's identity alerts: the issuer the identity controller signs with close to expiry, and the
 * trust anchor within 60 days of expiry.
 */
export function linkerdIdentityAlertRules(trustNamespace: string): AlertRule[] {
  return [
    {
      alert: "LinkerdIdentityIssuerExpiring",
      // The identity controller's own view (pkg/identity/service.go at edge-26.8.3): cert-manager renews the
      // 48-hour issuer with 25 hours left, and identity reloads it within minutes, so under 24 hours it
      // was not renewed or identity refused the new one (an issuer it cannot verify against the trust
      // anchors it loaded at start, after an anchor rotation without a restart). At 0 proxies get no
      // certificates and mTLS stops.
      expr: "issuer_cert_ttl_seconds < 24 * 3600",
      for: "15m",
      labels: { severity: "critical" },
      annotations: {
        summary: "Linkerd's identity issuer expires in {{ $value | humanizeDuration }}",
        description:
          "The issuer Linkerd's identity controller signs with ({{ $labels.pod }}) expires in {{ $value | humanizeDuration }}. Check Certificate linkerd/linkerd-identity-issuer; if it is fresh, identity refused it: its logs say why, and a restart of the control plane loads the current trust anchors (docs/linkerd.md, Rotating the trust anchor).",
      },
    },
    certificateExpiresWithin({
      alert: "LinkerdTrustAnchorExpiring",
      namespace: trustNamespace,
      name: linkerdIdentityNames.trustAnchor,
      within: "60 * 86400",
      what: "Linkerd's trust anchor",
      why: "cert-manager renews it a year before expiry, so this renewal failed; rotate it as docs/linkerd.md describes before every proxy's certificate stops verifying.",
    }),
  ];
}
