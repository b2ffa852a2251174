import { certificates } from "../../lib/doctor/checks/certificates";
import { webhookCa } from "../../lib/doctor/checks/webhookCa";
import { b64, caA, caB, servingByA } from "./pem";
import { codes, helmRecord, obj, runCheck } from "./fixtures";

/**
 * Certificates on a live cluster: cert-manager's by their status, the trust anchors and issuers of the
 * certificate inventory by the certificate in their Secret, and webhooks' CA bundles against what their
 * Secret serves. Only subjects and expiry are printed; keys are never read.
 */

const now = new Date("2027-01-01T00:00:00Z");

const certificate = (name: string, status: Record<string, unknown>) =>
  obj("cert-manager.io/v1", "Certificate", name, "shop", {
    spec: {
      secretName: `${name}-tls`,
      dnsNames: [`${name}.example.com`],
      issuerRef: { name: "letsencrypt", kind: "ClusterIssuer" },
    },
    status,
  });
const ready = (status: string, reason: string, message: string) => ({
  conditions: [{ type: "Ready", status, reason, message }],
});

test("a Certificate that expired, is not Ready, or is past its renewal time, each with what cert-manager says", async () => {
  const { findings } = await runCheck(
    certificates,
    [
      certificate("expired", {
        notAfter: "2026-12-01T00:00:00Z",
        ...ready(
          "False",
          "Failed",
          "The certificate request has failed to complete and will be retried: ACME order failed",
        ),
      }),
      certificate("pending", ready("False", "DoesNotExist", "Issuing certificate as Secret does not exist")),
      certificate("stale", {
        notAfter: "2027-01-20T00:00:00Z",
        renewalTime: "2026-12-21T00:00:00Z",
        ...ready("True", "Ready", "Certificate is up to date and has not expired"),
      }),
      certificate("fine", {
        notAfter: "2027-03-01T00:00:00Z",
        renewalTime: "2027-01-30T00:00:00Z",
        ...ready("True", "Ready", "Certificate is up to date and has not expired"),
      }),
    ],
    { now },
  );
  expect(findings).toEqual([
    {
      severity: "error",
      code: "certificate-expired",
      objects: ["Certificate shop/expired", "Secret shop/expired-tls"],
      message:
        "Certificate shop/expired expired at 2026-12-01T00:00:00Z (31 days ago); Ready is False (Failed): The certificate request has failed to complete and will be retried: ACME order failed. Whatever serves or trusts Secret shop/expired-tls fails its TLS handshakes now.",
      fix: "kubectl describe certificate expired --namespace shop (and its CertificateRequests, Orders and issuer); once the cause is fixed, cmctl renew expired --namespace shop",
      evidence: "cert-manager v1.21.2 pkg/apis/certmanager/v1/types_certificate.go (status.notAfter)",
    },
    {
      severity: "warning",
      code: "certificate-not-ready",
      objects: ["Certificate shop/pending", "Secret shop/pending-tls"],
      message:
        "Certificate shop/pending is not Ready: Ready is False (DoesNotExist): Issuing certificate as Secret does not exist; it has no certificate yet.",
      fix: "kubectl describe certificate pending --namespace shop (and its CertificateRequests, Orders and issuer); once the cause is fixed, cmctl renew pending --namespace shop",
      evidence: "cert-manager v1.21.2 pkg/apis/certmanager/v1/types_certificate.go (the Ready condition)",
    },
    {
      severity: "warning",
      code: "certificate-renewal-overdue",
      objects: ["Certificate shop/stale", "Secret shop/stale-tls"],
      message:
        "Certificate shop/stale was due for renewal at 2026-12-21T00:00:00Z (11 days ago) and has not been renewed; it expires in 19 days (2027-01-20T00:00:00Z). cert-manager is not renewing it.",
      fix: "check cert-manager's controller is running (kubectl get pods --namespace cert-manager) and its log; kubectl describe certificate stale --namespace shop (and its CertificateRequests, Orders and issuer); once the cause is fixed, cmctl renew stale --namespace shop",
      evidence: "cert-manager v1.21.2 pkg/apis/certmanager/v1/types_certificate.go (status.renewalTime)",
    },
  ]);
});

