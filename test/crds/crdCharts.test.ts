import * as fs from "fs";
import * as path from "path";
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as YAML from "yaml";
import { Prometheus, Traefik, CertManager } from "../../lib/addons";
import {
  HelmTemplater,
  checkClusterInvariants,
  findHelm,
  objectSetOf,
  type ClusterInput,
  type KubeObject,
} from "../../lib/cluster";
import { chartDirOf } from "../../lib/deploy/chartSource";
import { crdCharts, type CrdChartName } from "../../lib/crds";
import { crdChart, crdChartTransform, patchForceAnnotation, standaloneCharts } from "../../lib/deploy";
import { clusterInputOf, renderFiles, type RenderResult, type RenderedResource } from "../../lib/render";
import { checkInvariants, type ResourceView } from "../../lib/safety";
import { viewsOf } from "../../lib/render";
import { charts, supportedKubernetes } from "../../lib/versions";
import { release, render, renderPlatform } from "../helpers";
import { chartsDir as referenceCharts, chartsProblem } from "../upstream/reference";

/**
 * Helm never upgrades CRDs a chart keeps in crds/ (HIP-0011): Traefik's and kube-prometheus-stack's. The
 * platform applies them itself from CRD charts (helm.v4.Chart: each CRD its own resource, server-side applied,
 * retained on delete, forced through Helm's field manager), so a bump of the pin upgrades them.
 */

const CHART = "kubernetes:helm.sh/v4:Chart";
/** The reference's pinned charts (test/upstream/reference.ts, as the cluster tier reads them). */
const chartsDir = referenceCharts ?? "";
const retainedAndForced = {
  crd: { retainOnDelete: true, annotations: { [patchForceAnnotation]: "true" } },
  crdsOnly: true,
};
const crdChartsOf = (r: RenderResult): RenderedResource[] => r.resources.filter((x) => x.type === CHART);
const named = (r: RenderResult, name: string): RenderedResource => {
  const found = crdChartsOf(r).find((x) => x.inputs.name === name);
  if (!found) throw new Error(`no CRD chart ${name}`);
  return found;
};

describe("a platform with Traefik and its own Prometheus", () => {
  let result: RenderResult;
  beforeAll(async () => {
    result = await renderPlatform({
      mesh: { kind: "linkerd" },
      ingress: { kind: "traefik" },
      monitoring: { backend: "prometheus" },
    });
  });

  test("traefik and kube-prometheus-stack install no CRDs; their CRD charts do, retained, force-applied", () => {
    for (const name of ["traefik", "kube-prometheus-stack"]) {
      expect(release(result, name).inputs).toMatchObject({ skipCrds: true });
      // Nothing of theirs needs keeping: Helm never deletes what came from crds/, and they now bring none.
      expect(release(result, name).options.retainOnDelete).toBe(false);
    }
    expect(release(result, "kube-prometheus-stack").inputs.values).toMatchObject({
      crds: { enabled: false },
    });
    // In the order the Platform registers them: Prometheus, then the ingress.
    expect(crdChartsOf(result).map((c) => c.inputs)).toEqual([
      {
        name: "prometheus-operator-crds",
        namespace: "monitoring",
        chart: "kube-prometheus-stack",
        version: charts.kubePrometheusStack.version,
        repositoryOpts: { repo: charts.kubePrometheusStack.repo },
        values: crdCharts["prometheus-operator-crds"].values,
        skipCrds: false,
      },
      {
        name: "traefik-crds",
        namespace: "traefik",
        chart: "traefik",
        version: charts.traefik.version,
        repositoryOpts: { repo: charts.traefik.repo },
        values: crdCharts["traefik-crds"].values,
        skipCrds: false,
      },
    ]);
    for (const c of crdChartsOf(result)) {
      expect(c).toMatchObject({ custom: true, remote: true, children: retainedAndForced });
    }
  });

  test("each release waits for its CRD chart; the CRD charts wait for nothing but the provider", () => {
    expect(release(result, "traefik").dependsOn).toContain(named(result, "traefik-crds").key);
    expect(release(result, "kube-prometheus-stack").dependsOn).toContain(
      named(result, "prometheus-operator-crds").key,
    );
    for (const c of crdChartsOf(result)) expect(c.dependsOn).toEqual([]);
  });

  test("helm-releases.yaml lists each CRD chart; resources.yaml shows what its transforms do", () => {
    const files = renderFiles(result);
    const releases = (YAML.parse(files["helm-releases.yaml"]) as { releases: Record<string, unknown>[] })
      .releases;
    expect(releases.find((r) => r.name === "traefik-crds")).toEqual({
      name: "traefik-crds",
      namespace: "traefik",
      repository: "https://traefik.github.io/charts",
      chart: "traefik",
      version: charts.traefik.version,
      resource: "helm.v4.Chart",
      crds: {
        installedByChart: true,
        retainOnDelete: true,
        note: "CRDs only, server-side applied, upgraded with the pin",
      },
      values: {
        deployment: { enabled: false },
        ingressClass: { enabled: false },
        rbac: { enabled: false },
        service: { enabled: false },
        serviceAccount: { name: "traefik" },
      },
    });
    expect(releases.find((r) => r.name === "traefik")?.crds).toEqual({
      installedByChart: false,
      retainOnDelete: false,
      note: "installs no CRDs: the traefik-crds CRD chart applies the ones in its crds/, which Helm never upgrades",
    });
    const resources = (YAML.parse(files["resources.yaml"]) as { resources: Record<string, unknown>[] })
      .resources;
    expect(resources.find((r) => r.type === CHART && r.name === "platform-prometheus-crds")).toMatchObject({
      parent: "gke-mesh-platform:addons:Prometheus::platform-prometheus",
      remote: true,
      children: retainedAndForced,
      inputs: { chart: "kube-prometheus-stack", version: "88.5.3", values: { crds: { enabled: true } } },
    });
    // A chart is not a Kubernetes object of the program's: manifests.yaml leaves it out.
    expect(files["manifests.yaml"]).not.toContain("helm.sh/v4");
  });

  test("the safety invariants hold, and the certificate inventory is unchanged by the CRD charts", () => {
    expect(checkInvariants(viewsOf(result))).toEqual([]);
  });

  test("the cluster tier templates each CRD chart like a release, with its crds/, judged CRDs only", () => {
    const input = clusterInputOf("t", "dev", result);
    const crdReleases = input.releases.filter((r) => r.crdsOnly);
    expect(crdReleases.map((r) => [r.name, r.chart, r.version, r.skipCrds])).toEqual([
      ["traefik-crds", "traefik", "41.3.0", false],
      ["prometheus-operator-crds", "kube-prometheus-stack", "88.5.3", false],
    ]);
    expect(input.releases.find((r) => r.name === "traefik")?.skipCrds).toBe(true);
  });
});

