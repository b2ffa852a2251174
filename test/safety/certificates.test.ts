import { Platform } from "../../lib/platform";
import { durationText, summary, type RenderResult } from "../../lib/render";
import { certificateInventory, type CertificateEntry } from "../../lib/safety";
import { viewsOf } from "../../lib/render";
import { planFor } from "../../lib/plan";
import { config, render } from "../helpers";

/**
 * The certificate inventory of whole renders: what each entry says about lifetime, renewal, issuer
 * chain and renewer, for the platform's own certificates and those the pinned charts make.
 */

const shop = { name: "shop", image: "hello:2", port: 8080, expose: { host: "shop.example.com" } };

async function renderOf(overrides: Record<string, unknown>): Promise<RenderResult> {
  const c = config(overrides);
  return render(() => new Platform("p", { plan: planFor(c) }).outputs());
}

const entry = (entries: CertificateEntry[], certificate: string): CertificateEntry => {
  const found = entries.filter((e) => e.certificate === certificate);
  if (found.length !== 1) throw new Error(`expected one ${certificate}, found ${found.length}`);
  return found[0];
};

describe("Linkerd with its dashboard and Prometheus, prod", () => {
  let result: RenderResult;
  let entries: CertificateEntry[];
  beforeAll(async () => {
    result = await renderOf({
      tier: "prod",
      mesh: { kind: "linkerd", dashboard: true },
      monitoring: { backend: "prometheus" },
      apps: [shop],
    });
    entries = certificateInventory(viewsOf(result));
  });

  test("the identity issuer: its lifetime, renewal and chain up to the self-signed anchor", () => {
    expect(entry(entries, "Secret linkerd/linkerd-identity-issuer")).toEqual({
      certificate: "Secret linkerd/linkerd-identity-issuer",
      purpose:
        "Linkerd's identity issuer, which signs every proxy's certificate (release linkerd-control-plane mounts it)",
      source: "Certificate linkerd/linkerd-identity-issuer",
      lifetime: "48h0m0s",
      renewBefore: "25h0m0s",
      issuer: [
        "ClusterIssuer linkerd-identity-issuer (CA Secret cert-manager/linkerd-trust-anchor)",
        "ClusterIssuer linkerd-trust-root-issuer (self-signed)",
      ],
      renewer: "cert-manager",
      resource: expect.stringContaining("linkerd-identity-issuer") as string,
    });
    expect(entry(entries, "Secret cert-manager/linkerd-trust-anchor").purpose).toBe(
      "trust anchor distributed by Bundle linkerd-identity-trust-roots; CA of ClusterIssuer linkerd-identity-issuer",
    );
  });

  test("every webhook certificate comes from cert-manager, none from a chart template", () => {
    const webhooks = entries.filter((e) => /-k8s-tls$/.test(e.certificate));
    expect(webhooks.map((e) => [e.certificate, e.source, e.renewer])).toEqual([
      ["Secret linkerd-viz/tap-injector-k8s-tls", "Certificate linkerd-viz/tap-injector", "cert-manager"],
      ["Secret linkerd-viz/tap-k8s-tls", "Certificate linkerd-viz/tap", "cert-manager"],
      [
        "Secret linkerd/linkerd-policy-validator-k8s-tls",
        "Certificate linkerd/linkerd-policy-validator",
        "cert-manager",
      ],
      [
        "Secret linkerd/linkerd-proxy-injector-k8s-tls",
        "Certificate linkerd/linkerd-proxy-injector",
        "cert-manager",
      ],
      [
        "Secret linkerd/linkerd-sp-validator-k8s-tls",
        "Certificate linkerd/linkerd-sp-validator",
        "cert-manager",
      ],
    ]);
    expect(entry(entries, "Secret linkerd/linkerd-proxy-injector-k8s-tls").issuer).toEqual([
      "Issuer linkerd/linkerd-webhook-issuer (CA Secret linkerd/linkerd-webhook-ca)",
      "Issuer linkerd/linkerd-webhook-selfsigned (self-signed)",
    ]);
  });

  test("what the charts make: cert-manager's webhook CA, trust-manager's, the Prometheus Operator's, proxies'", () => {
    expect(entry(entries, "Secret cert-manager/cert-manager-webhook-ca")).toMatchObject({
      lifetime: "8760h0m0s",
      renewer: "cert-manager-webhook, at two thirds of the CA's life",
      source: "release cert-manager (cert-manager v1.21.2)",
    });
    expect(entry(entries, "Secret cert-manager/trust-manager-tls")).toMatchObject({
      lifetime: "2160h0m0s",
      issuer: ["Issuer cert-manager/trust-manager (self-signed)"],
      renewer: "cert-manager",
    });
    // The Prometheus Operator's webhook certificate is cert-manager's, self-signed: no CA key in monitoring.
    expect(entry(entries, "Secret monitoring/kube-prometheus-stack-admission")).toMatchObject({
      lifetime: "8760h0m0s",
      issuer: ["Issuer monitoring/kube-prometheus-stack-admission-selfsigned (self-signed)"],
      renewer: "cert-manager",
    });
    expect(entry(entries, "in memory: every proxy's certificate")).toMatchObject({
      lifetime: "24h0m0s",
      issuer: ["Linkerd's identity controller, from Secret linkerd/linkerd-identity-issuer"],
    });
    expect(entries.every((e) => e.renewer !== undefined)).toBe(true);
  });

  test("the summary prints each certificate's lifetime, renewal, renewer and chain", () => {
    expect(summary(result, "out").split("\n")).toContain(
      "    Secret linkerd/linkerd-identity-issuer: 2 days, renewed 25 hours before expiry; renewer: cert-manager; issuer: ClusterIssuer linkerd-identity-issuer (CA Secret cert-manager/linkerd-trust-anchor) <- ClusterIssuer linkerd-trust-root-issuer (self-signed)",
    );
  });
});

