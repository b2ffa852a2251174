import * as path from "path";
import {
  HelmTemplater,
  caKeyReaders,
  caKeys,
  caKeysConfined,
  checkClusterInvariants,
  findHelm,
  joinObjectSet,
  secretReadGrants,
  type KubeObject,
  type ObjectSet,
  type TemplatedRelease,
} from "../../lib/cluster";
import { chartDirOf } from "../../lib/deploy/chartSource";
import { charts } from "../../lib/versions";
import { release, renderPlatform } from "../helpers";

/**
 * `ca-keys-confined`: who can read the Secrets holding a CA's private key, over small object sets made by
 * hand (each object mirrors what its chart renders; the comments name the template), and over
 * kube-prometheus-stack as a real helm renders it from the pinned chart with the platform's values.
 */

type Json = Record<string, unknown>;

function object(
  apiVersion: string,
  kind: string,
  name: string,
  namespace?: string,
  rest: Json = {},
): KubeObject {
  const { metadata, ...body } = rest as { metadata?: Json };
  return { apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}), ...metadata }, ...body };
}

const rbac = "rbac.authorization.k8s.io/v1";
const secretsRule = (verbs: string[], resourceNames?: string[]) => ({
  apiGroups: [""],
  resources: ["secrets"],
  verbs,
  ...(resourceNames ? { resourceNames } : {}),
});
const clusterRole = (name: string, rules: Json[], labels: Record<string, string> = {}) =>
  object(rbac, "ClusterRole", name, undefined, { metadata: { labels }, rules });
const role = (name: string, ns: string, rules: Json[]) => object(rbac, "Role", name, ns, { rules });
const sa = (name: string, namespace: string) => ({ kind: "ServiceAccount", name, namespace });
const clusterBinding = (name: string, roleName: string, subjects: Json[]) =>
  object(rbac, "ClusterRoleBinding", name, undefined, {
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: roleName },
    subjects,
  });
const binding = (name: string, ns: string, roleRef: { kind: string; name: string }, subjects: Json[]) =>
  object(rbac, "RoleBinding", name, ns, {
    roleRef: { apiGroup: "rbac.authorization.k8s.io", ...roleRef },
    subjects,
  });

function deployment(
  name: string,
  ns: string,
  serviceAccountName: string,
  labels: Record<string, string>,
  args: string[] = [],
): KubeObject {
  return object("apps/v1", "Deployment", name, ns, {
    spec: {
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { serviceAccountName, containers: [{ name, image: `${name}:1`, args }] },
      },
    },
  });
}

function chartRelease(name: string, chart: string, ns: string, objects: KubeObject[]): TemplatedRelease {
  return { name, chart, namespace: ns, version: "1.0.0", values: {}, objects };
}

// cert-manager v1.21.2 deploy/charts/cert-manager/templates/deployment.yaml, cainjector-deployment.yaml and
// rbac.yaml: the controller and cainjector, each with the ClusterRole that reads every Secret.
const certManager = chartRelease("cert-manager", charts.certManager.chart, "cert-manager", [
  deployment(
    "cert-manager",
    "cert-manager",
    "cert-manager",
    { "app.kubernetes.io/component": "controller" },
    ["--cluster-resource-namespace=$(POD_NAMESPACE)"],
  ),
  deployment("cert-manager-cainjector", "cert-manager", "cert-manager-cainjector", {
    "app.kubernetes.io/component": "cainjector",
  }),
  clusterRole("cert-manager-controller-issuers", [
    secretsRule(["get", "list", "watch", "create", "update", "delete"]),
  ]),
  clusterBinding("cert-manager-controller-issuers", "cert-manager-controller-issuers", [
    sa("cert-manager", "cert-manager"),
  ]),
  clusterRole("cert-manager-cainjector", [secretsRule(["get", "list", "watch"])]),
  clusterBinding("cert-manager-cainjector", "cert-manager-cainjector", [
    sa("cert-manager-cainjector", "cert-manager"),
  ]),
  // templates/webhook-rbac.yaml: the webhook reads its own serving CA only.
  role("cert-manager-webhook:dynamic-serving", "cert-manager", [
    secretsRule(["get", "list", "watch", "update"], ["cert-manager-webhook-ca"]),
  ]),
  binding(
    "cert-manager-webhook:dynamic-serving",
    "cert-manager",
    { kind: "Role", name: "cert-manager-webhook:dynamic-serving" },
    [sa("cert-manager-webhook", "cert-manager")],
  ),
  deployment("cert-manager-webhook", "cert-manager", "cert-manager-webhook", {
    "app.kubernetes.io/component": "webhook",
  }),
]);

