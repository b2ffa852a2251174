import { App, Chart } from "cdk8s";
import { PlatformNamespace, meshWarnings } from "../../lib/manifests";
import {
  LinkerdIssuer,
  LinkerdMonitors,
  LinkerdNamespace,
  LinkerdTrustAnchor,
  controllerPortRegex,
  meshOf,
  proxyRelabelings,
  type Mesh,
  type MeshSettings,
} from "../../lib/meshes";
import { linkerdFacts } from "../../lib/versions";
import * as YAML from "yaml";
import { crdSchema, readReference, referenceDir, skipReason, unknownFields } from "../upstream/reference";

/**
 * The chart's templates/podmonitor.yaml rendered for release namespace `ns` with the chart's default
 * values (interval and timeout 10s, honorTimestamps false, the default controller namespaceSelector).
 */
function renderChartPodMonitors(ns: string): Obj[] {
  const text = readReference("linkerd-control-plane-2026.8.3.templates-podmonitor.yaml")
    .split("\n")
    .filter(
      (line) =>
        !/^\s*\{\{-?\s*(if|end|with|\$podMonitor :=)/.test(line) &&
        !line.includes("partials.annotations.created-by"),
    )
    .map((line) =>
      line
        .replace(/\s*\{\{- with \.Values\.(commonLabels|podMonitor\.labels) \}\}.*$/, "")
        .replace(/^(\s*)annotations:\s*$/, "")
        .replace(
          "{{ tpl .Values.podMonitor.controller.namespaceSelector . | nindent 4 }}",
          `\n    matchNames:\n      - ${ns}\n      - linkerd-viz`,
        )
        .replace(/\{\{ \$podMonitor\.scrape(Interval|Timeout) \}\}/, "10s")
        .replace(/\{\{ \$podMonitor\.\w+\.honorTimestamps \}\}/, "false")
        .replace(/\{\{ \.Release\.Namespace \}\}/g, ns),
    )
    .join("\n");
  return (
    YAML.parseAllDocuments(text)
      .map((d) => d.toJS() as Obj | null)
      .filter((d): d is Obj => d !== null && d.kind === "PodMonitor")
      // The template's service-mirror monitor is for linkerd-multicluster, which the platform does not install.
      .filter((d) => d.metadata.name !== "linkerd-multicluster-controller")
  );
}

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: Record<string, unknown>;
};

const linkerd: MeshSettings = { kind: "linkerd", cni: false, nativeSidecars: true, dataplane: "sidecar" };

/** An app namespace enrolled in a mesh, as the Platform makes it. */
function enrolled(c: Chart, name: string, mesh: Mesh): PlatformNamespace {
  return new PlatformNamespace(c, name, {
    name,
    podSecurity: mesh.meshedPodSecurity,
    labels: mesh.namespaceEnrolment.labels,
    annotations: mesh.namespaceEnrolment.annotations,
  });
}

function synth(build: (chart: Chart) => void): Obj[] {
  const chart = new Chart(new App(), "test");
  build(chart);
  return chart.toJson() as Obj[];
}

function find(objects: Obj[], kind: string, name: string): Obj {
  const o = objects.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`no ${kind} ${name}`);
  return o;
}

const identity = synth((c) => {
  new LinkerdTrustAnchor(c, "anchor", { trustNamespace: "cert-manager" });
  new LinkerdIssuer(c, "issuer", { namespace: "linkerd" });
});