describe("building blocks used alone, without a plan", () => {
  const provider = () => new k8s.Provider("mine", { kubeconfig: "{}" });

  test("Traefik and Prometheus each apply their CRDs from their CRD chart, and their releases none", async () => {
    let traefik: Traefik | undefined;
    let prometheus: Prometheus | undefined;
    const r = await render(() => {
      const p = provider();
      traefik = new Traefik("traefik", { certManager: new CertManager("cm", { provider: p }), provider: p });
      prometheus = new Prometheus("prom", { provider: p });
    });
    expect(traefik?.crds).toBeDefined();
    expect(prometheus?.crds).toBeDefined();
    expect(crdChartsOf(r).map((c) => [c.name, c.inputs.name, c.children])).toEqual([
      ["traefik-crds", "traefik-crds", retainedAndForced],
      ["prom-crds", "prometheus-operator-crds", retainedAndForced],
    ]);
    expect(release(r, "traefik").inputs.skipCrds).toBe(true);
    expect(release(r, "kube-prometheus-stack").inputs.skipCrds).toBe(true);
    expect(checkInvariants(viewsOf(r))).toEqual([]);
  });

  test("a CRD chart its family's owner does not name is refused before anything is registered", async () => {
    await expect(
      render(() => {
        const p = provider();
        const parent = new pulumi.ComponentResource("test:index:Parent", "parent");
        crdChart({
          crdChart: "traefik-crds",
          name: "traefik-crds",
          namespace: "traefik",
          // The Traefik family is someone else's here: a pre-installed copy.
          charts: {
            owners: { traefik: { kind: "pre-installed", reason: "installed by hand" } },
            overrides: {},
          },
          provider: p,
          parent,
        });
      }),
    ).rejects.toThrow(
      /Traefik CRDs .* two owners: a pre-installed copy \(installed by hand\) and the traefik-crds CRD chart/,
    );
  });

  test("a context built by hand naming the chart itself gets the CRD chart too", async () => {
    const r = await render(() => {
      new Prometheus("prom", {
        provider: provider(),
        charts: {
          owners: { prometheusOperator: { kind: "chart", chart: "kubePrometheusStack", reason: "mine" } },
          overrides: {},
        },
      });
    });
    expect(crdChartsOf(r).map((c) => c.inputs.name)).toEqual(["prometheus-operator-crds"]);
    expect(release(r, "kube-prometheus-stack").inputs.values).toMatchObject({ crds: { enabled: false } });
  });

  test("no CRD chart where the family is not the component's", async () => {
    const r = await render(() => {
      new Prometheus("prom", {
        provider: provider(),
        charts: {
          ...standaloneCharts({}),
          owners: { prometheusOperator: { kind: "pre-installed", reason: "an existing operator" } },
        },
      });
    });
    expect(crdChartsOf(r)).toEqual([]);
    expect(release(r, "kube-prometheus-stack").inputs.skipCrds).toBe(true);
  });
});