// trust-manager v0.24.0 deploy/charts/trust-manager/templates/role.yaml: Secrets in its trust namespace.
const trustManager = chartRelease("trust-manager", charts.trustManager.chart, "cert-manager", [
  deployment("trust-manager", "cert-manager", "trust-manager", { app: "trust-manager" }, [
    "--trust-namespace=cert-manager",
  ]),
  role("trust-manager", "cert-manager", [secretsRule(["get", "list", "watch"])]),
  binding("trust-manager", "cert-manager", { kind: "Role", name: "trust-manager" }, [
    sa("trust-manager", "cert-manager"),
  ]),
]);

// The platform's mesh identity (lib/meshes/linkerd/identity.ts): the anchor, its CA ClusterIssuer, the issuer.
const identity = [
  object("cert-manager.io/v1", "Certificate", "linkerd-trust-anchor", "cert-manager", {
    spec: {
      secretName: "linkerd-trust-anchor",
      isCA: true,
      issuerRef: { name: "root", kind: "ClusterIssuer" },
    },
  }),
  object("cert-manager.io/v1", "ClusterIssuer", "linkerd-identity-issuer", undefined, {
    spec: { ca: { secretName: "linkerd-trust-anchor" } },
  }),
  object("cert-manager.io/v1", "Certificate", "linkerd-identity-issuer", "linkerd", {
    spec: {
      secretName: "linkerd-identity-issuer",
      isCA: true,
      issuerRef: { name: "linkerd-identity-issuer", kind: "ClusterIssuer" },
    },
  }),
];

// kube-prometheus-stack 88.5.3 charts/grafana templates/clusterrole.yaml and clusterrolebinding.yaml with
// rbac.namespaced false (the chart's default): the dashboard sidecar's get, watch, list on every Secret.
const grafana = chartRelease("kube-prometheus-stack", charts.kubePrometheusStack.chart, "monitoring", [
  deployment("kube-prometheus-stack-grafana", "monitoring", "kube-prometheus-stack-grafana", {
    "app.kubernetes.io/name": "grafana",
  }),
  clusterRole("kube-prometheus-stack-grafana-clusterrole", [
    { apiGroups: [""], resources: ["configmaps", "secrets"], verbs: ["get", "watch", "list"] },
  ]),
  clusterBinding(
    "kube-prometheus-stack-grafana-clusterrolebinding",
    "kube-prometheus-stack-grafana-clusterrole",
    [sa("kube-prometheus-stack-grafana", "monitoring")],
  ),
]);

// The same with rbac.namespaced true (templates/role.yaml): Secrets of its own namespace only.
const grafanaNamespaced = chartRelease(
  "kube-prometheus-stack",
  charts.kubePrometheusStack.chart,
  "monitoring",
  [
    deployment("kube-prometheus-stack-grafana", "monitoring", "kube-prometheus-stack-grafana", {
      "app.kubernetes.io/name": "grafana",
    }),
    role("kube-prometheus-stack-grafana", "monitoring", [
      { apiGroups: [""], resources: ["configmaps", "secrets"], verbs: ["get", "watch", "list"] },
    ]),
    binding(
      "kube-prometheus-stack-grafana",
      "monitoring",
      { kind: "Role", name: "kube-prometheus-stack-grafana" },
      [sa("kube-prometheus-stack-grafana", "monitoring")],
    ),
  ],
);

