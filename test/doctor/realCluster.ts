import * as assert from "assert/strict";
import { runTierScript, stepTimer } from "../real/script";
import * as fs from "fs";
import * as path from "path";
import { parse, parseAllDocuments } from "yaml";
import { gzipSync } from "zlib";
import { findHelm } from "../../lib/cluster";
import {
  doctor,
  doctorClusterRole,
  doctorCommand,
  doctorRoleName,
  rbacYaml,
  reportText,
  type DoctorReport,
  type Finding,
  type StackRender,
} from "../../lib/doctor";
import type { CliIo } from "../../lib/render/commandLine";
import { clusterTools, startCluster, type Cluster } from "../real/apiServer";
import { issue, makeCa, type KeyPair } from "../real/pki";
import { run, waitFor } from "../real/processes";
import { chartsDir, referenceDir, referenceProblem } from "../upstream/reference";

/**
 * The doctor against a real API server (test/real/apiServer.ts: etcd, kube-apiserver and
 * kube-controller-manager on localhost): `npx tsx test/doctor/realCluster.ts [kubernetes minor]`.
 *
 * 1. Seeds each bad state the doctor exists for: Linkerd's chart, installed by a real helm, owning the
 *    HTTPRoute CRD while GKE's marks are on the rest of the Gateway API; a Service behind GCE Ingress that
 *    kept GKE Gateway's NEG annotation, with pods that neither wait nor drain; a meshed Job whose proxy is
 *    a classic sidecar, and a pod stuck with its proxy running (status written directly: no kubelet runs
 *    pods here); a cert-manager Certificate whose status says expired; a webhook whose caBundle did not
 *    sign its Secret's certificate; an enrolled namespace with a pod without proxy; Traefik outside the mesh
 *    while Linkerd meshes apps; a monitor that selects nothing; and drift from a stack's render.
 * 2. Runs the doctor as a user bound only to the ClusterRole it prints (checked with `kubectl auth can-i`:
 *    it may get and list, never write), through the command for text and JSON, and asserts every finding,
 *    the exit code, and that no Secret's value (a key, a canary, Helm's values) appears in its output.
 *    A second user without the Secrets rule gets "could not check" where Secrets are needed.
 * 3. Applies each fix the findings name (the CRD handed back to GKE survives `helm uninstall`), and runs
 *    the doctor again: nothing found, exit 0.
 * 4. Seeds an Istio canary upgrade gone wrong: a namespace on a revision no istiod serves, then on the
 *    installed revision while its istiod Service is missing; then istiod up: nothing found, exit 0.
 *
 * Where a tool or the reference folder (`npm run reference`) is missing it says which and how to build it,
 * and skips (with CI=true it fails).
 */

/** The reference's upstream copies and pinned charts (test/upstream/reference.ts). */
const upstream = referenceDir ?? "";
const linkerdCrdsChart = path.join(chartsDir ?? "", "linkerd-crds-2026.8.3");
const canary = "doctor-canary-7f3a9c1e";
const valuesCanary = "doctor-values-canary-52d1";
const pulumiManager = "pulumi-kubernetes-0f1e2d3c";

type Obj = Record<string, unknown>;

const gkeMarks = {
  labels: { "addonmanager.kubernetes.io/mode": "Reconcile" },
  annotations: { "components.gke.io/component-name": "gateway-api-crds" },
};

function apply(cluster: Cluster, items: readonly Obj[], manager = "real-doctor"): Promise<string> {
  return cluster.kubectl(
    ["apply", "--server-side", "--force-conflicts", `--field-manager=${manager}`, "-f", "-"],
    {
      input: JSON.stringify({ apiVersion: "v1", kind: "List", items }),
    },
  );
}

function patchStatus(cluster: Cluster, kind: string, ns: string, name: string, status: Obj): Promise<string> {
  return cluster.kubectl([
    "patch",
    kind,
    name,
    "--namespace",
    ns,
    "--subresource=status",
    "--type=merge",
    "-p",
    JSON.stringify({ status }),
  ]);
}

const b64 = (text: string) => Buffer.from(text).toString("base64");
const pem = (file: string) => fs.readFileSync(file, "utf8");

/** A CRD file from the upstream copies, with marks added. */
function crdFile(file: string, marks: { labels?: Obj; annotations?: Obj } = {}): Obj {
  const o = parse(fs.readFileSync(file, "utf8")) as Obj & { metadata: Obj };
  o.metadata = {
    ...o.metadata,
    labels: { ...(o.metadata.labels as Obj | undefined), ...marks.labels },
    annotations: { ...(o.metadata.annotations as Obj | undefined), ...marks.annotations },
  };
  return o;
}

/** Helm's release record of a release made here without a chart: Linkerd's control plane, as its values say. */
function helmRecord(revision: number, version: string, status: string, nativeSidecar: boolean): Obj {
  const release = {
    name: "linkerd-control-plane",
    namespace: "linkerd",
    version: revision,
    info: { status },
    chart: {
      metadata: { name: "linkerd-control-plane", version },
      values: { proxy: { nativeSidecar: true } },
    },
    // The platform's identity (cert-manager's issuer, kubernetes.io/tls), and a value that must never be printed.
    config: {
      proxy: { nativeSidecar },
      identity: { externalCA: true, issuer: { scheme: "kubernetes.io/tls" } },
      imagePullSecrets: [{ name: valuesCanary }],
    },
    manifest: "",
  };
  return {
    apiVersion: "v1",
    kind: "Secret",
    type: "helm.sh/release.v1",
    metadata: {
      name: `sh.helm.release.v1.linkerd-control-plane.v${revision}`,
      namespace: "linkerd",
      labels: { name: "linkerd-control-plane", owner: "helm", status, version: String(revision) },
    },
    data: { release: b64(gzipSync(Buffer.from(JSON.stringify(release))).toString("base64")) },
  };
}

