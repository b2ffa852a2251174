import type { KubeObject } from "../../lib/cluster";
import { ingressMeshed } from "../../lib/doctor/checks/ingressMeshed";
import { jobs } from "../../lib/doctor/checks/jobs";
import { meshEnrolment } from "../../lib/doctor/checks/meshEnrolment";
import { monitors } from "../../lib/doctor/checks/monitors";
import { codes, helmRecord, namespace, obj, runCheck } from "./fixtures";

/**
 * The mesh at its crossings: Jobs whose proxy outlives them, enrolled namespaces without an injector or
 * with pods that have no proxy, ingress controllers outside the mesh, monitors that scrape nothing.
 * Which webhook injects and what it adds comes from each mesh's admission model.
 */

/** Linkerd's injector, as linkerd-control-plane 2026.8.3 renders it (templates/proxy-injector-rbac.yaml). */
const linkerdInjector = obj(
  "admissionregistration.k8s.io/v1",
  "MutatingWebhookConfiguration",
  "linkerd-proxy-injector-webhook-config",
  undefined,
  {
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
        clientConfig: { service: { name: "linkerd-proxy-injector", namespace: "linkerd" } },
        failurePolicy: "Ignore",
      },
    ],
  },
  {
    annotations: {
      "meta.helm.sh/release-name": "linkerd-control-plane",
      "meta.helm.sh/release-namespace": "linkerd",
    },
  },
);
const injectorService = [
  obj("v1", "Service", "linkerd-proxy-injector", "linkerd", { spec: { selector: { app: "injector" } } }),
  obj(
    "discovery.k8s.io/v1",
    "EndpointSlice",
    "linkerd-proxy-injector-abcde",
    "linkerd",
    { endpoints: [{ addresses: ["10.0.0.5"], conditions: { ready: true } }] },
    { labels: { "kubernetes.io/service-name": "linkerd-proxy-injector" } },
  ),
];
const controlPlane = (nativeSidecar: boolean) =>
  helmRecord({
    name: "linkerd-control-plane",
    namespace: "linkerd",
    chart: "linkerd-control-plane",
    version: "2026.8.3",
    values: { proxy: { nativeSidecar: true } },
    config: { proxy: { nativeSidecar } },
  });
const batch = namespace("batch", { annotations: { "linkerd.io/inject": "enabled" } });

const job = (name: string, podMeta: Record<string, unknown> = {}, command?: string[]) =>
  obj("batch/v1", "Job", name, "batch", {
    spec: {
      template: {
        metadata: podMeta,
        spec: {
          restartPolicy: "Never",
          containers: [{ name: "migrate", image: "migrate", ...(command ? { command } : {}) }],
        },
      },
    },
  });