describe("mesh identity from cert-manager", () => {
  test("the identity issuer: CA, ECDSA, 48h, renewed 25h before expiry, signed by the CA ClusterIssuer", () => {
    const cert = find(identity, "Certificate", "linkerd-identity-issuer");
    expect(cert.metadata.namespace).toBe("linkerd");
    expect(cert.spec).toEqual({
      secretName: "linkerd-identity-issuer",
      issuerRef: { name: "linkerd-identity-issuer", kind: "ClusterIssuer", group: "cert-manager.io" },
      isCA: true,
      commonName: "identity.linkerd.cluster.local",
      dnsNames: ["identity.linkerd.cluster.local"],
      duration: "48h0m0s",
      renewBefore: "25h0m0s",
      privateKey: { algorithm: "ECDSA", rotationPolicy: "Always" },
      usages: ["cert sign", "crl sign", "server auth", "client auth"],
    });
    expect(cert.metadata.annotations).toEqual({ "pulumi.com/waitFor": "condition=Ready" });
  });

  test("the trust anchor is a self-signed ECDSA root in the trust namespace, and the CA issuer signs from it", () => {
    expect(find(identity, "ClusterIssuer", "linkerd-trust-root-issuer").spec).toEqual({ selfSigned: {} });
    const anchor = find(identity, "Certificate", "linkerd-trust-anchor");
    expect(anchor.metadata.namespace).toBe("cert-manager");
    expect(anchor.spec).toMatchObject({
      isCA: true,
      secretName: "linkerd-trust-anchor",
      issuerRef: { name: "linkerd-trust-root-issuer", kind: "ClusterIssuer" },
      // Renewal keeps the key, so certificates issued under the anchor keep verifying.
      privateKey: { algorithm: "ECDSA", size: 256, rotationPolicy: "Never" },
    });
    expect(find(identity, "ClusterIssuer", "linkerd-identity-issuer").spec).toEqual({
      ca: { secretName: "linkerd-trust-anchor" },
    });
  });

  test("the Bundle writes the anchor to linkerd-identity-trust-roots, key ca-bundle.crt, in the control-plane namespace", () => {
    const bundle = find(identity, "Bundle", "linkerd-identity-trust-roots");
    expect(bundle.apiVersion).toBe("trust.cert-manager.io/v1alpha1");
    expect(bundle.spec).toEqual({
      sources: [{ secret: { name: "linkerd-trust-anchor", key: "tls.crt" } }],
      target: {
        configMap: { key: "ca-bundle.crt" },
        namespaceSelector: { matchLabels: { "linkerd.io/is-control-plane": "true" } },
      },
    });
    expect(bundle.metadata.annotations).toEqual({ "pulumi.com/waitFor": "condition=Synced" });
  });

  test("during a rotation the Bundle also distributes the previous anchor", () => {
    const rotating = synth(
      (c) => new LinkerdIssuer(c, "issuer", { namespace: "linkerd", previousTrustAnchor: true }),
    );
    expect(find(rotating, "Bundle", "linkerd-identity-trust-roots").spec?.sources).toEqual([
      { secret: { name: "linkerd-trust-anchor", key: "tls.crt" } },
      { secret: { name: "linkerd-previous-anchor", key: "tls.crt" } },
    ]);
  });

  test("no private key material is in any object", () => {
    expect(JSON.stringify(identity)).not.toMatch(/PRIVATE KEY|tls\.key/);
  });
});

describe("namespaces", () => {
  test("the linkerd namespace has exactly the chart's labels and annotation", () => {
    const [ns] = synth((c) => new LinkerdNamespace(c, "ns", { name: "linkerd", cni: false }));
    expect(ns.metadata).toEqual({
      name: "linkerd",
      labels: {
        "pod-security.kubernetes.io/enforce": "privileged",
        "linkerd.io/is-control-plane": "true",
        "config.linkerd.io/admission-webhooks": "disabled",
        "linkerd.io/control-plane-ns": "linkerd",
      },
      annotations: { "linkerd.io/inject": "disabled" },
    });
    const [withCni] = synth((c) => new LinkerdNamespace(c, "ns", { name: "linkerd", cni: true }));
    expect(withCni.metadata.labels).toMatchObject({
      "pod-security.kubernetes.io/enforce": "restricted",
      "pod-security.kubernetes.io/warn": "restricted",
      "pod-security.kubernetes.io/audit": "restricted",
    });
  });

  test("a meshed app namespace: injection, proxy await, native sidecars, Pod Security for the init container", () => {
    const [ns] = synth((c) => enrolled(c, "shop", meshOf(linkerd)));
    expect(ns.metadata.annotations).toEqual({
      "linkerd.io/inject": "enabled",
      "config.linkerd.io/proxy-await": "enabled",
      "config.linkerd.io/proxy-enable-native-sidecar": "true",
    });
    // linkerd-init adds NET_ADMIN and NET_RAW, which only privileged admits; no warn/audit noise there.
    expect(ns.metadata.labels).toEqual({ "pod-security.kubernetes.io/enforce": "privileged" });
  });

  test("with linkerd-cni a meshed namespace enforces restricted; unmeshed namespaces always do", () => {
    const [cni] = synth((c) => enrolled(c, "a", meshOf({ ...linkerd, cni: true })));
    expect(cni.metadata.labels?.["pod-security.kubernetes.io/enforce"]).toBe("restricted");
    const [plain] = synth((c) => new PlatformNamespace(c, "b", { name: "b" }));
    expect(plain.metadata.labels?.["pod-security.kubernetes.io/enforce"]).toBe("restricted");
    expect(plain.metadata.annotations).toBeUndefined();
  });

  test("Istio: istio-injection for sidecars, never together with istio.io/rev; dataplane-mode for ambient", () => {
    const [sidecar] = synth((c) => enrolled(c, "a", meshOf({ ...linkerd, kind: "istio" })));
    expect(sidecar.metadata.labels).toMatchObject({ "istio-injection": "enabled" });
    expect(sidecar.metadata.labels).not.toHaveProperty(["istio.io/rev"]);
    const [ambient] = synth((c) =>
      enrolled(c, "b", meshOf({ ...linkerd, kind: "istio", cni: true, dataplane: "ambient" })),
    );
    expect(ambient.metadata.labels).toMatchObject({ "istio.io/dataplane-mode": "ambient" });
    expect(ambient.metadata.labels).not.toHaveProperty(["istio-injection"]);
  });
});

