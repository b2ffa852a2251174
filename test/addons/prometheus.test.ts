import { admissionWebhookValues, prometheusValues } from "../../lib/addons";
import {
  HelmTemplater,
  checkClusterInvariants,
  findHelm,
  objectSetOf,
  type KubeObject,
} from "../../lib/cluster";
import { clusterInputOf, type RenderResult, type RenderedResource } from "../../lib/render";
import { supportedKubernetes } from "../../lib/versions";
import { chartsDir, chartsProblem } from "../upstream/reference";
import { certificateInventory, checkInvariants } from "../../lib/safety";
import { viewsOf } from "../../lib/render";
import { config, find, plan, problems, release, renderPlatform, values } from "../helpers";

/**
 * kube-prometheus-stack as the platform runs it: Prometheus' replicas and volume per tier, Alertmanager's
 * replicas, their spread and disruption budgets; the Prometheus Operator's webhook certificate from
 * cert-manager, which the release waits for, on every layout, and in the certificate inventory.
 */

type Obj = Record<string, unknown>;
/** The smallest environment, as `problems` takes it. */
const plainInput = { tier: "dev", gcp: { project: "acme-test", region: "europe-west1" } };
const at = (v: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((cur, p) => (cur as Obj | undefined)?.[p], v);

const prometheusPods = {
  "app.kubernetes.io/name": "prometheus",
  "app.kubernetes.io/instance": "kube-prometheus-stack-prometheus",
};
const alertmanagerPods = {
  "app.kubernetes.io/name": "alertmanager",
  alertmanager: "kube-prometheus-stack-alertmanager",
};
const spread = (labels: Record<string, string>) =>
  ["topology.kubernetes.io/zone", "kubernetes.io/hostname"].map((topologyKey) => ({
    maxSkew: 1,
    topologyKey,
    whenUnsatisfiable: "ScheduleAnyway",
    labelSelector: { matchLabels: labels },
  }));
const sized = (cpu: string, memory: string, limit: string) => ({
  requests: { cpu, memory },
  limits: { memory: limit },
});

describe("Prometheus and Alertmanager per tier", () => {
  test("prod: two Prometheus replicas, each with a 50Gi standard-rwo claim, spread, budgeted and kept per client", () => {
    const v = prometheusValues({ sizing: config({ tier: "prod" }).sizing, certManager: true });
    expect(v.prometheus).toEqual({
      prometheusSpec: {
        replicas: 2,
        resources: sized("500m", "2Gi", "4Gi"),
        retention: "15d",
        // 80% of the 50Gi claim, in Prometheus' powers-of-two GB.
        retentionSize: "40GB",
        storageSpec: {
          volumeClaimTemplate: {
            spec: {
              storageClassName: "standard-rwo",
              accessModes: ["ReadWriteOnce"],
              resources: { requests: { storage: "50Gi" } },
            },
          },
        },
        topologySpreadConstraints: spread(prometheusPods),
      },
      podDisruptionBudget: { enabled: true, minAvailable: 1 },
      service: { sessionAffinity: "ClientIP" },
    });
    expect(v.alertmanager).toEqual({
      alertmanagerSpec: {
        replicas: 2,
        resources: sized("10m", "64Mi", "256Mi"),
        topologySpreadConstraints: spread(alertmanagerPods),
      },
      podDisruptionBudget: { enabled: true, minAvailable: 1 },
    });
  });

  test("staging: one replica, but on a persistent claim, so the volume's life is rehearsed before prod", () => {
    const s = config({ tier: "staging" }).sizing;
    const spec = at(prometheusValues({ sizing: s }), "prometheus", "prometheusSpec") as Obj;
    expect(spec.replicas).toBe(1);
    expect(at(spec, "storageSpec", "volumeClaimTemplate", "spec", "storageClassName")).toBe("standard-rwo");
    expect(at(spec, "storageSpec", "volumeClaimTemplate", "spec", "resources", "requests", "storage")).toBe(
      "50Gi",
    );
    expect(spec.topologySpreadConstraints).toBeUndefined();
    expect(at(prometheusValues({ sizing: s }), "prometheus", "podDisruptionBudget")).toBeUndefined();
  });

  test("dev: one replica on an emptyDir whose limit the TSDB stays within; no budget, no spread", () => {
    const v = prometheusValues({ sizing: config({ tier: "dev" }).sizing });
    expect(v.prometheus).toEqual({
      prometheusSpec: {
        replicas: 1,
        resources: sized("500m", "2Gi", "4Gi"),
        retention: "15d",
        retentionSize: "8GB",
        storageSpec: { emptyDir: { sizeLimit: "10Gi" } },
      },
    });
    expect(v.alertmanager).toEqual({
      alertmanagerSpec: { replicas: 1, resources: sized("10m", "64Mi", "256Mi") },
    });
  });

  test("highAvailability decides replicas in any tier; the tier decides persistence", () => {
    const s = config({ tier: "dev", sizing: { highAvailability: true } }).sizing;
    expect([s.prometheus.replicas, s.alertmanager.replicas, s.prometheus.storage.persistent]).toEqual([
      2,
      2,
      false,
    ]);
    const p = config({ tier: "prod", sizing: { highAvailability: false } }).sizing;
    expect([p.prometheus.replicas, p.alertmanager.replicas, p.prometheus.storage.persistent]).toEqual([
      1,
      1,
      true,
    ]);
  });
});

describe("platform:sizing.prometheus.storage", () => {
  test("a user's volume, class and retention; the size-based retention follows the volume", () => {
    const s = config({
      tier: "prod",
      sizing: { prometheus: { storage: { size: "200Gi", storageClass: "premium-rwo", retention: "30d" } } },
    }).sizing.prometheus;
    expect(s.storage).toEqual({
      persistent: true,
      size: "200Gi",
      storageClass: "premium-rwo",
      retention: "30d",
      retentionSize: "160GB",
    });
  });

  test("naming a StorageClass asks for a claim in dev too; persistent: false is an emptyDir in prod", () => {
    expect(
      config({ sizing: { prometheus: { storage: { storageClass: "premium-rwo" } } } }).sizing.prometheus
        .storage,
    ).toEqual({
      persistent: true,
      size: "50Gi",
      storageClass: "premium-rwo",
      retention: "15d",
      retentionSize: "40GB",
    });
    expect(
      config({ tier: "prod", sizing: { prometheus: { storage: { persistent: false, size: "20Gi" } } } })
        .sizing.prometheus.storage,
    ).toEqual({ persistent: false, size: "20Gi", retention: "15d", retentionSize: "16GB" });
  });

  test("a StorageClass with persistent: false is refused: it would have no effect", () => {
    expect(
      problems({
        ...plainInput,
        sizing: { prometheus: { storage: { persistent: false, storageClass: "premium-rwo" } } },
      }),
    ).toEqual([
      {
        path: "platform:sizing.prometheus.storage.storageClass",
        problem:
          '"premium-rwo" is set, but persistent is false: an emptyDir has no StorageClass, so it would have no effect',
        allowed: "a storageClass only with persistent storage",
        fix: "remove platform:sizing.prometheus.storage.storageClass, or set platform:sizing.prometheus.storage.persistent to true",
      },
    ]);
  });

  test("sizes, StorageClass names and retentions are checked, each naming the field, the value and the fix", () => {
    expect(problems({ ...plainInput, sizing: { prometheus: { storage: { size: "5Gi" } } } })).toEqual([
      {
        path: "platform:sizing.prometheus.storage.size",
        problem: '"5Gi" is below Persistent Disk\'s smallest size',
        allowed: "a size in Gi from 10Gi to 65536Gi, such as 50Gi",
        fix: "set platform:sizing.prometheus.storage.size to 10Gi or more",
      },
    ]);
    expect(problems({ ...plainInput, sizing: { prometheus: { storage: { size: "50GB" } } } })).toEqual([
      {
        path: "platform:sizing.prometheus.storage.size",
        problem: '"50GB" is not a size in Gi',
        allowed: "a size in Gi from 10Gi to 65536Gi, such as 50Gi",
        fix: "set platform:sizing.prometheus.storage.size to a size such as 50Gi",
      },
    ]);
    expect(
      problems({ ...plainInput, sizing: { prometheus: { storage: { storageClass: "Premium_RWO" } } } }),
    ).toEqual([
      {
        path: "platform:sizing.prometheus.storage.storageClass",
        problem: '"Premium_RWO" is not a StorageClass name',
        allowed: "a StorageClass name such as standard-rwo",
        fix: 'set platform:sizing.prometheus.storage.storageClass to "premium-rwo"',
      },
    ]);
    expect(
      problems({ ...plainInput, sizing: { prometheus: { storage: { retention: "2 weeks" } } } }),
    ).toEqual([
      {
        path: "platform:sizing.prometheus.storage.retention",
        problem: '"2 weeks" is not valid',
        allowed: "a retention time such as 15d or 2w or 36h",
        fix: "set platform:sizing.prometheus.storage.retention to a retention time such as 15d or 2w or 36h",
      },
    ]);
    const [typo] = problems({ ...plainInput, sizing: { prometheus: { storage: { sise: "50Gi" } } } });
    expect([typo.path, typo.fix]).toEqual([
      "platform:sizing.prometheus.storage.sise",
      "rename it to platform:sizing.prometheus.storage.size",
    ]);
  });

  test("storage of a Prometheus the environment does not run is refused, never ignored", () => {
    expect(
      problems({
        ...plainInput,
        monitoring: { backend: "managed-prometheus" },
        sizing: { prometheus: { storage: { size: "100Gi" } } },
      }),
    ).toEqual([
      {
        path: "platform:sizing.prometheus",
        problem:
          "is set, but this environment does not run kube-prometheus-stack, so it would have no effect",
        fix: "remove platform:sizing.prometheus",
      },
    ]);
  });
});

test("the webhook's certificate: cert-manager's, with no certgen Jobs, failing open; certgen only without cert-manager", () => {
  expect(admissionWebhookValues(true)).toEqual({
    certManager: {
      enabled: true,
      issuerRef: { name: "kube-prometheus-stack-admission-selfsigned", kind: "Issuer" },
    },
    patch: { enabled: false },
    failurePolicy: "Ignore",
  });
  expect(admissionWebhookValues(false)).toEqual({
    patch: { resources: sized("10m", "50Mi", "128Mi") },
  });
});

const byName = (r: RenderResult, prefix: string): RenderedResource[] =>
  r.resources.filter((x) => x.name.startsWith(prefix)).sort((a, b) => a.name.localeCompare(b.name));

describe.each([
  ["Linkerd, Traefik", { mesh: { kind: "linkerd" }, ingress: { kind: "traefik" } }],
  ["no mesh, GKE Gateway", { mesh: { kind: "none" }, ingress: { kind: "gke-gateway" } }],
] as const)("the platform's kube-prometheus-stack with %s, prod", (_label, env) => {
  let r: RenderResult;
  beforeAll(async () => {
    r = await renderPlatform({ tier: "prod", monitoring: { backend: "prometheus" }, ...env });
  });

  test("cert-manager is installed, and the release waits for it with cert-manager's webhook certificate", () => {
    const kps = release(r, "kube-prometheus-stack");
    expect(at(values(kps), "prometheusOperator", "admissionWebhooks")).toEqual({
      certManager: {
        enabled: true,
        issuerRef: { name: "kube-prometheus-stack-admission-selfsigned", kind: "Issuer" },
      },
      patch: { enabled: false },
      failurePolicy: "Ignore",
    });
    expect(kps.dependsOn).toContain(release(r, "cert-manager").key);
    // The self-signed Issuer of its certificate: after cert-manager, before the release.
    const issuer = find(r, "Issuer", "kube-prometheus-stack-admission-selfsigned", "monitoring");
    expect(issuer.inputs.spec).toEqual({ selfSigned: {} });
    expect(issuer.dependsOn).toContain(release(r, "cert-manager").key);
    expect(kps.dependsOn).toContain(issuer.key);
    expect(at(values(kps), "prometheus", "prometheusSpec", "replicas")).toBe(2);
    expect(
      at(
        values(kps),
        "prometheus",
        "prometheusSpec",
        "storageSpec",
        "volumeClaimTemplate",
        "spec",
        "storageClassName",
      ),
    ).toBe("standard-rwo");
  });

  test("cert-manager's monitors and alerts wait for the release, under CertManager, named as CertManager names them", () => {
    const kps = release(r, "kube-prometheus-stack");
    const alerts = byName(r, "platform-cert-manager-alerts-");
    expect(alerts.map((a) => [a.inputs.kind, a.parent])).toEqual(
      alerts.map((a) => [a.inputs.kind, "gke-mesh-platform:addons:CertManager::platform-cert-manager"]),
    );
    expect(alerts.map((a) => a.inputs.kind)).toContain("PrometheusRule");
    expect(alerts.map((a) => a.inputs.kind)).toContain("PodMonitor");
    for (const a of alerts) expect(a.dependsOn).toContain(kps.key);
  });

  test("the inventory has the webhook's serving certificate, self-signed and renewed by cert-manager; nothing unrenewed", () => {
    const views = viewsOf(r);
    const kps = certificateInventory(views).filter((e) =>
      e.source.startsWith("release kube-prometheus-stack"),
    );
    expect(kps.map((e) => [e.certificate, e.lifetime, e.renewer, e.issuer])).toEqual([
      [
        "Secret monitoring/kube-prometheus-stack-admission",
        "8760h0m0s",
        "cert-manager",
        ["Issuer monitoring/kube-prometheus-stack-admission-selfsigned (self-signed)"],
      ],
    ]);
    expect(checkInvariants(views).filter((v) => v.invariant === "certificates-renewed")).toEqual([]);
  });
});

test("without a mesh and with GKE's Gateway, the Prometheus backend alone brings cert-manager, naming why", () => {
  const p = plan({
    mesh: { kind: "none" },
    ingress: { kind: "gke-gateway" },
    monitoring: { backend: "prometheus" },
  });
  expect(p.certManager).toEqual({ trustManager: false });
  expect(p.releases["cert-manager"]).toEqual({ chart: "certManager" });
  expect(p.crdOwners.certManager).toEqual({
    kind: "chart",
    chart: "certManager",
    reason: "the Prometheus Operator's webhook certificate comes from cert-manager",
  });
  // Another backend installs no kube-prometheus-stack, so nothing asks for cert-manager there.
  expect(
    plan({
      mesh: { kind: "none" },
      ingress: { kind: "gke-gateway" },
      monitoring: { backend: "managed-prometheus" },
    }).certManager,
  ).toBeUndefined();
});

test("cert-manager's monitors keep their names and parent whether CertManager or the Platform deploys them", async () => {
  const names = (r: RenderResult) =>
    byName(r, "platform-cert-manager-alerts-").map((a) => [a.type, a.name, a.parent]);
  // With an existing Prometheus, CertManager deploys them itself; with the platform's, the Platform does, after the release.
  const own = await renderPlatform({ mesh: { kind: "linkerd" }, monitoring: { backend: "prometheus" } });
  const existing = await renderPlatform({
    mesh: { kind: "linkerd" },
    monitoring: { backend: "existing-prometheus" },
  });
  expect(names(own)).toEqual(names(existing));
  expect(names(own).length).toBeGreaterThan(0);
});

// kube-prometheus-stack as a real helm renders it from the pinned chart with a prod render's values.
const helm = findHelm();
const absent = [
  ...(helm ? [] : ["no helm binary (set HELM, or run .ci/run, which builds one)"]),
  ...(chartsProblem ? [chartsProblem] : []),
].join("; ");
// Skipped where helm or the charts are missing, its reason in its title (test/skips.js; CI=true fails a skip).
const withHelm = absent ? test.skip : test;

withHelm(
  `kube-prometheus-stack 88.5.3 as helm renders a prod render's values: cert-manager's webhook certificate, no certgen, no CA key in monitoring, two Prometheus on claims${absent ? ` (skipped: ${absent})` : ""}`,
  async () => {
    const r = await renderPlatform({
      tier: "prod",
      mesh: { kind: "none" },
      ingress: { kind: "gke-gateway" },
    });
    const set = await objectSetOf(clusterInputOf("prometheus", "prod", r), {
      templater: new HelmTemplater(helm ?? "", 1),
      chartsDir: chartsDir ?? "",
      kubeVersion: supportedKubernetes.highest,
    });
    const kps = set.objects.filter((o) => set.releaseOf.get(o)?.name === "kube-prometheus-stack");
    const named = (kind: string, name: string): KubeObject | undefined =>
      set.objects.find((o) => o.kind === kind && o.metadata.name === name);
    // No certgen: no Jobs, nor their ClusterRole, Role and ServiceAccount.
    expect(kps.filter((o) => o.kind === "Job")).toEqual([]);
    expect(
      kps
        .filter((o) => o.metadata.name === "kube-prometheus-stack-admission")
        .map((o) => o.kind)
        .sort(),
    ).toEqual(["Certificate", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]);
    // One Certificate, from the platform's self-signed Issuer: no CA, so no CA key in monitoring.
    expect(
      kps.filter((o) => o.kind === "Issuer" || o.kind === "Certificate").map((o) => o.metadata.name),
    ).toEqual(["kube-prometheus-stack-admission"]);
    expect(named("Certificate", "kube-prometheus-stack-admission")?.spec).toEqual({
      secretName: "kube-prometheus-stack-admission",
      duration: "8760h0m0s",
      issuerRef: { name: "kube-prometheus-stack-admission-selfsigned", kind: "Issuer" },
      dnsNames: ["kube-prometheus-stack-operator", "kube-prometheus-stack-operator.monitoring.svc"],
    });
    expect(named("Issuer", "kube-prometheus-stack-admission-selfsigned")?.spec).toEqual({ selfSigned: {} });
    // Both webhook configurations: the CA injected by cainjector, none of their own, failing open.
    for (const kind of ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"]) {
      const w = named(kind, "kube-prometheus-stack-admission");
      expect(w?.metadata.annotations).toMatchObject({
        "cert-manager.io/inject-ca-from": "monitoring/kube-prometheus-stack-admission",
      });
      const hooks = (w?.webhooks ?? []) as { failurePolicy: string; clientConfig: { caBundle?: string } }[];
      expect(hooks.map((h) => [h.failurePolicy, h.clientConfig.caBundle])).toEqual(
        hooks.map(() => ["Ignore", undefined]),
      );
    }
    expect(named("Prometheus", "kube-prometheus-stack-prometheus")?.spec).toMatchObject({
      replicas: 2,
      retention: "15d",
      retentionSize: "40GB",
      storage: {
        volumeClaimTemplate: {
          spec: {
            storageClassName: "standard-rwo",
            accessModes: ["ReadWriteOnce"],
            resources: { requests: { storage: "50Gi" } },
          },
        },
      },
    });
    expect(named("PodDisruptionBudget", "kube-prometheus-stack-prometheus")?.spec).toMatchObject({
      minAvailable: 1,
    });
    expect(named("Alertmanager", "kube-prometheus-stack-alertmanager")?.spec).toMatchObject({ replicas: 2 });
    // Nothing in monitoring that ca-keys-confined refuses, and the chart's certificate facts hold.
    expect(
      checkClusterInvariants(set).filter(
        (f) =>
          f.invariant === "certificate-facts-hold" ||
          (f.invariant === "ca-keys-confined" && f.message.includes("Secret monitoring/")),
      ),
    ).toEqual([]);
  },
);
