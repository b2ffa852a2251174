import { HelmTemplater, checkClusterInvariants, findHelm, joinObjectSet } from "../../lib/cluster";
import type { KubeObject, TemplatedRelease } from "../../lib/cluster";
import { crdClaims } from "../../lib/crds";
import { chartDirOf } from "../../lib/deploy/chartSource";
import { charts, supportedKubernetes, type ChartName } from "../../lib/versions";
import { chartsDir, helmChartsProblem } from "../upstream/reference";

/**
 * The CRD ownership model (`crdClaims`) held to the real charts: for every chart it judges, every CRD
 * switch on and off, each templated by the real helm at the pinned version, the families the chart
 * renders are exactly those the model claims. The cluster tier holds it to the platform's own values on
 * every render (`crd-claims-hold`); this holds it to the values a user's override could set.
 */

type Json = Record<string, unknown>;

const crd = (group: string): KubeObject => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `things.${group}` },
  spec: { group },
});

const release = (
  chart: ChartName,
  objects: KubeObject[],
  values: Json = {},
  skipCrds = false,
): TemplatedRelease => ({
  name: charts[chart].chart,
  namespace: "ns",
  chart: charts[chart].chart,
  version: charts[chart].version,
  values,
  objects,
  skipCrds,
});

const claimFindings = (releases: TemplatedRelease[]) =>
  checkClusterInvariants(joinObjectSet({ label: "test", tier: "dev", objects: [] }, releases, "1.36.0", []))
    .filter((f) => f.invariant === "crd-claims-hold")
    .map((f) => f.message.split(": correct")[0]);

describe("crd-claims-hold", () => {
  test("a release that renders the families its values claim has no finding", () => {
    expect(claimFindings([release("linkerdCrds", [crd("linkerd.io"), crd("policy.linkerd.io")])])).toEqual(
      [],
    );
    // kube-prometheus-stack skipping crds/ claims none and renders none.
    expect(claimFindings([release("kubePrometheusStack", [], {}, true)])).toEqual([]);
  });

  test("a family rendered but not claimed, claimed but not rendered, or of no known family is a finding", () => {
    // The Gateway API's CRDs from linkerd-crds whose values the model reads as installing none.
    expect(
      claimFindings([release("linkerdCrds", [crd("linkerd.io"), crd("gateway.networking.k8s.io")])]),
    ).toEqual(["renders the Gateway API CRDs, and crdClaims says its values install none"]);
    // istio-base with its CRD templates on (the chart's default) renders none.
    expect(claimFindings([release("istioBase", [])])).toEqual([
      "crdClaims says its values install the Istio CRDs, and the chart renders none",
    ]);
    expect(claimFindings([release("linkerdCrds", [crd("linkerd.io"), crd("example.com")])])).toEqual([
      "renders CRDs of API group example.com, which no CRD family of lib/crds names",
    ]);
  });
});

/** Every CRD switch of every chart `crdClaims` judges, on and off, with crds/ skipped or not. */
const cases: readonly { chart: ChartName; values: Json; skipCrds?: boolean }[] = [
  { chart: "linkerdCrds", values: {} },
  { chart: "linkerdCrds", values: { installGatewayAPI: true } },
  { chart: "linkerdCrds", values: { enableHttpRoutes: true } },
  {
    chart: "linkerdCrds",
    values: {
      installGatewayAPI: true,
      enableHttpRoutes: false,
      enableTlsRoutes: false,
      enableTcpRoutes: false,
    },
  },
  {
    chart: "linkerdCrds",
    values: {
      installGatewayAPI: false,
      enableHttpRoutes: false,
      enableTlsRoutes: false,
      enableTcpRoutes: false,
    },
  },
  { chart: "certManager", values: {} },
  { chart: "certManager", values: { crds: { enabled: true } } },
  { chart: "certManager", values: { crds: { enabled: true, keep: true } } },
  { chart: "certManager", values: { installCRDs: true } },
  { chart: "trustManager", values: {} },
  { chart: "trustManager", values: { crds: { enabled: false } } },
  { chart: "istioBase", values: {} },
  // Off, the chart writes the same CRDs verbatim (templates/crds.yaml at 1.30.3): still Istio's CRDs.
  { chart: "istioBase", values: { base: { enableCRDTemplates: false } } },
  { chart: "istioBase", values: { global: { resourceScope: "cluster" } } },
  { chart: "istioBase", values: { global: { resourceScope: "namespace" } } },
  { chart: "kubePrometheusStack", values: {}, skipCrds: true },
  { chart: "kubePrometheusStack", values: {}, skipCrds: false },
  { chart: "kubePrometheusStack", values: { crds: { enabled: false } }, skipCrds: false },
  { chart: "traefik", values: {}, skipCrds: true },
  { chart: "traefik", values: {}, skipCrds: false },
];

const helm = findHelm();
const missing = helmChartsProblem(helm);

(missing ? describe.skip : describe)(
  `crdClaims against the pinned charts, templated by the real helm${missing ? ` (skipped: ${missing})` : ""}`,
  () => {
    const templater = new HelmTemplater(helm ?? "helm", 2);
    test.each(cases.map((c) => [c.chart, JSON.stringify(c.values), c.skipCrds ?? false, c] as const))(
      "%s with %s, crds/ skipped: %s",
      async (_chart, _values, _skip, c) => {
        const dir = chartDirOf(chartsDir ?? "", charts[c.chart].chart, charts[c.chart].version);
        if (!dir) throw new Error(`no ${charts[c.chart].chart} ${charts[c.chart].version} in ${chartsDir}`);
        const out = await templater.template({
          release: charts[c.chart].chart,
          namespace: "ns",
          chartDir: dir,
          values: c.values,
          skipCrds: c.skipCrds ?? false,
          kubeVersion: supportedKubernetes.highest,
          apiVersions: [],
        });
        if ("error" in out) throw new Error(out.error);
        expect(claimFindings([release(c.chart, out.objects, c.values, c.skipCrds ?? false)])).toEqual([]);
        // Not vacuous: every case where the model claims a family templates at least one CRD.
        const crds = out.objects.filter((o) => o.kind === "CustomResourceDefinition").length;
        expect(crds > 0).toBe(crdClaims(c.chart, c.values, c.skipCrds ?? false).length > 0);
      },
      60_000,
    );
  },
);
