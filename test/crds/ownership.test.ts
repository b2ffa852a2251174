import { ConfigError } from "../../lib/config";
import {
  checkCrdClaims,
  crdCharts,
  crdChartsOf,
  crdClaimProblems,
  crdClaims,
  crdValues,
  describeOwner,
  releaseSkipsCrds,
} from "../../lib/crds";
import { standaloneCharts } from "../../lib/deploy";
import { plan } from "../helpers";

const ownersOf = (env: Record<string, unknown>) => plan(env).crdOwners;

describe("one owner per CRD family", () => {
  test("GKE owns the Gateway API by default; charts own their own families", () => {
    const owners = ownersOf({ mesh: { kind: "linkerd" }, monitoring: { backend: "prometheus" } });
    expect(owners.gatewayApi).toMatchObject({ kind: "gke" });
    expect(owners.linkerd).toMatchObject({ kind: "chart", chart: "linkerdCrds" });
    expect(owners.certManager).toMatchObject({ kind: "chart", chart: "certManager" });
    expect(owners.trustManager).toMatchObject({ kind: "chart", chart: "trustManager" });
    expect(owners.prometheusOperator).toMatchObject({
      kind: "crd-chart",
      crdChart: "prometheus-operator-crds",
    });
    expect(owners.gke).toMatchObject({ kind: "gke" });
  });

  test("families a chart keeps in crds/ are owned by their CRD charts, which Helm's releases never are", () => {
    const owners = ownersOf({ ingress: { kind: "traefik" }, monitoring: { backend: "prometheus" } });
    expect(owners.traefik).toEqual({
      kind: "crd-chart",
      crdChart: "traefik-crds",
      reason: "platform:ingress.kind is traefik",
    });
    expect(describeOwner(owners.traefik ?? { kind: "gke", reason: "" })).toBe(
      "the traefik-crds CRD chart (platform:ingress.kind is traefik)",
    );
    expect(crdChartsOf(owners)).toEqual(["traefik-crds", "prometheus-operator-crds"]);
    // Without Traefik or the platform's Prometheus, no CRD chart.
    expect(crdChartsOf(ownersOf({ monitoring: { backend: "existing-prometheus" } }))).toEqual([]);
  });

  test("a component on its own names either the chart or its CRD chart: both mean the CRD chart", () => {
    for (const named of ["traefik", "traefik-crds"] as const) {
      expect(standaloneCharts({ traefik: named }).owners.traefik).toMatchObject({
        kind: "crd-chart",
        crdChart: "traefik-crds",
      });
    }
    expect(
      standaloneCharts({ prometheusOperator: "kubePrometheusStack" }).owners.prometheusOperator,
    ).toMatchObject({ kind: "crd-chart", crdChart: "prometheus-operator-crds" });
    // A family kept in templates stays its chart's.
    expect(standaloneCharts({ certManager: "certManager" }).owners.certManager).toMatchObject({
      kind: "chart",
      chart: "certManager",
    });
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
      /Prometheus Operator CRDs .* two owners: the prometheus-operator-crds CRD chart \(platform:monitoring.backend is prometheus\) and a pre-installed copy/,
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
    // kube-prometheus-stack's crds subchart is off: its CRD chart owns the family.
    expect(crdValues("kubePrometheusStack", owners)).toEqual({ crds: { enabled: false } });
  });

  test("a release never takes CRDs from crds/, which Helm would not upgrade; templated ones follow the values", () => {
    expect(releaseSkipsCrds("traefik", {})).toBe(true);
    expect(releaseSkipsCrds("kubePrometheusStack", { crds: { enabled: true } })).toBe(true);
    expect(crdClaims("traefik", {}, true)).toEqual([]);
    expect(crdClaims("kubePrometheusStack", { crds: { enabled: true } }, true)).toEqual([]);
    // Applied by their CRD charts, crds/ included.
    expect(crdClaims("traefik", {}, false)).toEqual(["traefik"]);
    // The prometheus-operator-crds CRD chart is kube-prometheus-stack with crds/ in: its crds subchart's switch decides.
    expect(crdClaims("kubePrometheusStack", crdCharts["prometheus-operator-crds"].values)).toEqual([
      "prometheusOperator",
    ]);
    expect(crdClaims("kubePrometheusStack", { crds: { enabled: false } })).toEqual([]);
    // Charts with templated CRDs are unchanged: they keep the crds/ switch only where they own none.
    expect(releaseSkipsCrds("certManager", { crds: { enabled: true } })).toBe(false);
    expect(releaseSkipsCrds("linkerdControlPlane", {})).toBe(true);
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

  test("a CRD chart applies only a family it owns; a release never claims it, whatever its values", () => {
    const owners = ownersOf({ ingress: { kind: "traefik" }, monitoring: { backend: "prometheus" } });
    expect(
      crdClaimProblems(owners, [
        { release: "traefik-crds", chart: "traefik", values: {}, crdChart: "traefik-crds" },
        {
          release: "prometheus-operator-crds",
          chart: "kubePrometheusStack",
          values: crdCharts["prometheus-operator-crds"].values,
          crdChart: "prometheus-operator-crds",
        },
        // The releases skip crds/: even an override turning kube-prometheus-stack's crds subchart on claims nothing.
        { release: "traefik", chart: "traefik", values: {} },
        {
          release: "kube-prometheus-stack",
          chart: "kubePrometheusStack",
          values: { crds: { enabled: true } },
        },
      ]),
    ).toEqual([]);
    // A CRD chart whose family another owner has is two owners: refused, naming both.
    const preinstalled = ownersOf({ monitoring: { backend: "existing-prometheus" } });
    expect(() =>
      checkCrdClaims(preinstalled, [
        {
          release: "prometheus-operator-crds",
          chart: "kubePrometheusStack",
          values: crdCharts["prometheus-operator-crds"].values,
          crdChart: "prometheus-operator-crds",
        },
      ]),
    ).toThrow(
      /Prometheus Operator CRDs .* two owners: a pre-installed copy \(an existing Prometheus Operator\) and the prometheus-operator-crds CRD chart \(its values would apply them\)/,
    );
    // So is a release told to install crds/ itself while its CRD chart owns them.
    expect(() =>
      checkCrdClaims(owners, [{ release: "traefik", chart: "traefik", values: {}, skipCrds: false }]),
    ).toThrow(
      /Traefik CRDs \(traefik.io, hub.traefik.io\) would have two owners: the traefik-crds CRD chart .* and Helm release traefik/,
    );
  });

  test("kube-prometheus-stack installing CRDs the environment does not need is refused", () => {
    const managed = ownersOf({ monitoring: { backend: "managed-prometheus" } });
    // Were it to take its crds/ (the platform's releases never do).
    expect(() =>
      checkCrdClaims(managed, [
        { release: "kube-prometheus-stack", chart: "kubePrometheusStack", values: {}, skipCrds: false },
      ]),
    ).toThrow(/Prometheus Operator CRDs .* nobody .* and Helm release kube-prometheus-stack/);
  });
});