test("Istio: workloads signed by the intermediate, the roots pinned in istio-csr's file", async () => {
  const entries = certificateInventory(viewsOf(await renderOf({ mesh: { kind: "istio" }, apps: [shop] })));
  const chain = [
    "Issuer istio-system/istio-ca (CA Secret istio-system/istio-intermediate-ca)",
    "ClusterIssuer istio-root-ca (CA Secret cert-manager/istio-root-ca)",
    "Issuer cert-manager/istio-root-selfsigned (self-signed)",
  ];
  expect(entry(entries, "in memory: workload certificates (sidecars, gateways, ztunnel)")).toMatchObject({
    lifetime: "1h",
    renewBefore: "half of its lifetime",
    issuer: chain,
  });
  expect(entry(entries, "Secret istio-system/istiod-tls")).toMatchObject({
    lifetime: "1h",
    renewBefore: "30m",
    issuer: chain,
    renewer: "cert-manager (the chart's Certificate istiod)",
  });
  expect(entry(entries, "ConfigMap istio-ca-root-cert, in every namespace").issuer).toEqual([
    "the roots pinned in /var/run/secrets/istio-csr/ca.pem (app.tls.rootCAFile)",
  ]);
  expect(entry(entries, "Secret istio-system/istio-intermediate-ca")).toMatchObject({
    lifetime: "8760h0m0s",
    renewBefore: "720h0m0s",
    purpose: "CA of Issuer istio-system/istio-ca",
  });
});

test("GKE Gateway's Google-managed certificates and pre-shared ones", async () => {
  const managed = certificateInventory(viewsOf(await renderOf({ apps: [shop] })));
  expect(managed.filter((e) => e.renewer === "Google").map((e) => e.purpose)).toEqual([
    "TLS for shop.example.com at the shared Gateway",
  ]);
  const preShared = certificateInventory(
    viewsOf(
      await renderOf({
        ingress: { kind: "gke-gateway", tls: { mode: "pre-shared", certificates: ["shop-2026"] } },
        apps: [shop],
      }),
    ),
  );
  expect(entry(preShared, "Compute SSL certificate shop-2026").renewer).toBe(
    "you: replace it before it expires (pre-shared certificates are outside the platform)",
  );
});

test("Go durations are printed in words", () => {
  expect(
    ["87600h0m0s", "8760h0m0s", "2160h0m0s", "48h0m0s", "25h0m0s", "1h", "30m", "90s", "100 years"].map(
      durationText,
    ),
  ).toEqual([
    "10 years",
    "1 year",
    "90 days",
    "2 days",
    "25 hours",
    "1 hour",
    "30 minutes",
    "90 seconds",
    "100 years",
  ]);
});
