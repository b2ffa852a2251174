import { one, plan, renderPlatform } from "../helpers";

/**
 * The Gateway API version the cluster serves against what the mesh needs: GKE serves v1.4.0 at 1.34 and
 * v1.5.0 from 1.35.2-gke.1842000; istiod 1.30 ignores TLSRoute below v1.5.0; Linkerd 2.20 is tested
 * from v1.2.1 to v1.5.1. A mismatch is a warning naming the fix, at render and at `pulumi up`.
 */

const gatewayWarnings = (overrides: Record<string, unknown>) =>
  plan(overrides).warnings.filter((w) => w.includes("Gateway API"));

test("Istio on the STABLE channel (Kubernetes 1.34) gets GKE's v1.4.0: a warning naming the version to ask for", () => {
  expect(gatewayWarnings({ tier: "prod", mesh: { kind: "istio" } })).toEqual([
    "GKE serves Gateway API v1.4.0 at Kubernetes 1.34, the STABLE channel's version, older than the v1.5.0 Istio needs (istio/istio 1.30.3 pkg/config/schema/gatewayapi/minimumversions.go): istiod ignores TLSRoute (its minimum is v1.5.0) and istioctl analyze reports IST0176; the platform's own routes are HTTPRoutes, which work. " +
      'Fix: set platform:cluster.kubernetesVersion to "1.35" (GKE 1.35.2-gke.1842000 or later serves v1.5.0), or a release channel that runs it.',
  ]);
});

test("at 1.35, on the REGULAR channel, or with Linkerd, nothing to say", () => {
  expect(
    gatewayWarnings({ tier: "prod", mesh: { kind: "istio" }, cluster: { kubernetesVersion: "1.35" } }),
  ).toEqual([]);
  expect(gatewayWarnings({ mesh: { kind: "istio" } })).toEqual([]);
  expect(gatewayWarnings({ tier: "prod", mesh: { kind: "linkerd" } })).toEqual([]);
  // The platform's own bundle (GKE's channel off) is the pinned v1.5.1, inside both meshes' ranges.
  expect(
    gatewayWarnings({
      mesh: { kind: "istio" },
      cluster: { gatewayApi: "disabled" },
      ingress: { kind: "traefik" },
      crds: { gatewayApiBundleFile: "standard-install.yaml" },
    }),
  ).toEqual([]);
});

test("a cluster made elsewhere says its version, or nothing is assumed", () => {
  const existing = { mode: "existing", existing: { name: "shared", location: "europe-west1" } };
  expect(gatewayWarnings({ tier: "prod", mesh: { kind: "istio" }, cluster: existing })).toEqual([]);
  expect(
    gatewayWarnings({
      tier: "prod",
      mesh: { kind: "istio" },
      cluster: { ...existing, kubernetesVersion: "1.34" },
    }),
  ).toEqual([
    expect.stringMatching(
      /^GKE serves Gateway API v1.4.0 at Kubernetes 1.34 \(platform:cluster.kubernetesVersion\)/,
    ),
  ]);
});

test("a named version is GKE's minimum control-plane version for a cluster the platform creates", async () => {
  const result = await renderPlatform({ cluster: { kubernetesVersion: "1.35" } });
  expect(one(result, "gcp:container/cluster:Cluster").inputs.minMasterVersion).toBe("1.35");
  const channelOnly = await renderPlatform({});
  expect(one(channelOnly, "gcp:container/cluster:Cluster").inputs.minMasterVersion).toBeUndefined();
});