/** A Linkerd identity set up as the platform sets it: a self-signed root, distributed by a Bundle, signing the issuer. */
const anchor = [
  obj("cert-manager.io/v1", "ClusterIssuer", "linkerd-self-signed", undefined, { spec: { selfSigned: {} } }),
  obj("cert-manager.io/v1", "Certificate", "linkerd-trust-anchor", "cert-manager", {
    spec: {
      isCA: true,
      commonName: "root.linkerd.cluster.local",
      secretName: "linkerd-trust-anchor",
      issuerRef: { name: "linkerd-self-signed", kind: "ClusterIssuer" },
    },
    status: {
      notAfter: "2126-11-02T09:45:56Z",
      ...ready("True", "Ready", "Certificate is up to date and has not expired"),
    },
  }),
  obj("cert-manager.io/v1", "ClusterIssuer", "linkerd-trust-anchor", undefined, {
    spec: { ca: { secretName: "linkerd-trust-anchor" } },
  }),
  obj("trust.cert-manager.io/v1alpha1", "Bundle", "linkerd-identity-trust-roots", undefined, {
    spec: {
      sources: [{ secret: { name: "linkerd-trust-anchor", key: "ca.crt" } }],
      target: { configMap: { key: "ca-bundle.crt" } },
    },
  }),
  obj("v1", "Secret", "linkerd-trust-anchor", "cert-manager", {
    type: "kubernetes.io/tls",
    data: { "tls.crt": b64(caA), "tls.key": b64("not a key") },
  }),
];
const controlPlane = helmRecord({
  name: "linkerd-control-plane",
  namespace: "linkerd",
  chart: "linkerd-control-plane",
  version: "2026.8.3",
  config: { identity: { externalCA: true, issuer: { scheme: "kubernetes.io/tls" } } },
});

test("the trust anchor and the issuer the control plane mounts: subject and expiry noted, and what goes wrong with them", async () => {
  const issuer = obj("v1", "Secret", "linkerd-identity-issuer", "linkerd", {
    type: "kubernetes.io/tls",
    data: { "tls.crt": b64(caB) },
  });
  const { findings, notes } = await runCheck(certificates, [...anchor, controlPlane, issuer], { now });
  expect(findings).toEqual([]);
  expect(notes.map((n) => n.message)).toEqual([
    "Secret cert-manager/linkerd-trust-anchor (trust anchor distributed by Bundle linkerd-identity-trust-roots; CA of ClusterIssuer linkerd-trust-anchor): subject CN=doctor-test-ca-a, expires 2126-11-02T09:45:56Z (in 36464 days); renewed by cert-manager",
    "Secret linkerd/linkerd-identity-issuer (Linkerd's identity issuer, which signs every proxy's certificate (release linkerd-control-plane mounts it)): subject CN=doctor-test-ca-b, expires 2126-11-02T09:45:56Z (in 36464 days); nothing renews it",
  ]);
  // In its last third, nothing renewing it: a warning; past it, an error.
  const late = await runCheck(certificates, [...anchor, controlPlane, issuer], {
    now: new Date("2100-01-01T00:00:00Z"),
  });
  expect(codes(late.findings)).toEqual(["warning ca-expiring"]);
  expect(late.findings[0].message).toBe(
    "Secret linkerd/linkerd-identity-issuer (Linkerd's identity issuer, which signs every proxy's certificate (release linkerd-control-plane mounts it)) expires in 9801 days (2126-11-02T09:45:56Z), within the last third of its life, and no Certificate on the cluster renews it.",
  );
  const gone = await runCheck(certificates, [...anchor, controlPlane, issuer], {
    now: new Date("2200-01-01T00:00:00Z"),
  });
  expect(codes(gone.findings)).toEqual(["error certificate-expired", "error ca-expired", "error ca-expired"]);
  // Missing, with nothing that writes it.
  const missing = await runCheck(certificates, [...anchor, controlPlane], { now });
  expect(missing.findings).toEqual([
    {
      severity: "error",
      code: "ca-secret-missing",
      objects: ["Secret linkerd/linkerd-identity-issuer"],
      message:
        "Secret linkerd/linkerd-identity-issuer (Linkerd's identity issuer, which signs every proxy's certificate (release linkerd-control-plane mounts it)) does not exist, and no Certificate writes it: what mounts or signs from it cannot start or issue.",
      fix: "issue it with a cert-manager Certificate whose secretName is linkerd-identity-issuer in namespace linkerd (the platform's mesh identity does), or restore it",
      evidence: "linkerd/linkerd2 edge-26.8.3 charts/linkerd-control-plane/templates/identity.yaml",
    },
  ]);
  // Without permission to read Secrets, it says what it could not check.
  const blind = await runCheck(certificates, [...anchor, controlPlane, issuer], {
    now,
    forbidden: ["secrets"],
  });
  expect(blind.findings).toEqual([]);
  expect(blind.unchecked).toEqual([
    "the trust anchors and issuers charts make or mount: no permission to list secrets (Helm's release records)",
    "Secret cert-manager/linkerd-trust-anchor (trust anchor distributed by Bundle linkerd-identity-trust-roots; CA of ClusterIssuer linkerd-trust-anchor): no permission to get secrets",
  ]);
});

const validating = (caBundle: string | undefined, annotations: Record<string, string>) =>
  obj(
    "admissionregistration.k8s.io/v1",
    "ValidatingWebhookConfiguration",
    "shop-validator",
    undefined,
    {
      webhooks: [
        {
          name: "validate.shop.example.com",
          clientConfig: {
            service: { name: "webhook", namespace: "shop" },
            ...(caBundle ? { caBundle: b64(caBundle) } : {}),
          },
          failurePolicy: "Fail",
        },
      ],
    },
    { annotations },
  );