test("a meshed Job whose proxy is a classic sidecar never finishes; native sidecars, a quit hook or opting out are fine", async () => {
  const base = [batch, linkerdInjector, controlPlane(false)];
  const { findings } = await runCheck(jobs, [...base, job("migrate")]);
  expect(findings).toEqual([
    {
      severity: "error",
      code: "job-never-finishes",
      objects: ["Job batch/migrate", "MutatingWebhookConfiguration linkerd-proxy-injector-webhook-config"],
      message:
        "Job batch/migrate's pods get a Linkerd proxy (linkerd-proxy) from webhook linkerd-proxy-injector.linkerd.io as a classic sidecar container, not a native sidecar (by its pod template and Helm release linkerd/linkerd-control-plane's values): " +
        "when the Job's containers exit the proxy keeps running, so the pod never completes and the Job never finishes.",
      fix: "put the mesh's Job metadata on the pod template (Linkerd: annotation config.linkerd.io/proxy-enable-native-sidecar: \"true\"; jobPodMetadata(mesh) in the platform), so the proxy is a native sidecar Kubernetes stops when the containers are done; a running Job's pods keep their proxy: delete them after the fix",
      evidence:
        "docs/safety.md jobs-finish; lib/meshes/linkerd/admission.ts proxy (the injector at its pinned tag)",
    },
  ]);
  const native = job("native", { annotations: { "config.linkerd.io/proxy-enable-native-sidecar": "true" } });
  const hooked = job("hooked", {}, ["linkerd-await", "--shutdown", "--", "/migrate"]);
  const out = job("out", { annotations: { "linkerd.io/inject": "disabled" } });
  const done = { ...job("done"), status: { conditions: [{ type: "Complete", status: "True" }] } };
  expect((await runCheck(jobs, [...base, native, hooked, out, done])).findings).toEqual([]);
  // The control plane's own default (native sidecars on) decides where nothing else does.
  expect(
    (await runCheck(jobs, [batch, linkerdInjector, controlPlane(true), job("migrate")])).findings,
  ).toEqual([]);
  // A CronJob is judged by its job template; with no injector installed there is no proxy, nothing to say.
  const cron = obj("batch/v1", "CronJob", "nightly", "batch", {
    spec: { jobTemplate: { spec: job("x").spec } },
  });
  const cronFindings = (await runCheck(jobs, [...base, cron])).findings;
  expect(codes(cronFindings)).toEqual(["error job-never-finishes"]);
  expect(cronFindings[0].message).toContain(
    "; each run stays active, and with concurrencyPolicy Forbid no later run starts.",
  );
  expect((await runCheck(jobs, [batch, job("migrate")])).findings).toEqual([]);
  // Without the control plane's release, the admission model's defaults judge (linkerd-control-plane's
  // values.yaml: native sidecars), and what they find is only a warning.
  expect((await runCheck(jobs, [batch, linkerdInjector, job("migrate")])).findings).toEqual([]);
  const classic = job("migrate", {
    annotations: { "config.linkerd.io/proxy-enable-native-sidecar": "false" },
  });
  const unread = (await runCheck(jobs, [batch, linkerdInjector, classic])).findings;
  expect(codes(unread)).toEqual(["warning job-never-finishes"]);
  expect(unread[0].message).toContain(
    "not a native sidecar (by its pod template and the admission model's defaults, as no Helm release of its control plane could be read)",
  );
});

test("a pod whose containers exited while its proxy runs is stuck now", async () => {
  const stuck = obj(
    "v1",
    "Pod",
    "migrate-x7k2p",
    "batch",
    {
      spec: { containers: [{ name: "migrate" }, { name: "linkerd-proxy" }] },
      status: {
        phase: "Running",
        containerStatuses: [
          { name: "migrate", state: { terminated: { exitCode: 0, reason: "Completed" } } },
          { name: "linkerd-proxy", state: { running: { startedAt: "2026-11-26T10:00:00Z" } } },
        ],
      },
    },
    { ownerReferences: [{ kind: "Job", name: "migrate" }] },
  );
  const { findings } = await runCheck(jobs, [batch, stuck]);
  expect(findings).toEqual([
    {
      severity: "error",
      code: "pod-stuck-with-proxy",
      objects: ["Pod batch/migrate-x7k2p", "Job batch/migrate"],
      message:
        "Pod batch/migrate-x7k2p (of Job batch/migrate): its containers migrate have exited and its Linkerd proxy linkerd-proxy is still running, so the pod never completes and neither does its Job.",
      fix: "fix the template (see job-never-finishes: the mesh's Job metadata), then delete the pod: kubectl delete pod migrate-x7k2p --namespace batch",
      evidence: "docs/safety.md jobs-finish",
    },
  ]);
});

const pod = (name: string, ns: string, containers: string[], meta: Record<string, unknown> = {}) =>
  obj(
    "v1",
    "Pod",
    name,
    ns,
    { spec: { containers: containers.map((c) => ({ name: c })) }, status: { phase: "Running" } },
    meta,
  );