function setOf(platform: KubeObject[], releases: TemplatedRelease[]): ObjectSet {
  return joinObjectSet({ label: "test", tier: "prod", objects: platform }, releases, "1.36.0", []);
}

const findings = (set: ObjectSet) =>
  checkClusterInvariants(set).filter((f) => f.invariant === "ca-keys-confined");

test("the CA keys are the Secrets CA issuers sign from and CA Certificates write, a ClusterIssuer's in cert-manager's namespace", () => {
  const set = setOf(identity, [certManager]);
  expect(caKeys(set).map((k) => `${k.namespace}/${k.name}`)).toEqual([
    "cert-manager/linkerd-trust-anchor",
    "linkerd/linkerd-identity-issuer",
  ]);
  // --cluster-resource-namespace moves where a ClusterIssuer's Secret is read from.
  const moved = chartRelease("cert-manager", charts.certManager.chart, "cert-manager", [
    deployment(
      "cert-manager",
      "cert-manager",
      "cert-manager",
      { "app.kubernetes.io/component": "controller" },
      ["--cluster-resource-namespace=pki"],
    ),
  ]);
  expect(caKeys(setOf(identity, [moved])).map((k) => `${k.namespace}/${k.name}`)).toContain(
    "pki/linkerd-trust-anchor",
  );
});

test("Grafana's cluster-wide ClusterRole is refused, naming the subject, binding, role and each key", () => {
  const found = findings(setOf(identity, [certManager, trustManager, grafana]));
  expect(found.map((f) => f.object)).toEqual([
    "ClusterRoleBinding kube-prometheus-stack-grafana-clusterrolebinding",
    "ClusterRoleBinding kube-prometheus-stack-grafana-clusterrolebinding",
  ]);
  expect(found[0].message).toContain(
    "lets ServiceAccount monitoring/kube-prometheus-stack-grafana read Secret cert-manager/linkerd-trust-anchor",
  );
  expect(found[0].message).toContain("through ClusterRole kube-prometheus-stack-grafana-clusterrole");
  expect(found[0].message).toContain("in every namespace");
  expect(found[1].message).toContain("Secret linkerd/linkerd-identity-issuer");
});

test("a clean set is accepted: cert-manager's controller and cainjector, trust-manager in its trust namespace, Grafana in its own", () => {
  expect(findings(setOf(identity, [certManager, trustManager, grafanaNamespaced]))).toEqual([]);
  // The same set without any CA key has nothing to guard.
  expect(findings(setOf([], [certManager, trustManager, grafana]))).toEqual([]);
});

test("trust-manager outside its trust namespace is a reader like any other", () => {
  const wide = chartRelease("trust-manager", charts.trustManager.chart, "cert-manager", [
    ...trustManager.objects,
    clusterRole("trust-manager-secrets", [secretsRule(["list"])]),
    clusterBinding("trust-manager-secrets", "trust-manager-secrets", [sa("trust-manager", "cert-manager")]),
  ]);
  const found = findings(setOf(identity, [certManager, wide]));
  expect(found.map((f) => f.message.split(" (")[0])).toEqual([
    "lets ServiceAccount cert-manager/trust-manager read Secret linkerd/linkerd-identity-issuer",
  ]);
});

test("resourceNames are respected, and a RoleBinding reads only in its namespace", () => {
  const other = role("webhook-ca", "linkerd", [secretsRule(["get"], ["linkerd-webhook-tls"])]);
  const named = role("issuer", "linkerd", [secretsRule(["get"], ["linkerd-identity-issuer"])]);
  const app = deployment("destination", "linkerd", "linkerd-destination", { app: "destination" });
  const bind = (name: string) =>
    binding(name, "linkerd", { kind: "Role", name }, [
      { kind: "ServiceAccount", name: "linkerd-destination" },
    ]);
  expect(findings(setOf([...identity, app, other, bind("webhook-ca")], [certManager]))).toEqual([]);
  const found = findings(setOf([...identity, app, named, bind("issuer")], [certManager]));
  expect(found.map((f) => f.object)).toEqual(["RoleBinding linkerd/issuer"]);
  // The subject's namespace defaults to the RoleBinding's.
  expect(found[0].message).toContain(
    "ServiceAccount linkerd/linkerd-destination read Secret linkerd/linkerd-identity-issuer",
  );
  expect(found[0].message).toContain("named linkerd-identity-issuer");
});