describe("the CRD chart transform", () => {
  const crd = (annotations?: Record<string, string>): pulumi.ResourceTransformArgs => ({
    custom: true,
    type: "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition",
    name: "traefik-crds:ingressroutes.traefik.io",
    props: {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: { name: "ingressroutes.traefik.io", ...(annotations ? { annotations } : {}) },
      spec: { group: "traefik.io" },
    },
    opts: { protect: false },
  });

  test("retains each CRD and forces its apply, keeping its own annotations and options", () => {
    const out = crdChartTransform(crd({ "controller-gen.kubebuilder.io/version": "v0.16.1" }));
    expect(out?.opts).toEqual({ protect: false, retainOnDelete: true });
    expect(out?.props).toEqual({
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "CustomResourceDefinition",
      metadata: {
        name: "ingressroutes.traefik.io",
        annotations: { "controller-gen.kubebuilder.io/version": "v0.16.1", "pulumi.com/patchForce": "true" },
      },
      spec: { group: "traefik.io" },
    });
  });

  test("leaves the chart component itself alone, and refuses any child that is not a CRD", () => {
    expect(
      crdChartTransform({ custom: false, type: CHART, name: "traefik-crds", props: {}, opts: {} }),
    ).toBeUndefined();
    expect(() =>
      crdChartTransform({
        custom: true,
        type: "kubernetes:core/v1:Service",
        name: "traefik-crds:traefik/traefik",
        props: { kind: "Service" },
        opts: {},
      }),
    ).toThrow(/a CRD chart must render nothing but CustomResourceDefinitions/);
  });

  test("metadata not known yet is annotated once it is", async () => {
    const args = crd();
    const out = crdChartTransform({
      ...args,
      props: { ...args.props, metadata: pulumi.output({ name: "x" }) },
    });
    const metadata = await new Promise((resolve) =>
      (out?.props.metadata as pulumi.Output<unknown>).apply(resolve),
    );
    expect(metadata).toEqual({ name: "x", annotations: { "pulumi.com/patchForce": "true" } });
  });
});

describe("the invariants over CRD charts", () => {
  const chartView = (children?: ResourceView["children"]): ResourceView => ({
    type: CHART,
    name: "traefik-crds",
    inputs: { chart: "traefik", version: "41.3.0", values: {}, skipCrds: false },
    protect: false,
    ...(children ? { children } : {}),
  });
  const crdView = (name: string): ResourceView => ({
    type: "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition",
    name,
    inputs: {
      kind: "CustomResourceDefinition",
      metadata: { name: "ingressroutes.traefik.io" },
      spec: { group: "traefik.io" },
    },
    protect: false,
  });

  test("crd-releases-retained: a CRD chart whose transforms do not retain its CRDs", () => {
    const loose = { crd: { retainOnDelete: false, annotations: {} }, crdsOnly: false };
    expect(checkInvariants([chartView(loose)])).toEqual([
      expect.objectContaining({
        invariant: "crd-releases-retained",
        resource: `${CHART}::traefik-crds`,
        message: expect.stringContaining("its transforms do not retain them on delete") as string,
      }),
    ]);
    expect(checkInvariants([chartView(retainedAndForced)])).toEqual([]);
    // A policy pack sees no transforms, only the children: nothing to judge on the chart.
    expect(checkInvariants([chartView()])).toEqual([]);
  });

  test("single-crd-owner: a CRD chart and a second owner of its family; never the chart's own children", () => {
    // The chart's children, as a policy pack sees them (named `<chart>:<object>` by the provider): one owner.
    expect(
      checkInvariants([chartView(retainedAndForced), crdView("traefik-crds:ingressroutes.traefik.io")]),
    ).toEqual([]);
    // A CRD of the family applied by hand beside it: two owners.
    expect(checkInvariants([chartView(retainedAndForced), crdView("my-ingressroutes")])).toEqual([
      expect.objectContaining({ invariant: "single-crd-owner" }),
    ]);
    // And a Traefik release that would still take its crds/.
    const releaseView: ResourceView = {
      type: "kubernetes:helm.sh/v3:Release",
      name: "traefik",
      inputs: { chart: "traefik", values: {}, skipCrds: false },
      protect: false,
      retainOnDelete: true,
    };
    expect(checkInvariants([chartView(retainedAndForced), releaseView]).map((v) => v.invariant)).toEqual([
      "single-crd-owner",
    ]);
  });
});