test("an enrolled namespace's pods without a proxy, and the workloads to restart", async () => {
  const rs = obj(
    "apps/v1",
    "ReplicaSet",
    "web-6d4f",
    "batch",
    {},
    { ownerReferences: [{ kind: "Deployment", name: "web" }] },
  );
  const bare = pod("worker", "batch", ["app"]);
  const fromDeployment = pod("web-6d4f-abcde", "batch", ["app"], {
    ownerReferences: [{ kind: "ReplicaSet", name: "web-6d4f" }],
  });
  const meshed = pod("web-6d4f-fghij", "batch", ["app", "linkerd-proxy"], {
    ownerReferences: [{ kind: "ReplicaSet", name: "web-6d4f" }],
  });
  const outside = pod("tool", "default", ["app"]);
  const { findings } = await runCheck(meshEnrolment, [
    batch,
    namespace("default"),
    linkerdInjector,
    ...injectorService,
    rs,
    bare,
    fromDeployment,
    meshed,
    outside,
  ]);
  expect(findings).toEqual([
    {
      severity: "error",
      code: "pods-without-proxy",
      objects: ["Pod batch/worker", "Pod batch/web-6d4f-abcde"],
      message:
        "2 pods in namespace batch ask for a Linkerd proxy and have none (worker and web-6d4f-abcde): created before the namespace was enrolled, or while the injector was down. Meshed peers that require mTLS or deny by default refuse their traffic, and they are outside the mesh's metrics and policy.",
      fix: "restart their workloads so the injector adds the proxy: kubectl rollout restart --namespace batch deployment/web; create worker again (nothing owns it): delete and apply it",
    },
  ]);
});

test("an enrolled namespace no injector selects (an Istio revision without its istiod), or whose injector is down", async () => {
  const istio = obj(
    "admissionregistration.k8s.io/v1",
    "MutatingWebhookConfiguration",
    "istio-sidecar-injector-1-30-3",
    undefined,
    {
      webhooks: [
        {
          name: "rev.namespace.sidecar-injector.istio.io",
          namespaceSelector: {
            matchExpressions: [{ key: "istio.io/rev", operator: "In", values: ["1-30-3"] }],
          },
          clientConfig: { service: { name: "istiod-1-30-3", namespace: "istio-system" } },
        },
      ],
    },
  );
  const canary = namespace("shop", { labels: { "istio.io/rev": "1-31-1" } });
  const { findings } = await runCheck(meshEnrolment, [canary, istio]);
  expect(findings).toEqual([
    {
      severity: "error",
      code: "no-injector",
      objects: ["Namespace shop", "MutatingWebhookConfiguration istio-sidecar-injector-1-30-3"],
      message:
        'Namespace shop asks for an Istio proxy (namespace label istio.io/rev: 1-31-1), and no installed injector selects it (rev.namespace.sidecar-injector.istio.io selects {"matchExpressions":[{"key":"istio.io/rev","operator":"In","values":["1-30-3"]}]}): every pod created there starts without a proxy, and meshed peers that require mTLS refuse it.',
      fix: "enrol the namespace with labels an installed injector selects (for a revisioned control plane, a revision that is installed), or install the control plane its labels name; then restart its workloads",
      evidence: "lib/meshes/istio/admission.ts (which namespaces and pods ask, and which webhook injects)",
    },
  ]);
  const served = namespace("shop", { labels: { "istio.io/rev": "1-30-3" } });
  const down = await runCheck(meshEnrolment, [served, istio]);
  expect(down.findings).toEqual([
    {
      severity: "error",
      code: "injector-down",
      objects: [
        "Namespace shop",
        "MutatingWebhookConfiguration istio-sidecar-injector-1-30-3",
        "Service istio-system/istiod-1-30-3",
      ],
      message:
        "Namespace shop asks for an Istio proxy (namespace label istio.io/rev: 1-30-3); its injector rev.namespace.sidecar-injector.istio.io calls Service istio-system/istiod-1-30-3, which does not exist: with failurePolicy Fail, no pod can be created in the namespace.",
      fix: "start the injector's control plane (kubectl get pods --namespace istio-system), then restart the namespace's workloads that started without a proxy",
    },
  ]);
  // Linkerd's injector up (a ready endpoint): nothing to say about an enrolled namespace.
  expect((await runCheck(meshEnrolment, [batch, linkerdInjector, ...injectorService])).findings).toEqual([]);
});