test("Kubernetes' own roles: edit and admin read Secrets, view does not, and a ClusterRole aggregated into view that reads them is refused", () => {
  const team = (roleName: string) =>
    binding(`team-${roleName}`, "linkerd", { kind: "ClusterRole", name: roleName }, [
      { kind: "Group", name: "team@example.com", apiGroup: "rbac.authorization.k8s.io" },
    ]);
  expect(findings(setOf([...identity, team("view")], [certManager]))).toEqual([]);
  expect(
    findings(setOf([...identity, team("edit")], [certManager])).map((f) => f.message.split(" (")[0]),
  ).toEqual(["lets Group team@example.com read Secret linkerd/linkerd-identity-issuer"]);
  expect(findings(setOf([...identity, team("admin")], [certManager]))[0].message).toContain(
    "through ClusterRole admin (aggregating ClusterRole edit <- ClusterRole system:aggregate-to-edit)",
  );
  const widened = clusterRole("dashboards-view", [secretsRule(["list"])], {
    "rbac.authorization.k8s.io/aggregate-to-view": "true",
  });
  const found = findings(setOf([...identity, widened, team("view")], [certManager]));
  expect(found.map((f) => f.object)).toEqual([
    "RoleBinding linkerd/team-view",
    "ClusterRole dashboards-view",
  ]);
  expect(found[0].message).toContain("through ClusterRole view (aggregating ClusterRole dashboards-view)");
});

test("everyone-groups and ServiceAccounts no pod runs as are refused; Kubernetes' own identities are not", () => {
  const reader = clusterRole("reader", [secretsRule(["*"])]);
  const to = (subjects: Json[]) => [...identity, reader, clusterBinding("readers", "reader", subjects)];
  const messages = (subjects: Json[]) =>
    findings(setOf(to(subjects), [certManager])).map((f) => f.message.split(" read ")[0]);
  expect(messages([{ kind: "Group", name: "system:authenticated" }])).toEqual([
    "lets every authenticated identity",
    "lets every authenticated identity",
  ]);
  expect(messages([{ kind: "Group", name: "system:serviceaccounts:linkerd" }])[0]).toBe(
    "lets every ServiceAccount of namespace linkerd",
  );
  expect(messages([sa("istio-reader-service-account", "istio-system")])[0]).toBe(
    "lets ServiceAccount istio-system/istio-reader-service-account",
  );
  expect(
    messages([
      { kind: "Group", name: "system:masters" },
      { kind: "User", name: "system:kube-controller-manager" },
    ]),
  ).toEqual([]);
  // A ServiceAccount as a user is still that ServiceAccount.
  expect(messages([{ kind: "User", name: "system:serviceaccount:cert-manager:cert-manager" }])).toEqual([]);
  expect(messages([{ kind: "User", name: "system:serviceaccount:monitoring:grafana" }])[0]).toBe(
    "lets ServiceAccount monitoring/grafana",
  );
});

test("a ServiceAccount shared by an owner and another workload is refused", () => {
  const borrower = deployment("borrower", "cert-manager", "cert-manager", { app: "borrower" });
  expect(findings(setOf([...identity, borrower], [certManager])).map((f) => f.object)).toEqual([
    "ClusterRoleBinding cert-manager-controller-issuers",
    "ClusterRoleBinding cert-manager-controller-issuers",
  ]);
});