interface Pki {
  readonly anchor: KeyPair;
  readonly issuer: KeyPair;
  readonly webhookCa: KeyPair;
  readonly otherCa: KeyPair;
  readonly webhook: KeyPair;
  readonly injector: KeyPair;
}

async function makePki(dir: string): Promise<Pki> {
  fs.mkdirSync(dir, { recursive: true });
  const anchor = await makeCa(dir, "root.linkerd.cluster.local");
  const webhookCa = await makeCa(dir, "shop-webhook-ca");
  const otherCa = await makeCa(dir, "some-other-ca");
  return {
    anchor,
    webhookCa,
    otherCa,
    issuer: await issue(anchor, {
      name: "issuer",
      commonName: "identity.linkerd.cluster.local",
      usage: "server",
    }),
    webhook: await issue(webhookCa, {
      name: "webhook",
      commonName: "webhook.shop.svc",
      dnsNames: ["webhook.shop.svc"],
      usage: "server",
    }),
    injector: await issue(webhookCa, {
      name: "injector",
      commonName: "linkerd-proxy-injector.linkerd.svc",
      dnsNames: ["linkerd-proxy-injector.linkerd.svc"],
      usage: "server",
    }),
  };
}

const tls = (ns: string, name: string, pair: KeyPair, ca?: KeyPair): Obj => ({
  apiVersion: "v1",
  kind: "Secret",
  type: "kubernetes.io/tls",
  metadata: { name, namespace: ns },
  data: {
    "tls.crt": b64(pem(pair.cert)),
    "tls.key": b64(pem(pair.key)),
    ...(ca ? { "ca.crt": b64(pem(ca.cert)) } : {}),
  },
});

/** What both runs share: namespaces, Linkerd's injector and identity, the objects the fixes leave alone. */
function base(pki: Pki): Obj[] {
  const ns = (name: string, annotations: Obj = {}) => ({
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { name, annotations },
  });
  const certificate = (ns_: string, name: string, spec: Obj) => ({
    apiVersion: "cert-manager.io/v1",
    kind: "Certificate",
    metadata: { name, namespace: ns_ },
    spec,
  });
  return [
    ns("shop"),
    ns("linkerd"),
    ns("cert-manager"),
    ns("batch", { "linkerd.io/inject": "enabled" }),
    // Linkerd's injector, as linkerd-control-plane 2026.8.3 renders it (templates/proxy-injector-rbac.yaml),
    // with rules no request matches: nothing serves it here, and the doctor reads only its selectors.
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "MutatingWebhookConfiguration",
      metadata: {
        name: "linkerd-proxy-injector-webhook-config",
        annotations: {
          "meta.helm.sh/release-name": "linkerd-control-plane",
          "meta.helm.sh/release-namespace": "linkerd",
        },
      },
      webhooks: [
        {
          name: "linkerd-proxy-injector.linkerd.io",
          namespaceSelector: {
            matchExpressions: [
              { key: "config.linkerd.io/admission-webhooks", operator: "NotIn", values: ["disabled"] },
              {
                key: "kubernetes.io/metadata.name",
                operator: "NotIn",
                values: ["kube-system", "cert-manager"],
              },
            ],
          },
          objectSelector: {
            matchExpressions: [{ key: "linkerd.io/control-plane-component", operator: "DoesNotExist" }],
          },
          clientConfig: {
            service: { name: "linkerd-proxy-injector", namespace: "linkerd", path: "/" },
            caBundle: b64(pem(pki.webhookCa.cert)),
          },
          rules: [
            {
              apiGroups: ["doctor.invalid"],
              apiVersions: ["v1"],
              operations: ["CREATE"],
              resources: ["nothings"],
            },
          ],
          failurePolicy: "Ignore",
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
        },
      ],
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "linkerd-proxy-injector", namespace: "linkerd" },
      spec: { ports: [{ port: 443 }], selector: { app: "injector" } },
    },
    {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: {
        name: "linkerd-proxy-injector-x",
        namespace: "linkerd",
        labels: { "kubernetes.io/service-name": "linkerd-proxy-injector" },
      },
      addressType: "IPv4",
      endpoints: [{ addresses: ["10.244.0.5"], conditions: { ready: true } }],
      ports: [{ port: 8443 }],
    },
    tls("linkerd", "linkerd-proxy-injector-k8s-tls", pki.injector),
    // Linkerd's identity from cert-manager, as the platform makes it.
    {
      apiVersion: "cert-manager.io/v1",
      kind: "ClusterIssuer",
      metadata: { name: "linkerd-self-signed" },
      spec: { selfSigned: {} },
    },
    certificate("cert-manager", "linkerd-trust-anchor", {
      isCA: true,
      commonName: "root.linkerd.cluster.local",
      secretName: "linkerd-trust-anchor",
      issuerRef: { name: "linkerd-self-signed", kind: "ClusterIssuer" },
    }),
    tls("cert-manager", "linkerd-trust-anchor", pki.anchor, pki.anchor),
    {
      apiVersion: "cert-manager.io/v1",
      kind: "ClusterIssuer",
      metadata: { name: "linkerd-trust-anchor" },
      spec: { ca: { secretName: "linkerd-trust-anchor" } },
    },
    certificate("linkerd", "linkerd-identity-issuer", {
      isCA: true,
      commonName: "identity.linkerd.cluster.local",
      secretName: "linkerd-identity-issuer",
      issuerRef: { name: "linkerd-trust-anchor", kind: "ClusterIssuer" },
    }),
    tls("linkerd", "linkerd-identity-issuer", pki.issuer, pki.anchor),
    certificate("shop", "web", {
      secretName: "web-tls",
      dnsNames: ["web.shop.example.com"],
      issuerRef: { name: "linkerd-self-signed", kind: "ClusterIssuer" },
    }),
    // A Secret whose value must never appear in the doctor's output.
    {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "canary", namespace: "shop" },
      stringData: { token: canary },
    },
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "webhook", namespace: "shop" },
      spec: { ports: [{ port: 443 }], selector: { app: "webhook" } },
    },
    tls("shop", "webhook-tls", pki.webhook, pki.webhookCa),
    helmRecord(1, "2026.6.3", "deployed", false),
  ];
}