describe("Jobs in meshed namespaces finish", () => {
  test("with native sidecars the Job keeps its proxy, run as a native sidecar", () => {
    expect(meshOf(linkerd).jobPodMetadata).toEqual({
      labels: {},
      annotations: { "config.linkerd.io/proxy-enable-native-sidecar": "true" },
    });
  });

  test("without native sidecars the Job is taken out of the mesh, never injected with a proxy that outlives it", () => {
    expect(meshOf({ ...linkerd, nativeSidecars: false }).jobPodMetadata).toEqual({
      labels: {},
      annotations: { "linkerd.io/inject": "disabled" },
    });
    expect(meshOf({ ...linkerd, kind: "istio", nativeSidecars: false }).jobPodMetadata).toEqual({
      labels: { "sidecar.istio.io/inject": "false" },
      annotations: {},
    });
  });

  test("hostNetwork pods in a meshed namespace are warned about", () => {
    const warnings = meshWarnings(
      [
        {
          kind: "DaemonSet",
          metadata: { name: "agent", namespace: "shop" },
          spec: { template: { spec: { hostNetwork: true } } },
        },
        {
          kind: "Deployment",
          metadata: { name: "web", namespace: "shop" },
          spec: { template: { spec: {} } },
        },
        {
          kind: "DaemonSet",
          metadata: { name: "agent", namespace: "kube-system" },
          spec: { template: { spec: { hostNetwork: true } } },
        },
      ],
      new Set(["shop"]),
    );
    expect(warnings).toEqual([
      expect.stringMatching(/^DaemonSet shop\/agent uses hostNetwork in meshed namespace shop/),
    ]);
  });
});