test("the grants RBAC gives: verbs that read, aggregation resolved, bindings to missing roles grant nothing", () => {
  const grants = secretReadGrants([
    clusterRole("writer", [secretsRule(["create", "update"])]),
    clusterBinding("writer", "writer", [sa("a", "x")]),
    clusterBinding("ghost", "no-such-role", [sa("b", "x")]),
    clusterRole("wildcard", [{ apiGroups: ["*"], resources: ["*"], verbs: ["list"] }]),
    clusterBinding("wildcard", "wildcard", [sa("c", "x")]),
    clusterRole("other-group", [{ apiGroups: ["apps"], resources: ["*"], verbs: ["*"] }]),
    clusterBinding("other-group", "other-group", [sa("d", "x")]),
  ]);
  expect(
    grants.map((g) => `${g.binding.metadata.name} ${g.verbs.join(",")} ${g.namespace ?? "every namespace"}`),
  ).toEqual(["wildcard list every namespace"]);
});

// kube-prometheus-stack as a real helm renders it from the pinned chart, with the platform's values.
const chartsDir = path.resolve(__dirname, "../..", process.env.CHARTS_DIR ?? "../shared/reference/charts");
const helm = findHelm();
const chartDir = chartDirOf(chartsDir, charts.kubePrometheusStack.chart, charts.kubePrometheusStack.version);
const absent = [
  ...(helm ? [] : ["no helm binary (set HELM, or run .ci/run, which builds one)"]),
  ...(chartDir
    ? []
    : [
        `no ${charts.kubePrometheusStack.chart} ${charts.kubePrometheusStack.version} in ${chartsDir} (set CHARTS_DIR)`,
      ]),
].join("; ");
// Skipped where helm or the chart is missing, its reason in its title (test/skips.js; CI=true fails a skip).
const withHelm = absent ? test.skip : test;

withHelm(
  `kube-prometheus-stack ${charts.kubePrometheusStack.version} as helm renders it with the platform's values and Grafana's cluster-wide RBAC: refused${absent ? ` (skipped: ${absent})` : ""}`,
  async () => {
    const result = await renderPlatform({ tier: "prod", monitoring: { backend: "prometheus" } });
    const values = release(result, "kube-prometheus-stack").inputs.values as Json;
    // The chart's default RBAC for Grafana (cluster-wide), whatever the platform's values now choose.
    const grafanaValues = (values.grafana ?? {}) as Json;
    const old = {
      ...values,
      grafana: { ...grafanaValues, rbac: { ...((grafanaValues.rbac ?? {}) as Json), namespaced: false } },
    };
    const out = await new HelmTemplater(helm ?? "", 1).template({
      release: "kube-prometheus-stack",
      namespace: "monitoring",
      chartDir: chartDir ?? "",
      values: old,
      skipCrds: true,
      kubeVersion: "1.36.0",
      apiVersions: ["monitoring.coreos.com/v1"],
    });
    if ("error" in out) throw new Error(out.error);
    const rendered = chartRelease(
      "kube-prometheus-stack",
      charts.kubePrometheusStack.chart,
      "monitoring",
      out.objects,
    );
    const set = setOf(identity, [certManager, trustManager, rendered]);
    const found = caKeysConfined(set);
    const grafanaReaders = found.filter(
      (f) => f.object === "ClusterRoleBinding kube-prometheus-stack-grafana-clusterrolebinding",
    );
    expect(grafanaReaders.map((f) => f.message.split(" (")[0])).toEqual([
      "lets ServiceAccount monitoring/kube-prometheus-stack-grafana read Secret cert-manager/linkerd-trust-anchor",
      "lets ServiceAccount monitoring/kube-prometheus-stack-grafana read Secret linkerd/linkerd-identity-issuer",
    ]);
    // kube-state-metrics, where the platform's values still let it list Secrets, is refused too.
    const ksm = set.objects.find(
      (o) => o.kind === "ClusterRole" && o.metadata.name === "kube-prometheus-stack-kube-state-metrics",
    );
    const ksmReads = secretReadGrants(set.objects).some(
      (g) => g.role === "ClusterRole kube-prometheus-stack-kube-state-metrics",
    );
    expect(
      ksm === undefined ||
        !ksmReads ||
        found.some((f) => f.object === "ClusterRoleBinding kube-prometheus-stack-kube-state-metrics"),
    ).toBe(true);
  },
  120_000,
);