/** The Service shop/web and its GCE Ingress; its pods' Deployment; as the bad or the fixed state has them. */
function web(fixed: boolean): Obj[] {
  const container: Obj = {
    name: "app",
    image: "us-docker.pkg.dev/google-samples/containers/gke/hello-app:2.0",
    ports: [{ containerPort: 8080, name: "http" }],
    ...(fixed
      ? {
          readinessProbe: { httpGet: { path: "/", port: 8080 } },
          lifecycle: { preStop: { sleep: { seconds: 10 } } },
        }
      : {}),
  };
  return [
    {
      apiVersion: "v1",
      kind: "Service",
      metadata: {
        name: "web",
        namespace: "shop",
        // Bad: GKE Gateway's value, kept when the Service moved to GCE Ingress.
        annotations: { "cloud.google.com/neg": fixed ? '{"ingress":true}' : '{"exposed_ports":{"8080":{}}}' },
      },
      spec: {
        type: "ClusterIP",
        selector: { "app.kubernetes.io/name": "web" },
        ports: [{ name: "http", port: 8080, targetPort: 8080 }],
      },
    },
    {
      apiVersion: "networking.k8s.io/v1",
      kind: "Ingress",
      metadata: { name: "web-gce", namespace: "shop", annotations: { "kubernetes.io/ingress.class": "gce" } },
      spec: {
        rules: [
          {
            http: {
              paths: [
                {
                  path: "/",
                  pathType: "Prefix",
                  backend: { service: { name: "web", port: { number: 8080 } } },
                },
              ],
            },
          },
        ],
      },
    },
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web", namespace: "shop" },
      spec: {
        selector: { matchLabels: { "app.kubernetes.io/name": "web" } },
        template: {
          metadata: { labels: { "app.kubernetes.io/name": "web" } },
          spec: { ...(fixed ? { terminationGracePeriodSeconds: 20 } : {}), containers: [container] },
        },
      },
    },
  ];
}

const job = (native: boolean): Obj => ({
  apiVersion: "batch/v1",
  kind: "Job",
  metadata: { name: "migrate", namespace: "batch" },
  spec: {
    template: {
      metadata: native ? { annotations: { "config.linkerd.io/proxy-enable-native-sidecar": "true" } } : {},
      spec: { restartPolicy: "Never", containers: [{ name: "migrate", image: "migrate:1" }] },
    },
  },
});

const pod = (name: string, containers: string[], labels: Obj = {}, owner?: Obj): Obj => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "batch", labels, ...(owner ? { ownerReferences: [owner] } : {}) },
  spec: {
    containers: containers.map((c) => ({
      name: c,
      image: `${c}:1`,
      ports: c === "app" ? [{ name: "http", containerPort: 8080 }] : [],
    })),
  },
});

const podMonitor = (selector: string): Obj => ({
  apiVersion: "monitoring.coreos.com/v1",
  kind: "PodMonitor",
  metadata: { name: "worker", namespace: "batch" },
  spec: {
    selector: { matchLabels: { "app.kubernetes.io/name": selector } },
    podMetricsEndpoints: [{ port: "http", path: "/metrics" }],
  },
});

/**
 * Traefik as a chart other than the platform's installs it: in its namespace, with its ServiceAccount
 * (lib/versions/ingress.ts), without (bad) or with (fixed) Linkerd's pod annotation the platform puts on it.
 * Its Deployment has no replicas: no kubelet runs pods here, so its pod is created directly, owned by it.
 */
const traefik = (meshed: boolean): Obj[] => [
  { apiVersion: "v1", kind: "Namespace", metadata: { name: "traefik" } },
  { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "traefik", namespace: "traefik" } },
  {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "traefik", namespace: "traefik" },
    spec: {
      replicas: 0,
      selector: { matchLabels: { "app.kubernetes.io/name": "traefik" } },
      template: {
        metadata: {
          labels: { "app.kubernetes.io/name": "traefik" },
          ...(meshed ? { annotations: { "linkerd.io/inject": "enabled" } } : {}),
        },
        spec: { serviceAccountName: "traefik", containers: [{ name: "traefik", image: "traefik:3" }] },
      },
    },
  },
];