describe("monitors", () => {
  const operator = synth(
    (c) =>
      new LinkerdMonitors(c, "m", {
        namespace: "linkerd",
        backend: "prometheus-operator",
        selectorLabels: { release: "kube-prometheus-stack" },
      }),
  );

  test("two PodMonitors (no multicluster service mirror: the platform does not install it), labelled for the stack's Prometheus, with sourceLabels and a list of endpoints", () => {
    expect(operator.map((o) => o.metadata.name)).toEqual(["linkerd-controller", "linkerd-proxy"]);
    for (const m of operator) {
      expect(m.metadata.labels).toEqual({
        "linkerd.io/control-plane-ns": "linkerd",
        release: "kube-prometheus-stack",
      });
      expect(Array.isArray(m.spec?.podMetricsEndpoints)).toBe(true);
      expect(JSON.stringify(m)).not.toContain("source_labels");
    }
  });

  test("the controller regex keeps every pinned control-plane admin port and viz's, and drops the proxy's", () => {
    const keep = new RegExp(`^(?:${controllerPortRegex})$`);
    for (const port of [...linkerdFacts.controlPlaneAdminPorts, linkerdFacts.extensionAdminPort])
      expect(keep.test(port)).toBe(true);
    expect(keep.test(linkerdFacts.proxyAdminPort)).toBe(true); // kept by the first rule, then dropped:
    const [, drop] = (
      find(operator, "PodMonitor", "linkerd-controller").spec?.podMetricsEndpoints as {
        relabelings: { action: string; regex: string }[];
      }[]
    )[0].relabelings;
    expect(drop).toMatchObject({ action: "drop", regex: "linkerd-admin" });
    // The stale recipe from before 2.19 matches none of the pinned chart's ports.
    expect(linkerdFacts.controlPlaneAdminPorts.filter((p) => /^(?:admin-http)$/.test(p))).toEqual([]);
  });

  test("the proxy monitor keeps linkerd-proxy;linkerd-admin;<namespace>", () => {
    const [keep] = proxyRelabelings("linkerd");
    expect(new RegExp(keep.regex as string).test("linkerd-proxy;linkerd-admin;linkerd")).toBe(true);
    expect(new RegExp(keep.regex as string).test("linkerd-proxy;admin-http;linkerd")).toBe(false);
  });

  test("Managed Prometheus scrapes linkerd-viz's control plane too when asked", () => {
    const gmp = synth(
      (c) =>
        new LinkerdMonitors(c, "m", {
          namespace: "linkerd",
          backend: "managed-prometheus",
          selectorLabels: {},
          extensionNamespaces: ["linkerd-viz"],
        }),
    );
    expect(gmp.filter((o) => o.kind === "PodMonitoring").map((o) => o.metadata.namespace)).toEqual([
      "linkerd",
      "linkerd-viz",
    ]);
    // viz's components carry linkerd.io/extension and serve metrics on `admin` (viz templates/*.yaml).
    expect(gmp.find((o) => o.metadata.namespace === "linkerd-viz")?.spec).toEqual({
      selector: { matchExpressions: [{ key: "linkerd.io/extension", operator: "Exists" }] },
      endpoints: [{ port: "admin", interval: "10s" }],
      targetLabels: { metadata: ["pod", "container"], fromPod: [{ from: "component", to: "component" }] },
    });
  });

  test("Managed Prometheus gets the same targets by port name", () => {
    const gmp = synth(
      (c) =>
        new LinkerdMonitors(c, "m", {
          namespace: "linkerd",
          backend: "managed-prometheus",
          selectorLabels: {},
        }),
    );
    expect(gmp.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      "PodMonitoring/linkerd-controller",
      "ClusterPodMonitoring/linkerd-proxy",
    ]);
    expect(
      (find(gmp, "PodMonitoring", "linkerd-controller").spec?.endpoints as { port: string }[]).map(
        (e) => e.port,
      ),
    ).toEqual([...linkerdFacts.controlPlaneAdminPorts]);
    expect(find(gmp, "ClusterPodMonitoring", "linkerd-proxy").spec?.endpoints).toEqual([
      { port: "linkerd-admin", interval: "10s" },
    ]);
    // The job is the monitor's name (linkerd-proxy), as the dashboards query. A ClusterPodMonitoring adds
    // `namespace` only when listed; the pod labels the PodMonitor maps are copied one by one.
    expect(find(gmp, "ClusterPodMonitoring", "linkerd-proxy").spec?.targetLabels).toEqual({
      metadata: ["namespace", "pod", "container", "top_level_controller_name", "top_level_controller_type"],
      fromPod: [
        { from: "linkerd.io/proxy-deployment", to: "deployment" },
        { from: "linkerd.io/proxy-daemonset", to: "daemonset" },
        { from: "linkerd.io/proxy-statefulset", to: "statefulset" },
        { from: "linkerd.io/proxy-replicaset", to: "replicaset" },
        { from: "linkerd.io/proxy-replicationcontroller", to: "replicationcontroller" },
        { from: "linkerd.io/proxy-cronjob", to: "cronjob" },
        { from: "linkerd.io/proxy-job", to: "k8s_job" },
        { from: "linkerd.io/control-plane-ns", to: "control_plane_ns" },
        { from: "linkerd.io/workload-ns", to: "workload_ns" },
      ],
    });
    expect(find(gmp, "PodMonitoring", "linkerd-controller").spec?.targetLabels).toEqual({
      metadata: ["pod", "container"],
      fromPod: [{ from: "linkerd.io/control-plane-component", to: "component" }],
    });
  });
});