test("a refusal names every component the invariant allows", () => {
  const found = findings(setOf(identity, [certManager, grafana]));
  expect(found[0].message).toContain(
    "only cert-manager's controller, cert-manager's cainjector, trust-manager in its trust namespace, linkerd-destination in its control plane's namespace, istiod, the Prometheus Operator, ingress-nginx's controller may read a CA key",
  );
});

// linkerd/linkerd2 edge-26.8.3 charts/linkerd-control-plane/templates/destination-rbac.yaml and destination.yaml:
// the Role remote-discovery reads every Secret of the control plane's namespace.
const remoteDiscovery = [
  deployment("linkerd-destination", "linkerd", "linkerd-destination", {
    "linkerd.io/control-plane-component": "destination",
  }),
  role("remote-discovery", "linkerd", [secretsRule(["get", "list", "watch"])]),
  binding("linkerd-destination-remote-discovery", "linkerd", { kind: "Role", name: "remote-discovery" }, [
    sa("linkerd-destination", "linkerd"),
  ]),
];
const linkerd = (objects: KubeObject[]) =>
  chartRelease("linkerd-control-plane", charts.linkerdControlPlane.chart, "linkerd", objects);

test("linkerd-destination is an accepted reader in its control plane's namespace, and refused beyond it", () => {
  // The issuer's key is in linkerd, where its chart's Role reads.
  expect(findings(setOf(identity, [certManager, trustManager, linkerd(remoteDiscovery)]))).toEqual([]);
  // A ClusterRole would reach the trust anchor in cert-manager's namespace: that read is refused, the other not.
  const wide = linkerd([
    ...remoteDiscovery,
    clusterRole("linkerd-destination-secrets", [secretsRule(["get"])]),
    clusterBinding("linkerd-destination-secrets", "linkerd-destination-secrets", [
      sa("linkerd-destination", "linkerd"),
    ]),
  ]);
  const found = findings(setOf(identity, [certManager, trustManager, wide]));
  expect(found.map((f) => `${f.object}: ${f.message.split(" (")[0]}`)).toEqual([
    "ClusterRoleBinding linkerd-destination-secrets: lets ServiceAccount linkerd/linkerd-destination read Secret cert-manager/linkerd-trust-anchor",
  ]);
  // The render's summary: who may read each key, the accepted reader marked.
  expect(
    caKeyReaders(setOf(identity, [certManager, trustManager, linkerd(remoteDiscovery)])).map(
      (k) => `${k.key.namespace}/${k.key.name}: ${k.readers.join(", ")}`,
    ),
  ).toEqual([
    "cert-manager/linkerd-trust-anchor: cert-manager's cainjector, cert-manager's controller, trust-manager in its trust namespace",
    "linkerd/linkerd-identity-issuer: cert-manager's cainjector, cert-manager's controller, linkerd-destination in its control plane's namespace (accepted)",
  ]);
  // The same Role given to a workload that is not the chart's destination controller is refused.
  const other = setOf([...identity, ...remoteDiscovery], [certManager, trustManager]);
  expect(findings(other).map((f) => f.object)).toEqual([
    "RoleBinding linkerd/linkerd-destination-remote-discovery",
  ]);
});