/** Traefik's pod, owned by its Deployment (its uid), with the proxy or without. */
const traefikPod = (name: string, deploymentUid: string, proxy: boolean): Obj => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name,
    namespace: "traefik",
    labels: { "app.kubernetes.io/name": "traefik" },
    ...(proxy ? { annotations: { "linkerd.io/inject": "enabled" } } : {}),
    // The controller reference keeps the Deployment's ReplicaSet (no replicas) from adopting and deleting it.
    ownerReferences: [
      { apiVersion: "apps/v1", kind: "Deployment", name: "traefik", uid: deploymentUid, controller: true },
    ],
  },
  spec: {
    serviceAccountName: "traefik",
    containers: [
      { name: "traefik", image: "traefik:3" },
      ...(proxy ? [{ name: "linkerd-proxy", image: "cr.l5d.io/linkerd/proxy:edge-26.8.3" }] : []),
    ],
  },
});

const webhookConfig = (caBundle: string): Obj => ({
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "ValidatingWebhookConfiguration",
  metadata: {
    name: "shop-validator",
    annotations: { "cert-manager.io/inject-ca-from-secret": "shop/webhook-tls" },
  },
  webhooks: [
    {
      name: "validate.shop.example.com",
      clientConfig: {
        service: { name: "webhook", namespace: "shop", path: "/validate" },
        caBundle: b64(caBundle),
      },
      rules: [
        {
          apiGroups: ["doctor.invalid"],
          apiVersions: ["v1"],
          operations: ["CREATE"],
          resources: ["nothings"],
        },
      ],
      failurePolicy: "Fail",
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
    },
  ],
});

/**
 * Istio's revisioned injector as the istiod chart 1.30.3 renders it for revision 1-30-3
 * (templates/mutatingwebhook.yaml, its `rev.namespace.` webhook), with rules no request matches: nothing
 * serves it here, and the doctor reads only its selectors and Service.
 */
const istioInjector: Obj = {
  apiVersion: "admissionregistration.k8s.io/v1",
  kind: "MutatingWebhookConfiguration",
  metadata: { name: "istio-sidecar-injector-1-30-3", labels: { "istio.io/rev": "1-30-3" } },
  webhooks: [
    {
      name: "rev.namespace.sidecar-injector.istio.io",
      namespaceSelector: {
        matchExpressions: [
          { key: "istio.io/rev", operator: "In", values: ["1-30-3"] },
          { key: "istio-injection", operator: "DoesNotExist" },
        ],
      },
      objectSelector: {
        matchExpressions: [{ key: "sidecar.istio.io/inject", operator: "NotIn", values: ["false"] }],
      },
      clientConfig: {
        service: { name: "istiod-1-30-3", namespace: "istio-system", path: "/inject", port: 443 },
      },
      rules: [
        {
          apiGroups: ["doctor.invalid"],
          apiVersions: ["v1"],
          operations: ["CREATE"],
          resources: ["nothings"],
        },
      ],
      failurePolicy: "Fail",
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
    },
  ],
};

/** istiod-1-30-3's Service, with a ready endpoint: the revision's control plane up. */
const istiod: Obj[] = [
  {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "istiod-1-30-3", namespace: "istio-system" },
    spec: { ports: [{ name: "https-webhook", port: 443, targetPort: 15017 }], selector: { app: "istiod" } },
  },
  {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      name: "istiod-1-30-3-x",
      namespace: "istio-system",
      labels: { "kubernetes.io/service-name": "istiod-1-30-3" },
    },
    addressType: "IPv4",
    endpoints: [{ addresses: ["10.244.0.9"], conditions: { ready: true } }],
    ports: [{ name: "https-webhook", port: 15017 }],
  },
];

const shopNamespace = (revision: string): Obj => ({
  apiVersion: "v1",
  kind: "Namespace",
  metadata: { name: "canary-shop", labels: { "istio.io/rev": revision } },
});

/** The stack's render as drift compares it: what its program applies itself, and its Helm release. */
const render: StackRender = {
  label: "shop (dev)",
  objects: [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: "shop" } },
    web(true)[0] as StackRender["objects"][number],
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "settings", namespace: "shop" },
      data: { mode: "fast" },
    },
  ],
  releases: [
    {
      name: "linkerd-control-plane",
      namespace: "linkerd",
      chart: "linkerd-control-plane",
      version: "2026.8.3",
    },
  ],
};

/** The doctor command as a user runs it: its output, its exit code. */
async function command(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    cwd: process.cwd(),
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    invokedAs: "gke-mesh-platform doctor",
    registerTypeScript: false,
  };
  const code = await doctorCommand(args, io);
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

/** The finding of a code that names an object, or a failure listing what was found. */
function expectFinding(
  report: DoctorReport,
  code: string,
  object: string,
  severity: "error" | "warning",
): Finding {
  const found = report.findings.find((f) => f.code === code && f.objects.includes(object));
  assert.ok(
    found,
    `no ${code} finding for ${object}; found: ${report.findings.map((f) => `${f.code} ${f.objects.join(", ")}`).join("; ")}`,
  );
  assert.equal(found.severity, severity, `${code} for ${object}`);
  return found;
}

async function canI(cluster: Cluster, kubeconfig: string, ...args: string[]): Promise<string> {
  return cluster.kubectlTool.path
    ? run(cluster.kubectlTool.path, [`--kubeconfig=${kubeconfig}`, "auth", "can-i", ...args]).then(
        (out) => out.trim(),
        (err: unknown) => (err instanceof Error && /\bno\b/.test(err.message) ? "no" : String(err)),
      )
    : "unknown";
}