describe("the cluster tier judges a CRD chart by what it renders", () => {
  const crdObject = (name: string): KubeObject => ({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name },
    spec: {
      group: "traefik.io",
      names: { kind: "IngressRoute" },
      versions: [{ name: "v1alpha1", served: true }],
    },
  });
  const input = (crdsOnly: boolean): ClusterInput => ({
    label: "t",
    tier: "dev",
    objects: [],
    gke: { gatewayApi: true, managedPrometheus: false },
    releases: [
      {
        name: "traefik-crds",
        namespace: "traefik",
        chart: "traefik",
        version: "41.3.0",
        repo: "https://traefik.github.io/charts",
        values: {},
        skipCrds: false,
        crdsOnly,
      },
    ],
  });
  const templating = (objects: KubeObject[]) =>
    ({ template: () => Promise.resolve({ objects }) }) as unknown as HelmTemplater;
  const chartMissing = !referenceCharts
    ? (chartsProblem ?? "no reference folder")
    : fs.existsSync(path.join(chartsDir, "traefik-41.3.0"))
      ? undefined
      : `no traefik 41.3.0 in ${chartsDir}`;
  (chartMissing ? test.skip : test)(
    `anything but CRDs is a finding that names it (the deploy's transform would refuse it)${chartMissing ? ` (skipped: ${chartMissing})` : ""}`,
    async () => {
      const stray: KubeObject = {
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name: "traefik-crds" },
      };
      const set = await objectSetOf(input(true), {
        templater: templating([crdObject("ingressroutes.traefik.io"), stray]),
        chartsDir,
        kubeVersion: supportedKubernetes.highest,
      });
      expect(checkClusterInvariants(set)).toEqual([
        expect.objectContaining({
          invariant: "releases-template",
          object: "release traefik/traefik-crds",
          message: expect.stringContaining(
            "a CRD chart must render nothing but CRDs, and these values render ServiceAccount traefik-crds",
          ) as string,
        }),
      ]);
      // CRDs only: nothing to say; and a Helm release may render what it likes.
      const clean = await objectSetOf(input(true), {
        templater: templating([crdObject("ingressroutes.traefik.io")]),
        chartsDir,
        kubeVersion: supportedKubernetes.highest,
      });
      expect(checkClusterInvariants(clean)).toEqual([]);
    },
  );
});

/**
 * With a real helm and the reference charts: each CRD chart renders nothing but CRDs at every supported
 * Kubernetes version, and renders exactly the CRDs the chart it stands in for keeps in crds/: a bump of the
 * pin is a bump of the CRDs the cluster gets.
 */