// istio 1.30.3 manifests/charts/istio-control/istio-discovery/templates/clusterrole.yaml, role.yaml and
// reader-clusterrole.yaml: istiod reads every Secret, and every Secret of istio-system; the reader
// ClusterRole (global.enableReaderRBAC) gives a ServiceAccount no pod runs as the same.
const istiodObjects = [
  deployment("istiod", "istio-system", "istiod", { app: "istiod", istio: "pilot" }),
  clusterRole("istiod-clusterrole-istio-system", [secretsRule(["get", "watch", "list"])]),
  clusterBinding("istiod-clusterrole-istio-system", "istiod-clusterrole-istio-system", [
    sa("istiod", "istio-system"),
  ]),
  role("istiod", "istio-system", [secretsRule(["create", "get", "watch", "list", "update", "delete"])]),
  binding("istiod", "istio-system", { kind: "Role", name: "istiod" }, [sa("istiod", "istio-system")]),
];
const istioKeys = [
  object("cert-manager.io/v1", "Certificate", "istio-root-ca", "cert-manager", {
    spec: { secretName: "istio-root-ca", isCA: true, issuerRef: { name: "root", kind: "Issuer" } },
  }),
  object("cert-manager.io/v1", "Certificate", "istio-intermediate-ca", "istio-system", {
    spec: {
      secretName: "istio-intermediate-ca",
      isCA: true,
      issuerRef: { name: "root", kind: "ClusterIssuer" },
    },
  }),
];

test("istiod is an accepted reader through its chart's roles; the multicluster reader's ServiceAccount is not", () => {
  const istiod = chartRelease("istiod", charts.istiod.chart, "istio-system", istiodObjects);
  expect(findings(setOf(istioKeys, [certManager, trustManager, istiod]))).toEqual([]);
  const reader = chartRelease("istiod", charts.istiod.chart, "istio-system", [
    ...istiodObjects,
    clusterRole("istio-reader-clusterrole-istio-system", [secretsRule(["get", "list", "watch"])]),
    clusterBinding("istio-reader-clusterrole-istio-system", "istio-reader-clusterrole-istio-system", [
      sa("istio-reader-service-account", "istio-system"),
    ]),
  ]);
  expect(
    findings(setOf(istioKeys, [certManager, trustManager, reader])).map((f) => f.message.split(" (")[0]),
  ).toEqual([
    "lets ServiceAccount istio-system/istio-reader-service-account read Secret cert-manager/istio-root-ca",
    "lets ServiceAccount istio-system/istio-reader-service-account read Secret istio-system/istio-intermediate-ca",
  ]);
});

test("the Prometheus Operator and ingress-nginx's controller are accepted only as their charts' pods", () => {
  // kube-prometheus-stack 88.5.3 templates/prometheus-operator/clusterrole.yaml: `*` on every Secret.
  const operator = [
    deployment("kube-prometheus-stack-operator", "monitoring", "kube-prometheus-stack-operator", {
      "app.kubernetes.io/component": "prometheus-operator",
    }),
    clusterRole("kube-prometheus-stack-operator", [secretsRule(["*"])]),
    clusterBinding("kube-prometheus-stack-operator", "kube-prometheus-stack-operator", [
      sa("kube-prometheus-stack-operator", "monitoring"),
    ]),
  ];
  // ingress-nginx 4.15.1 templates/clusterrole.yaml: list and watch every Secret.
  const nginx = [
    deployment("ingress-nginx-controller", "ingress-nginx", "ingress-nginx", {
      "app.kubernetes.io/component": "controller",
    }),
    clusterRole("ingress-nginx", [secretsRule(["list", "watch"])]),
    clusterBinding("ingress-nginx", "ingress-nginx", [sa("ingress-nginx", "ingress-nginx")]),
  ];
  const releases = [
    chartRelease("kube-prometheus-stack", charts.kubePrometheusStack.chart, "monitoring", operator),
    chartRelease("ingress-nginx", charts.ingressNginx.chart, "ingress-nginx", nginx),
  ];
  expect(findings(setOf(identity, [certManager, trustManager, ...releases]))).toEqual([]);
  // The same objects outside those charts are readers like any other.
  expect(
    findings(setOf([...identity, ...operator, ...nginx], [certManager, trustManager])).map((f) => f.object),
  ).toEqual([
    "ClusterRoleBinding kube-prometheus-stack-operator",
    "ClusterRoleBinding kube-prometheus-stack-operator",
    "ClusterRoleBinding ingress-nginx",
    "ClusterRoleBinding ingress-nginx",
  ]);
});