async function main(): Promise<number> {
  const kubernetesVersion = process.argv[2];
  const tools = clusterTools(kubernetesVersion);
  const helm = findHelm();
  const skip =
    tools.set.skip ??
    (helm
      ? undefined
      : `no helm (HELM, PATH or the tools cache): build it with \`GOBIN=$HOME/.cache/gke-mesh-platform/bin go install helm.sh/helm/v3/cmd/helm@v3.19.4\``) ??
    referenceProblem ??
    (fs.existsSync(linkerdCrdsChart) ? undefined : `no chart folder ${linkerdCrdsChart} (CHARTS_DIR)`);
  if (skip) {
    const reason = `doctor real test: ${skip}`;
    if (process.env.CI === "true") {
      console.error(`${reason}: CI must run it`);
      return 1;
    }
    console.log(`${reason}: skipped`);
    return 0;
  }
  const started = Date.now();
  const { step, printTimings } = stepTimer();
  const cluster = await startCluster({ kubernetesVersion });
  step(`control plane ${cluster.kubernetesVersion} ready`);
  const passed: string[] = [];
  try {
    const kubeEnv = { ...process.env, KUBECONFIG: cluster.kubeconfig };
    const helmRun = (args: string[]) => run(helm as string, args, { env: kubeEnv });
    process.env.KUBECTL = cluster.kubectlTool.path;

    // CRDs: cert-manager's and the Prometheus Operator's PodMonitor from the upstream copies; GKE's Gateway API
    // (GatewayClass and Gateway, with GKE's marks); then Linkerd's chart installs its own HTTPRoute and policy CRDs.
    const crds = [
      ...["certificates", "issuers", "clusterissuers"].map((k) =>
        crdFile(path.join(upstream, `crds/cert-manager-v1.21.2.${k}.yaml`)),
      ),
      crdFile(path.join(upstream, "crds/prometheus-operator-v0.93.0.podmonitors.yaml")),
      ...["gatewayclasses", "gateways"].map((k) =>
        crdFile(
          path.join(upstream, `gateway-api-v1.5.0-standard/gateway.networking.k8s.io_${k}.yaml`),
          gkeMarks,
        ),
      ),
    ];
    await apply(cluster, crds);
    await cluster.kubectl([
      "wait",
      "--for=condition=Established",
      "--timeout=60s",
      ...crds.map((c) => `crd/${(c.metadata as Obj).name as string}`),
    ]);
    await helmRun([
      "install",
      "linkerd-crds",
      linkerdCrdsChart,
      "--namespace",
      "linkerd",
      "--create-namespace",
      "--set",
      "installGatewayAPI=true",
      "--wait=false",
    ]);
    step(`${crds.length} CRDs applied; helm installed linkerd-crds with installGatewayAPI=true`);

    const pki = await makePki(path.join(cluster.dir, "doctor-pki"));
    await waitFor("namespace default's ServiceAccount", async () =>
      (await cluster.kubectl(["get", "serviceaccount", "default", "-o", "name"])) ? true : undefined,
    );
    await apply(cluster, base(pki));
    await waitFor("namespace batch's default ServiceAccount", async () =>
      (await cluster
        .kubectl(["get", "serviceaccount", "default", "--namespace", "batch", "-o", "name"])
        .catch(() => ""))
        ? true
        : undefined,
    );
    await apply(cluster, [
      ...web(false),
      job(false),
      pod("worker", ["app"], { "app.kubernetes.io/name": "worker" }),
      podMonitor("wroker"),
      webhookConfig(pem(pki.otherCa.cert)),
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "left-behind", namespace: "shop" },
        data: { a: "b" },
      },
    ]);
    await apply(
      cluster,
      [
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { name: "left-behind", namespace: "shop" },
          data: { a: "b" },
        },
      ],
      pulumiManager,
    );
    await apply(cluster, traefik(false));
    const traefikUid = await cluster.kubectl([
      "get",
      "deployment",
      "traefik",
      "--namespace",
      "traefik",
      "-o",
      "jsonpath={.metadata.uid}",
    ]);
    await waitFor("namespace traefik's ServiceAccount traefik", async () =>
      (await cluster
        .kubectl(["get", "serviceaccount", "traefik", "--namespace", "traefik", "-o", "name"])
        .catch(() => ""))
        ? true
        : undefined,
    );
    await apply(cluster, [traefikPod("traefik-5d8f7-abcde", traefikUid, false)]);
    const jobUid = await cluster.kubectl([
      "get",
      "job",
      "migrate",
      "--namespace",
      "batch",
      "-o",
      "jsonpath={.metadata.uid}",
    ]);
    await apply(cluster, [
      pod(
        "migrate-x7k2p",
        ["migrate", "linkerd-proxy"],
        {},
        { apiVersion: "batch/v1", kind: "Job", name: "migrate", uid: jobUid },
      ),
    ]);
    // No kubelet runs pods here: the stuck pod's status is written as a kubelet would write it.
    const statusOf = (name: string, state: Obj) => ({
      name,
      image: `${name}:1`,
      imageID: "",
      ready: false,
      restartCount: 0,
      state,
    });
    await patchStatus(cluster, "pod", "batch", "migrate-x7k2p", {
      phase: "Running",
      containerStatuses: [
        statusOf("migrate", {
          terminated: {
            exitCode: 0,
            reason: "Completed",
            startedAt: "2026-11-26T10:00:00Z",
            finishedAt: "2026-11-26T10:01:00Z",
          },
        }),
        statusOf("linkerd-proxy", { running: { startedAt: "2026-11-26T10:00:00Z" } }),
      ],
    });
    const soon = (days: number) =>
      new Date(Date.now() + days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z");
    const readyStatus = (notAfter: string, renewal: string) => ({
      notAfter,
      renewalTime: renewal,
      conditions: [
        {
          type: "Ready",
          status: "True",
          reason: "Ready",
          message: "Certificate is up to date and has not expired",
          lastTransitionTime: soon(0),
        },
      ],
    });
    await patchStatus(
      cluster,
      "certificate",
      "cert-manager",
      "linkerd-trust-anchor",
      readyStatus(soon(2), soon(1)),
    );
    await patchStatus(
      cluster,
      "certificate",
      "linkerd",
      "linkerd-identity-issuer",
      readyStatus(soon(2), soon(1)),
    );
    await patchStatus(cluster, "certificate", "shop", "web", {
      notAfter: soon(-3),
      renewalTime: soon(-33),
      conditions: [
        {
          type: "Ready",
          status: "False",
          reason: "Expired",
          message: "Certificate expired on " + soon(-3),
          lastTransitionTime: soon(-3),
        },
      ],
    });
    step("bad states seeded");

    // The read-only identity: a user bound only to the ClusterRole the doctor prints.
    const printed = parseAllDocuments(rbacYaml()).map((d) => d.toJS() as Obj);
    assert.deepEqual(printed, [doctorClusterRole()]);
    const reader = await cluster.userKubeconfig("doctor-reader");
    await apply(cluster, [
      ...printed,
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: "doctor-reader" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: doctorRoleName },
        subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "doctor-reader" }],
      },
    ]);
    await waitFor("the reader's binding", async () =>
      (await canI(cluster, reader, "list", "secrets", "--all-namespaces")) === "yes" ? true : undefined,
    );
    for (const [verb, what] of [
      ["create", "pods"],
      ["delete", "customresourcedefinitions"],
      ["patch", "services"],
      ["update", "secrets"],
      ["create", "namespaces"],
    ])
      assert.equal(
        await canI(cluster, reader, verb, what, "--all-namespaces"),
        "no",
        `the reader may ${verb} ${what}`,
      );
    for (const what of [
      "customresourcedefinitions",
      "pods",
      "secrets",
      "mutatingwebhookconfigurations",
      "certificates.cert-manager.io",
    ])
      assert.equal(
        await canI(cluster, reader, "list", what, "--all-namespaces"),
        "yes",
        `the reader may not list ${what}`,
      );
    passed.push("the printed ClusterRole gives get and list, and no write (kubectl auth can-i)");
    step("read-only user bound to the printed ClusterRole");

    // Drift lists every kind the stack renders: a user with a role for those kinds too, as --rbac says (the
    // built-in view role is filled by kube-controller-manager's aggregation controller, which does not run here).
    const driftReader = await cluster.userKubeconfig("doctor-drift");
    await apply(cluster, [
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRole",
        metadata: { name: "doctor-drift-kinds" },
        rules: [
          { apiGroups: [""], resources: ["configmaps", "services", "namespaces"], verbs: ["get", "list"] },
        ],
      },
      ...[doctorRoleName, "doctor-drift-kinds"].map((role) => ({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: `doctor-drift-${role}` },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
        subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "doctor-drift" }],
      })),
    ]);
    await waitFor("the drift reader's bindings", async () =>
      (await canI(cluster, driftReader, "list", "configmaps", "--all-namespaces")) === "yes" &&
      (await canI(cluster, driftReader, "list", "secrets", "--all-namespaces")) === "yes"
        ? true
        : undefined,
    );

    // The bad run, through the command (text and JSON) and the library (with the stack's render).
    const text = await command(["--kubeconfig", reader]);
    const json = await command(["--kubeconfig", reader, "--json"]);
    const report = await doctor({ kubeconfig: driftReader, render });
    step("doctor: bad run (text, JSON, and with the stack's render)");
    assert.equal(text.code, 2, text.stderr || text.stdout);
    assert.equal(json.code, 2);
    const fromJson = JSON.parse(json.stdout) as DoctorReport;
    if (process.env.DOCTOR_REAL_PRINT === "1") console.log(text.stdout);
    for (const r of [fromJson, report]) {
      expectFinding(
        r,
        "gateway-api-crd-owned-by-helm",
        "CustomResourceDefinition httproutes.gateway.networking.k8s.io",
        "error",
      );
      expectFinding(r, "uninstall-deletes-crds", "Helm release linkerd/linkerd-crds", "warning");
      expectFinding(r, "neg-missing-ingress", "Service shop/web", "error");
      expectFinding(r, "neg-stale-exposed-port", "Service shop/web", "warning");
      expectFinding(r, "no-readiness-probe", "Deployment shop/web", "error");
      expectFinding(r, "prestop-too-short", "Deployment shop/web", "warning");
      expectFinding(r, "job-never-finishes", "Job batch/migrate", "error");
      expectFinding(r, "pod-stuck-with-proxy", "Pod batch/migrate-x7k2p", "error");
      expectFinding(r, "certificate-expired", "Certificate shop/web", "error");
      expectFinding(r, "webhook-ca-mismatch", "ValidatingWebhookConfiguration shop-validator", "error");
      expectFinding(r, "pods-without-proxy", "Pod batch/worker", "error");
      expectFinding(r, "monitor-scrapes-nothing", "PodMonitor batch/worker", "warning");
      const ingress = expectFinding(
        r,
        "ingress-controller-not-meshed",
        "Deployment traefik/traefik",
        "error",
      );
      assert.deepEqual(ingress.objects, ["Deployment traefik/traefik", "Pod traefik/traefik-5d8f7-abcde"]);
      assert.equal(
        ingress.message,
        "Deployment traefik/traefik (the traefik ingress controller) does not ask for a proxy, though Linkerd runs and meshes app namespaces: its requests reach the apps without a mesh identity, so namespaces that require mTLS or deny by default refuse them, and the mesh does not balance them.",
      );
    }
    expectFinding(report, "changed", "Service shop/web", "warning");
    expectFinding(report, "missing", "ConfigMap shop/settings", "error");
    expectFinding(report, "extra", "ConfigMap shop/left-behind", "warning");
    expectFinding(report, "release-version", "Helm release linkerd/linkerd-control-plane", "warning");
    const expected = 13;
    assert.equal(fromJson.findings.length, expected, fromJson.findings.map((f) => f.code).join(", "));
    assert.equal(report.findings.length, expected + 4);
    assert.deepEqual(
      fromJson.checks.filter((c) => c.unchecked.length > 0),
      [],
    );
    const anchorNote = fromJson.notes.find((n) =>
      n.objects.includes("Secret cert-manager/linkerd-trust-anchor"),
    );
    assert.match(
      anchorNote?.message ?? "",
      /^Secret cert-manager\/linkerd-trust-anchor \(CA of ClusterIssuer linkerd-trust-anchor\): subject CN=root\.linkerd\.cluster\.local, expires \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(in 1 day\); renewed by cert-manager$/,
    );
    passed.push(
      `each seeded bad state found (${report.findings.length} findings, exit 2), drift from the render included`,
    );

    // No Secret's value in any output: keys, the canary, Helm's values, the release record itself.
    const outputs = [text.stdout, text.stderr, json.stdout, JSON.stringify(report)].join("\n");
    const keyBody = (file: string) =>
      pem(file)
        .split("\n")
        .filter((l) => l && !l.startsWith("-----"));
    const secrets = [
      canary,
      b64(canary),
      valuesCanary,
      ...[pki.anchor, pki.issuer, pki.webhook, pki.injector, pki.webhookCa].flatMap((p) => [
        ...keyBody(p.key),
        b64(pem(p.key)).slice(0, 40),
      ]),
      "PRIVATE KEY",
      (
        await cluster.kubectl([
          "get",
          "secret",
          "sh.helm.release.v1.linkerd-crds.v1",
          "-n",
          "linkerd",
          "-o",
          "jsonpath={.data.release}",
        ])
      ).slice(0, 40),
    ];
    for (const s of secrets)
      assert.ok(!outputs.includes(s), `a secret value appears in the output: ${s.slice(0, 12)}...`);
    passed.push(`no Secret value in the output (${secrets.length} values checked)`);

    // Without the Secrets rule: the checks that read Secrets say they could not, and the rest still run.
    const blind = await cluster.userKubeconfig("doctor-no-secrets");
    const role = doctorClusterRole() as { rules: { resources: string[] }[]; metadata: Obj };
    await apply(cluster, [
      {
        ...role,
        metadata: { name: "doctor-no-secrets" },
        rules: role.rules.filter((r) => !r.resources.includes("secrets")),
      },
      {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "ClusterRoleBinding",
        metadata: { name: "doctor-no-secrets" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "doctor-no-secrets" },
        subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "doctor-no-secrets" }],
      },
    ]);
    await waitFor("the second reader's binding", async () =>
      (await canI(cluster, blind, "list", "pods", "--all-namespaces")) === "yes" ? true : undefined,
    );
    const partial = await doctor({ kubeconfig: blind });
    if (process.env.DOCTOR_REAL_PRINT === "1") console.log(reportText(partial));
    const unchecked = partial.checks.flatMap((c) => c.unchecked.map((u) => `${c.name}: ${u}`));
    for (const u of [
      "helm-uninstall: what each release's uninstall deletes: no permission to list secrets (Helm's release records)",
      "webhook-ca: ValidatingWebhookConfiguration shop-validator webhook validate.shop.example.com (cert-manager.io/inject-ca-from-secret: shop/webhook-tls): no permission to get secrets",
      "certificates: the trust anchors and issuers charts make or mount: no permission to list secrets (Helm's release records)",
    ])
      assert.ok(unchecked.includes(u), `expected "${u}" among: ${unchecked.join(" | ")}`);
    expectFinding(partial, "neg-missing-ingress", "Service shop/web", "error");
    passed.push("without the Secrets rule, those checks say they could not check and the rest run");
    step("doctor: a reader without Secrets");

    // The fixes the findings name.
    const gatewayCrds = ["httproutes", "grpcroutes", "tlsroutes", "tcproutes"].map(
      (k) => `${k}.gateway.networking.k8s.io`,
    );
    await cluster.kubectl(["annotate", "crd", ...gatewayCrds, "helm.sh/resource-policy=keep", "--overwrite"]);
    await helmRun([
      "upgrade",
      "linkerd-crds",
      linkerdCrdsChart,
      "--namespace",
      "linkerd",
      "--set",
      "installGatewayAPI=false,enableHttpRoutes=false,enableTlsRoutes=false,enableTcpRoutes=false",
    ]);
    await cluster.kubectl([
      "annotate",
      "crd",
      ...gatewayCrds,
      "meta.helm.sh/release-name-",
      "meta.helm.sh/release-namespace-",
    ]);
    await cluster.kubectl(["label", "crd", ...gatewayCrds, "app.kubernetes.io/managed-by-"]);
    // GKE's addon manager takes them back (its marks), as it does on GKE.
    await cluster.kubectl([
      "annotate",
      "crd",
      ...gatewayCrds,
      "components.gke.io/component-name=gateway-api-crds",
      "--overwrite",
    ]);
    await cluster.kubectl([
      "label",
      "crd",
      ...gatewayCrds,
      "addonmanager.kubernetes.io/mode=Reconcile",
      "--overwrite",
    ]);
    // Linkerd's policy CRDs have no keep in its manifest: removing Linkerd is the one case that may delete them.
    await helmRun(["uninstall", "linkerd-crds", "--namespace", "linkerd"]);
    const left = await cluster.kubectl(["get", "crd", "-o", "name"]);
    for (const c of gatewayCrds)
      assert.ok(left.includes(`customresourcedefinition.apiextensions.k8s.io/${c}`), `${c} was deleted`);
    passed.push("the CRD handed back to GKE as the fix says survives helm uninstall of linkerd-crds");
    await cluster.kubectl(["delete", "job", "migrate", "--namespace", "batch", "--cascade=orphan"]);
    await cluster.kubectl(["delete", "pod", "migrate-x7k2p", "worker", "--namespace", "batch"]);
    await cluster.kubectl(["delete", "configmap", "left-behind", "--namespace", "shop"]);
    // The ingress controller joins the mesh: the platform's pod annotation, and a pod restarted with the proxy.
    await cluster.kubectl(["delete", "pod", "traefik-5d8f7-abcde", "--namespace", "traefik"]);
    await apply(cluster, [...traefik(true), traefikPod("traefik-7c9b4-fghij", traefikUid, true)]);
    await apply(cluster, [
      ...web(true),
      job(true),
      pod("worker", ["app", "linkerd-proxy"], { "app.kubernetes.io/name": "worker" }),
      podMonitor("worker"),
      webhookConfig(pem(pki.webhookCa.cert)),
      helmRecord(1, "2026.6.3", "superseded", false),
      helmRecord(2, "2026.8.3", "deployed", true),
    ]);
    await apply(cluster, [render.objects[2]], pulumiManager);
    await patchStatus(cluster, "certificate", "shop", "web", {
      ...readyStatus(soon(60), soon(30)),
    });
    step("fixes applied");

    const fixed = await command(["--kubeconfig", reader]);
    const fixedReport = await doctor({ kubeconfig: driftReader, render });
    step("doctor: fixed run");
    if (process.env.DOCTOR_REAL_PRINT === "1") console.log(fixed.stdout);
    assert.deepEqual(
      fixedReport.findings,
      [],
      fixedReport.findings.map((f) => `${f.code}: ${f.message}`).join("\n"),
    );
    assert.equal(fixedReport.exitCode, 0);
    assert.equal(fixed.code, 0, fixed.stdout);
    passed.push("after the fixes: nothing found, exit 0");

    // An Istio canary upgrade gone wrong: a namespace labelled with a revision no istiod serves, then with
    // the installed revision while its istiod is not there; then istiod up.
    await apply(cluster, [
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "istio-system" } },
      istioInjector,
      shopNamespace("1-31-1"),
    ]);
    const istioRun = async () => {
      const run = await command(["--kubeconfig", reader, "--json"]);
      return { code: run.code, report: JSON.parse(run.stdout) as DoctorReport };
    };
    const noRevision = await istioRun();
    step("doctor: a namespace on a revision with no istiod");
    const selector =
      '{"matchExpressions":[{"key":"istio.io/rev","operator":"In","values":["1-30-3"]},{"key":"istio-injection","operator":"DoesNotExist"}]}';
    assert.equal(noRevision.code, 2);
    assert.deepEqual(
      noRevision.report.findings.map((f) => ({ code: f.code, objects: f.objects, message: f.message })),
      [
        {
          code: "no-injector",
          objects: ["Namespace canary-shop", "MutatingWebhookConfiguration istio-sidecar-injector-1-30-3"],
          message: `Namespace canary-shop asks for an Istio proxy (namespace label istio.io/rev: 1-31-1), and no installed injector selects it (rev.namespace.sidecar-injector.istio.io selects ${selector}): every pod created there starts without a proxy, and meshed peers that require mTLS refuse it.`,
        },
      ],
    );
    await apply(cluster, [shopNamespace("1-30-3")]);
    const noIstiod = await istioRun();
    assert.equal(noIstiod.code, 2);
    assert.deepEqual(
      noIstiod.report.findings.map((f) => ({ code: f.code, objects: f.objects, message: f.message })),
      [
        {
          code: "injector-down",
          objects: [
            "Namespace canary-shop",
            "MutatingWebhookConfiguration istio-sidecar-injector-1-30-3",
            "Service istio-system/istiod-1-30-3",
          ],
          message:
            "Namespace canary-shop asks for an Istio proxy (namespace label istio.io/rev: 1-30-3); its injector rev.namespace.sidecar-injector.istio.io calls Service istio-system/istiod-1-30-3, which does not exist: with failurePolicy Fail, no pod can be created in the namespace.",
        },
      ],
    );
    await apply(cluster, istiod);
    const served = await istioRun();
    step("doctor: the revision's istiod missing, then up");
    assert.deepEqual(served.report.findings, []);
    assert.equal(served.code, 0);
    passed.push(
      "a namespace on an Istio revision with no istiod (no injector, then injector down) found; with istiod up, nothing (exit 0)",
    );
  } catch (err) {
    console.error(
      `doctor real test failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
    for (const p of passed) console.log(`  ok  ${p}`);
    await cluster.stop();
    return 1;
  }
  await cluster.stop();
  step("stopped");
  printTimings();
  for (const p of passed) console.log(`  ok  ${p}`);
  console.log(
    `doctor real test (Kubernetes ${cluster.kubernetesVersion}): ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  console.log(`${passed.length} passed, 0 failed`);
  return 0;
}

runTierScript("doctor real test", main);