test("an ingress controller outside the mesh where a mesh meshes apps", async () => {
  const traefik = (annotations: Record<string, string>) =>
    obj("apps/v1", "Deployment", "traefik", "traefik", {
      spec: {
        template: {
          metadata: { annotations },
          spec: { serviceAccountName: "traefik", containers: [{ name: "traefik" }] },
        },
      },
    });
  const objects: KubeObject[] = [batch, namespace("traefik"), linkerdInjector];
  const { findings } = await runCheck(ingressMeshed, [...objects, traefik({})]);
  expect(findings).toEqual([
    {
      severity: "error",
      code: "ingress-controller-not-meshed",
      objects: ["Deployment traefik/traefik"],
      message:
        "Deployment traefik/traefik (the traefik ingress controller) does not ask for a proxy, though Linkerd runs and meshes app namespaces: its requests reach the apps without a mesh identity, so namespaces that require mTLS or deny by default refuse them, and the mesh does not balance them.",
      fix: "install traefik through the platform (Traefik or IngressNginx with the mesh), which puts the mesh's pod metadata on it (lib/meshes ingressControllerPod), then restart it",
      evidence: "docs/ingress.md (ingress controllers join the mesh); lib/versions/ingress.ts",
    },
  ]);
  expect(
    (await runCheck(ingressMeshed, [...objects, traefik({ "linkerd.io/inject": "ingress" })])).findings,
  ).toEqual([]);
  // No app namespace in the mesh: nothing to join.
  expect(
    (await runCheck(ingressMeshed, [namespace("traefik"), linkerdInjector, traefik({})])).findings,
  ).toEqual([]);
});

test("a monitor that selects no live pod, or no port, scrapes nothing; the mesh's catch-all monitors are left out", async () => {
  const worker = pod("worker", "batch", [], { labels: { "app.kubernetes.io/name": "worker" } });
  (worker.spec as { containers: unknown[] }).containers = [
    { name: "app", ports: [{ name: "http", containerPort: 8080 }] },
  ];
  const monitor = (name: string, selector: Record<string, string>, port: string) =>
    obj("monitoring.coreos.com/v1", "PodMonitor", name, "batch", {
      spec: { selector: { matchLabels: selector }, podMetricsEndpoints: [{ port, path: "/metrics" }] },
    });
  const { findings } = await runCheck(monitors, [
    worker,
    monitor("worker", { "app.kubernetes.io/name": "worker" }, "http"),
    monitor("typo", { "app.kubernetes.io/name": "wroker" }, "http"),
    monitor("port", { "app.kubernetes.io/name": "worker" }, "metrics"),
    obj("monitoring.coreos.com/v1", "PodMonitor", "linkerd-proxy", "linkerd", {
      spec: { selector: {}, namespaceSelector: { any: true } },
    }),
  ]);
  expect(findings.map((f) => f.message)).toEqual([
    'PodMonitor batch/typo scrapes nothing: its selector {"matchLabels":{"app.kubernetes.io/name":"wroker"}} matches no live pod in the namespaces it reads. Its series are absent, and alerts and dashboards on them stay silent.',
    "PodMonitor batch/port scrapes nothing: it selects Pod batch/worker, and none serves the port its endpoints name. Its series are absent, and alerts and dashboards on them stay silent.",
  ]);
  expect(codes(findings)).toEqual(["warning monitor-scrapes-nothing", "warning monitor-scrapes-nothing"]);
});