const helm = findHelm();
const missing = [
  ...(helm ? [] : ["no helm binary (set HELM)"]),
  ...(referenceCharts ? [] : [chartsProblem ?? "no reference folder"]),
  ...(["traefik", "kubePrometheusStack"] as const)
    .filter((c) => !chartDirOf(chartsDir, charts[c].chart, charts[c].version))
    .map((c) => `no ${charts[c].chart} ${charts[c].version} in ${chartsDir}`),
];
(missing.length === 0 ? describe : describe.skip)(
  `the CRD charts against the pinned charts (${missing.length === 0 ? "helm and charts found" : `skipped: ${missing.join("; ")}`})`,
  () => {
    const templater = helm ? new HelmTemplater(helm, 2) : undefined;
    const template = async (
      chart: (typeof charts)[keyof typeof charts],
      release: string,
      namespace: string,
      values: Readonly<Record<string, unknown>>,
      skipCrds: boolean,
      kubeVersion: string,
      apiVersions: readonly string[] = [],
    ): Promise<KubeObject[]> => {
      const out = await templater?.template({
        release,
        namespace,
        chartDir: chartDirOf(chartsDir, chart.chart, chart.version) ?? "",
        values,
        skipCrds,
        kubeVersion,
        apiVersions,
      });
      if (!out || "error" in out)
        throw new Error(`helm template ${chart.chart}: ${out ? out.error : "no helm"}`);
      return out.objects;
    };
    const byName = (objects: readonly KubeObject[]) =>
      new Map(objects.filter((o) => o.kind === "CustomResourceDefinition").map((o) => [o.metadata.name, o]));
    // Every API a cluster might serve that a template asks about: the monitoring and autoscaling ones on.
    const everyApi = [
      "monitoring.coreos.com/v1",
      "policy/v1/PodDisruptionBudget",
      "autoscaling/v2",
      "gateway.networking.k8s.io/v1",
    ];

    test.each(Object.keys(crdCharts) as CrdChartName[])(
      "%s renders nothing but CRDs at every supported Kubernetes version, even with every optional API served",
      async (name) => {
        const spec = crdCharts[name];
        for (const kubeVersion of [supportedKubernetes.lowest, supportedKubernetes.highest]) {
          for (const apis of [[], everyApi]) {
            const objects = await template(
              charts[spec.chart],
              spec.release,
              "crds",
              spec.values,
              false,
              kubeVersion,
              apis,
            );
            expect(
              objects
                .filter((o) => o.kind !== "CustomResourceDefinition")
                .map((o) => `${o.kind} ${o.metadata.name}`),
            ).toEqual([]);
            expect(objects.length).toBeGreaterThan(0);
          }
        }
      },
    );

    test("traefik-crds applies exactly the CRDs traefik keeps in crds/, Traefik Hub's included", async () => {
      const spec = crdCharts["traefik-crds"];
      const applied = byName(
        await template(
          charts.traefik,
          spec.release,
          "traefik",
          spec.values,
          false,
          supportedKubernetes.highest,
        ),
      );
      const kept = new Map(
        fs
          .readdirSync(path.join(chartDirOf(chartsDir, "traefik", charts.traefik.version) ?? "", "crds"))
          .filter((f) => /\.ya?ml$/.test(f) && f !== "kustomization.yaml")
          .flatMap((f) =>
            YAML.parseAllDocuments(
              fs.readFileSync(
                path.join(chartDirOf(chartsDir, "traefik", charts.traefik.version) ?? "", "crds", f),
                "utf8",
              ),
            ).map((d) => d.toJS() as KubeObject),
          )
          .filter((o) => o?.kind === "CustomResourceDefinition")
          .map((o) => [o.metadata.name, o]),
      );
      expect([...applied.keys()].sort()).toEqual([...kept.keys()].sort());
      expect(applied.size).toBe(25);
      for (const [n, o] of applied) expect(o).toEqual(kept.get(n));
      // The release itself now renders none of them.
      const release = await template(
        charts.traefik,
        "traefik",
        "traefik",
        {},
        true,
        supportedKubernetes.highest,
      );
      expect(byName(release).size).toBe(0);
    });

    test("prometheus-operator-crds applies the very CRDs kube-prometheus-stack kept in crds/, and it none", async () => {
      const spec = crdCharts["prometheus-operator-crds"];
      const kubeVersion = supportedKubernetes.highest;
      // What kube-prometheus-stack 88.5.3 installed before (its crds subchart's crds/, Helm's --include-crds).
      const before = byName(
        await template(
          charts.kubePrometheusStack,
          "kube-prometheus-stack",
          "monitoring",
          {},
          false,
          kubeVersion,
        ),
      );
      const now = byName(
        await template(
          charts.kubePrometheusStack,
          spec.release,
          "monitoring",
          spec.values,
          false,
          kubeVersion,
        ),
      );
      expect([...now.keys()].sort()).toEqual([...before.keys()].sort());
      expect(now.size).toBe(10);
      // Spec and metadata alike: its operator's version (v0.93.1), no label or annotation of the chart's.
      for (const [n, crd] of now) {
        expect(crd).toEqual(before.get(n));
        expect(crd.metadata.annotations).toEqual({
          "controller-gen.kubebuilder.io/version": expect.any(String) as string,
          "operator.prometheus.io/version": charts.kubePrometheusStack.appVersion.replace(/^v/, ""),
        });
      }
      // With its crds subchart off and crds/ skipped, the release renders no CRD.
      const release = await template(
        charts.kubePrometheusStack,
        "kube-prometheus-stack",
        "monitoring",
        { crds: { enabled: false } },
        true,
        kubeVersion,
      );
      expect(byName(release).size).toBe(0);
    });
  },
);