(referenceDir ? describe : describe.skip)(
  `against the pinned upstream (${referenceDir ? "reference present" : skipReason})`,
  () => {
    const monitors = synth((c) => {
      new LinkerdMonitors(c, "op", {
        namespace: "linkerd",
        backend: "prometheus-operator",
        selectorLabels: { release: "x" },
      });
      new LinkerdMonitors(c, "gmp", {
        namespace: "linkerd",
        backend: "managed-prometheus",
        selectorLabels: {},
      });
    });
    const schemas: Record<string, () => ReturnType<typeof crdSchema>> = {
      "cert-manager.io/v1/Certificate": () =>
        crdSchema("crds/cert-manager-v1.21.2.certificates.yaml", "Certificate", "v1"),
      "cert-manager.io/v1/ClusterIssuer": () =>
        crdSchema("crds/cert-manager-v1.21.2.clusterissuers.yaml", "ClusterIssuer", "v1"),
      "trust.cert-manager.io/v1alpha1/Bundle": () =>
        crdSchema("crds/trust-manager-v0.24.0.bundles.yaml", "Bundle", "v1alpha1"),
      "monitoring.coreos.com/v1/PodMonitor": () =>
        crdSchema("crds/prometheus-operator-v0.93.0.podmonitors.yaml", "PodMonitor", "v1"),
      "monitoring.googleapis.com/v1/PodMonitoring": () =>
        crdSchema(
          "prometheus-engine-v0.17.2/monitoring.googleapis.com_podmonitorings.yaml",
          "PodMonitoring",
          "v1",
        ),
      "monitoring.googleapis.com/v1/ClusterPodMonitoring": () =>
        crdSchema(
          "prometheus-engine-v0.17.2/monitoring.googleapis.com_clusterpodmonitorings.yaml",
          "ClusterPodMonitoring",
          "v1",
        ),
    };

    test.each([...identity, ...monitors].map((o) => [`${o.kind}/${o.metadata.name}`, o] as const))(
      "%s has only fields its upstream CRD defines",
      (_label, o) => {
        const schema = schemas[`${o.apiVersion}/${o.kind}`];
        expect(schema).toBeDefined();
        expect(unknownFields(o, schema())).toEqual([]);
      },
    );

    test("the check catches a misspelled field the API server would prune", () => {
      const bad = {
        spec: { selector: {}, podMetricsEndpoints: [{ relabelings: [{ source_labels: ["x"] }] }] },
      };
      expect(unknownFields(bad, schemas["monitoring.coreos.com/v1/PodMonitor"]())).toEqual([
        "spec.podMetricsEndpoints[0].relabelings[0].source_labels",
      ]);
    });

    test("the PodMonitor specs equal the pinned chart's own template, but for the job label and viz's admin port", () => {
      // Two deliberate differences, each what viz's own scrape config (viz/charts/linkerd-viz/templates/
      // prometheus.yaml) does and Linkerd's dashboards need: the job is the monitor's name (job="linkerd-proxy"),
      // not the operator's <namespace>/<name>; and the controller job keeps `.*admin$`, so viz's `admin` ports too.
      const expected = renderChartPodMonitors("linkerd").map((m) => {
        const spec = m.spec as { podMetricsEndpoints: { relabelings: Record<string, unknown>[] }[] };
        return [
          m.metadata.name,
          {
            ...spec,
            podMetricsEndpoints: spec.podMetricsEndpoints.map((e) => ({
              ...e,
              relabelings: [
                ...e.relabelings.map((r) =>
                  m.metadata.name === "linkerd-controller" && r.regex === ".*-admin$"
                    ? { ...r, regex: ".*admin$" }
                    : r,
                ),
                { action: "replace", targetLabel: "job", replacement: m.metadata.name },
              ],
            })),
          },
        ];
      });
      expect(monitors.filter((m) => m.kind === "PodMonitor").map((m) => [m.metadata.name, m.spec])).toEqual(
        expected,
      );
    });
  },
);
