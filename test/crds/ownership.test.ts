import { ConfigError } from "../../lib/config";
import { checkCrdClaims, crdClaims, crdValues } from "../../lib/crds";
import { plan } from "../helpers";

const ownersOf = (env: Record<string, unknown>) => plan(env).crdOwners;

describe("one owner per CRD family", () => {
  test("GKE owns the Gateway API by default; charts own their own families", () => {
    const owners = ownersOf({ mesh: { kind: "linkerd" }, monitoring: { backend: "prometheus" } });
    expect(owners.gatewayApi).toMatchObject({ kind: "gke" });
    expect(owners.linkerd).toMatchObject({ kind: "chart", chart: "linkerdCrds" });
    expect(owners.certManager).toMatchObject({ kind: "chart", chart: "certManager" });
    expect(owners.trustManager).toMatchObject({ kind: "chart", chart: "trustManager" });
    expect(owners.prometheusOperator).toMatchObject({ kind: "chart", chart: "kubePrometheusStack" });
    expect(owners.gke).toMatchObject({ kind: "gke" });
  });

  test("with GKE's channel disabled the platform owns the bundle, or a declared pre-installed copy does", () => {
    const bundle = { cluster: { gatewayApi: "disabled" }, ingress: { kind: "traefik" } };
    expect(ownersOf({ ...bundle, crds: { gatewayApiBundleFile: "/x.yaml" } }).gatewayApi).toMatchObject({
      kind: "platform",
    });
    expect(ownersOf({ ...bundle, crds: { gatewayApi: "pre-installed" } }).gatewayApi).toMatchObject({
      kind: "pre-installed",
    });
  });

  test("a second owner for the Gateway API fails, naming both", () => {
    expect(() => ownersOf({ crds: { gatewayApi: "pre-installed" } })).toThrow(ConfigError);
    expect(() => ownersOf({ crds: { gatewayApi: "pre-installed" } })).toThrow(
      "Gateway API CRDs (gateway.networking.k8s.io) would have two owners: GKE (platform:cluster.gatewayApi is standard) and a pre-installed copy (platform:crds.gatewayApi is pre-installed)",
    );
  });

  test("a second owner for the Prometheus Operator CRDs fails, naming both", () => {
    expect(() =>
      ownersOf({ monitoring: { backend: "prometheus" }, crds: { prometheusOperator: "pre-installed" } }),
    ).toThrow(
      /Prometheus Operator CRDs .* two owners: the kube-prometheus-stack chart .* and a pre-installed copy/,
    );
  });
});

describe("chart CRD flags come from ownership", () => {
  const owners = ownersOf({ mesh: { kind: "linkerd" }, monitoring: { backend: "prometheus" } });

  test("linkerd-crds never installs Gateway API CRDs: all four flags false, for every chart version", () => {
    expect(crdValues("linkerdCrds", owners)).toEqual({
      installGatewayAPI: false,
      enableHttpRoutes: false,
      enableTlsRoutes: false,
      enableTcpRoutes: false,
    });
    expect(crdClaims("linkerdCrds", crdValues("linkerdCrds", owners))).toEqual(["linkerd"]);
  });

  test("cert-manager and trust-manager install and keep their CRDs", () => {
    expect(crdValues("certManager", owners)).toEqual({ crds: { enabled: true, keep: true } });
    expect(crdValues("trustManager", owners)).toEqual({ crds: { enabled: true, keep: true } });
    expect(crdValues("kubePrometheusStack", owners)).toEqual({ crds: { enabled: true } });
  });

  test("a chart whose family is pre-installed does not install it", () => {
    const pre = ownersOf({ monitoring: { backend: "existing-prometheus" } });
    expect(crdValues("kubePrometheusStack", pre)).toEqual({ crds: { enabled: false } });
  });
});

describe("final values are checked against ownership", () => {
  const owners = ownersOf({ mesh: { kind: "linkerd" } });

  test.each([
    [{ enableHttpRoutes: true }],
    [{ installGatewayAPI: true }],
    [{ installGatewayAPI: true, enableHttpRoutes: false, enableTlsRoutes: false }],
    [{ enableTcpRoutes: true, installGatewayAPI: false }],
    // Helm's `if` treats any non-empty string as true.
    [{ installGatewayAPI: false, enableHttpRoutes: "false" }],
  ])("linkerd-crds with %j would install Gateway API CRDs while GKE owns them: refused", (values) => {
    expect(() => checkCrdClaims(owners, [{ release: "linkerd-crds", chart: "linkerdCrds", values }])).toThrow(
      /Gateway API CRDs .* two owners: GKE \(platform:cluster.gatewayApi is standard\) and Helm release linkerd-crds/,
    );
  });

  test("the platform's own linkerd-crds values pass", () => {
    expect(() =>
      checkCrdClaims(owners, [
        { release: "linkerd-crds", chart: "linkerdCrds", values: crdValues("linkerdCrds", owners) },
      ]),
    ).not.toThrow();
  });

  test("kube-prometheus-stack installing CRDs the environment does not need is refused", () => {
    const managed = ownersOf({ monitoring: { backend: "managed-prometheus" } });
    expect(() =>
      checkCrdClaims(managed, [
        { release: "kube-prometheus-stack", chart: "kubePrometheusStack", values: {} },
      ]),
    ).toThrow(/Prometheus Operator CRDs .* nobody .* and Helm release kube-prometheus-stack/);
  });
});