const servingSecret = obj("v1", "Secret", "webhook-tls", "shop", {
  type: "kubernetes.io/tls",
  data: {
    "tls.crt": b64(servingByA),
    "ca.crt": b64(caA),
    "tls.key": b64("-----BEGIN EC PRIVATE KEY-----\nnot printed\n-----END EC PRIVATE KEY-----"),
  },
});
const fromSecret = { "cert-manager.io/inject-ca-from-secret": "shop/webhook-tls" };

test("a webhook whose caBundle did not sign the certificate its Secret serves: every call fails", async () => {
  const { findings } = await runCheck(webhookCa, [validating(caB, fromSecret), servingSecret], { now });
  expect(findings).toEqual([
    {
      severity: "error",
      code: "webhook-ca-mismatch",
      objects: ["ValidatingWebhookConfiguration shop-validator", "Secret shop/webhook-tls"],
      message:
        "ValidatingWebhookConfiguration shop-validator webhook validate.shop.example.com's caBundle (subject CN=doctor-test-ca-b, expires 2126-11-02T09:45:56Z) did not sign the certificate Secret shop/webhook-tls serves " +
        "(subject CN=webhook.shop.svc, expires 2126-11-02T09:45:56Z, issued by CN=doctor-test-ca-a; cert-manager.io/inject-ca-from-secret: shop/webhook-tls): the API server refuses the TLS handshake, so every call fails, and with failurePolicy Fail the API server refuses every request it guards.",
      fix: "cert-manager's cainjector writes the bundle from Secret shop/webhook-tls: check it runs (kubectl get pods --namespace cert-manager -l app.kubernetes.io/component=cainjector) and its log",
      evidence:
        "admissionregistration.k8s.io/v1 WebhookClientConfig.caBundle: the API server verifies the webhook's certificate with it alone",
    },
  ]);
  expect(JSON.stringify(findings)).not.toContain("not printed");
  // The right CA, through a Certificate's Secret: nothing to say.
  const cert = obj("cert-manager.io/v1", "Certificate", "webhook", "shop", {
    spec: { secretName: "webhook-tls" },
  });
  expect(
    (
      await runCheck(
        webhookCa,
        [validating(caA, { "cert-manager.io/inject-ca-from": "shop/webhook" }), cert, servingSecret],
        { now },
      )
    ).findings,
  ).toEqual([]);
  expect(
    codes((await runCheck(webhookCa, [validating(undefined, fromSecret), servingSecret], { now })).findings),
  ).toEqual(["error webhook-ca-missing"]);
  expect(codes((await runCheck(webhookCa, [validating(caA, fromSecret)], { now })).findings)).toEqual([
    "error webhook-secret-missing",
  ]);
  expect(
    codes(
      (
        await runCheck(webhookCa, [validating(caA, fromSecret), servingSecret], {
          now: new Date("2200-01-01"),
        })
      ).findings,
    ),
  ).toEqual(["error webhook-certificate-expired"]);
  expect(
    (await runCheck(webhookCa, [validating(caB, fromSecret), servingSecret], { now, forbidden: ["secrets"] }))
      .unchecked,
  ).toEqual([
    "ValidatingWebhookConfiguration shop-validator webhook validate.shop.example.com (cert-manager.io/inject-ca-from-secret: shop/webhook-tls): no permission to get secrets",
  ]);
});

test("Linkerd's webhooks, whose chart writes the Secret and the bundle, are compared through the Service they call", async () => {
  const injector = (caBundle: string) =>
    obj(
      "admissionregistration.k8s.io/v1",
      "MutatingWebhookConfiguration",
      "linkerd-proxy-injector-webhook-config",
      undefined,
      {
        webhooks: [
          {
            name: "linkerd-proxy-injector.linkerd.io",
            clientConfig: {
              service: { name: "linkerd-proxy-injector", namespace: "linkerd" },
              caBundle: b64(caBundle),
            },
            failurePolicy: "Ignore",
          },
        ],
      },
    );
  const secret = obj("v1", "Secret", "linkerd-proxy-injector-k8s-tls", "linkerd", {
    type: "kubernetes.io/tls",
    data: { "tls.crt": b64(servingByA) },
  });
  expect((await runCheck(webhookCa, [injector(caA), secret], { now })).findings).toEqual([]);
  const { findings } = await runCheck(webhookCa, [injector(caB), secret], { now });
  expect(codes(findings)).toEqual(["error webhook-ca-mismatch"]);
  expect(findings[0].message).toContain(
    "every call fails, and with failurePolicy Ignore the webhook silently does nothing",
  );
  expect(findings[0].fix).toBe(
    "upgrade the release that made Secret linkerd/linkerd-proxy-injector-k8s-tls and the bundle together (the chart writes both at template time), or issue the certificate with cert-manager (externalSecret with injectCaFrom) so cainjector keeps them matched",
  );
});
