import { draining } from "../../lib/doctor/checks/draining";
import { negAnnotations } from "../../lib/doctor/checks/neg";
import { negAnnotation } from "../../lib/manifests/exposure";
import { shutdownTiming } from "../../lib/manifests/appWorkload";
import { codes, obj, runCheck } from "./fixtures";

/**
 * Services behind Google's load balancers: the NEG annotation every controller reaching them accepts, and
 * pods that leave the load balancer before they stop.
 */

const service = (name: string, neg?: string, extra: Record<string, string> = {}) =>
  obj(
    "v1",
    "Service",
    name,
    "shop",
    { spec: { selector: { "app.kubernetes.io/name": name }, ports: [{ port: 8080, targetPort: 8080 }] } },
    { annotations: { ...(neg === undefined ? {} : { "cloud.google.com/neg": neg }), ...extra } },
  );

const gceIngress = (backend: string) =>
  obj(
    "networking.k8s.io/v1",
    "Ingress",
    `${backend}-gce`,
    "shop",
    {
      spec: {
        rules: [
          {
            http: {
              paths: [
                {
                  path: "/",
                  pathType: "Prefix",
                  backend: { service: { name: backend, port: { number: 8080 } } },
                },
              ],
            },
          },
        ],
      },
    },
    { annotations: { "kubernetes.io/ingress.class": "gce" } },
  );

const gkeGateway = obj("gateway.networking.k8s.io/v1", "Gateway", "shared", "gateway", {
  spec: { gatewayClassName: "gke-l7-global-external-managed" },
});
const route = (backend: string, port = 8080) =>
  obj("gateway.networking.k8s.io/v1", "HTTPRoute", backend, "shop", {
    spec: {
      parentRefs: [{ name: "shared", namespace: "gateway" }],
      rules: [{ backendRefs: [{ name: backend, port }] }],
    },
  });

test("a Service moved from GKE Gateway to GCE Ingress that kept Gateway's annotation: the classic outage", async () => {
  const { findings } = await runCheck(negAnnotations, [
    service("web", '{"exposed_ports":{"8080":{}}}'),
    gceIngress("web"),
  ]);
  expect(findings).toEqual([
    {
      severity: "error",
      code: "neg-missing-ingress",
      objects: ["Service shop/web", "Ingress shop/web-gce"],
      message:
        'Service shop/web is a backend of GCE Ingress (Ingress shop/web-gce), and its cloud.google.com/neg is \'{"exposed_ports":{"8080":{}}}\', without "ingress": true: ' +
        'GCE Ingress then wants a NodePort or LoadBalancer Service ("expected NodePort or LoadBalancer"), and a ClusterIP Service gets no backend: the load balancer serves errors. ' +
        "A value written for GKE Gateway alone, kept when the Service moved to GCE Ingress, is the classic case; GKE applies its own default only where the annotation is absent.",
      fix: `kubectl annotate service web --namespace shop --overwrite cloud.google.com/neg='{"ingress":true}' (in the platform: expose.via lists every way the app is reached, and the Service gets this value)`,
      evidence: "gke-gateway.md 3.1 (failure a); kubernetes/ingress-gce acbcf5d6 pkg/negannotation",
    },
    {
      severity: "warning",
      code: "neg-stale-exposed-port",
      objects: ["Service shop/web"],
      message:
        "Service shop/web's cloud.google.com/neg exposes port 8080 as standalone NEGs, and no GKE Gateway route sends there (it is reached by GCE Ingress (Ingress shop/web-gce)): GKE keeps making and syncing NEGs nothing uses, a sign the value was left from an earlier exposure.",
      fix: `kubectl annotate service web --namespace shop --overwrite cloud.google.com/neg='{"ingress":true}' (in the platform: expose.via lists every way the app is reached, and the Service gets this value), unless something outside the cluster uses those NEGs`,
      evidence: "gke-gateway.md 3.1",
    },
  ]);
});

test("the expected value is the platform's negAnnotation over every way and port", async () => {
  const both = negAnnotation(["gce-ingress", "gke-gateway"], 8080);
  expect(both).toBe('{"ingress":true,"exposed_ports":{"8080":{}}}');
  // Served by both during a migration, with the union: nothing to say.
  expect(
    (await runCheck(negAnnotations, [service("web", both), gceIngress("web"), gkeGateway, route("web")]))
      .findings,
  ).toEqual([]);
  // GKE Gateway on a port the annotation lacks; an Ingress of another class (nginx) needs nothing.
  const nginx = {
    ...gceIngress("web"),
    metadata: { ...gceIngress("web").metadata, annotations: { "kubernetes.io/ingress.class": "nginx" } },
  };
  const { findings } = await runCheck(negAnnotations, [
    service("web", '{"ingress":true}'),
    gkeGateway,
    route("web"),
    nginx,
  ]);
  expect(codes(findings)).toEqual(["error neg-missing-exposed-port"]);
  expect(findings[0].objects).toEqual(["Service shop/web", "HTTPRoute shop/web"]);
  expect(findings[0].fix).toContain(`cloud.google.com/neg='${negAnnotation(["gke-gateway"], 8080)}'`);
  // A route on a Gateway of another class reaches nothing of Google's.
  const other = { ...gkeGateway, spec: { gatewayClassName: "istio" } };
  expect((await runCheck(negAnnotations, [service("web"), other, route("web")])).findings).toEqual([]);
});

test("an unreadable value, and two writers of the annotation, are said", async () => {
  const unreadable = await runCheck(negAnnotations, [service("web", "{ingress:true}"), gceIngress("web")]);
  expect(codes(unreadable.findings)).toEqual(["error neg-unreadable"]);
  const fought = obj(
    "v1",
    "Service",
    "api",
    "shop",
    { spec: {} },
    {
      annotations: { "cloud.google.com/neg": '{"ingress":true}' },
      managedFields: [
        {
          manager: "pulumi-kubernetes-0a1b2c3d",
          fieldsV1: { "f:metadata": { "f:annotations": { "f:cloud.google.com/neg": {} } } },
        },
        {
          manager: "kubectl-annotate",
          fieldsV1: { "f:metadata": { "f:annotations": { "f:cloud.google.com/neg": {} } } },
        },
        {
          manager: "neg-controller",
          fieldsV1: { "f:metadata": { "f:annotations": { "f:cloud.google.com/neg-status": {} } } },
        },
      ],
    },
  );
  const { findings } = await runCheck(negAnnotations, [fought]);
  expect(findings).toEqual([
    {
      severity: "warning",
      code: "neg-two-writers",
      objects: ["Service shop/api"],
      message:
        "Service shop/api's cloud.google.com/neg annotation is written by 2 field managers (kubectl-annotate and pulumi-kubernetes-0a1b2c3d): each apply undoes the other's value, and the load balancer follows whichever wrote last.",
      fix: "let one writer own it: the program that deploys the Service (the platform computes it from every way the Service is exposed); stop the other from setting cloud.google.com/neg",
      evidence:
        "Kubernetes server-side apply: every field has owners, and an apply takes the field from the others",
    },
  ]);
});

const deployment = (pod: Record<string, unknown>, container: Record<string, unknown>) =>
  obj("apps/v1", "Deployment", "web", "shop", {
    spec: {
      template: {
        metadata: { labels: { "app.kubernetes.io/name": "web" } },
        spec: {
          ...pod,
          containers: [
            { name: "app", image: "web", ports: [{ containerPort: 8080, name: "http" }], ...container },
          ],
        },
      },
    },
  });

test("pods behind a load balancer without readiness, preStop and grace: each named, with the platform's figures", async () => {
  const timing = shutdownTiming(30);
  expect(timing).toEqual({ preStopSeconds: 40, gracePeriodSeconds: 50 });
  const policy = obj("networking.gke.io/v1", "GCPBackendPolicy", "web", "shop", {
    spec: {
      targetRef: { group: "", kind: "Service", name: "web" },
      default: { connectionDraining: { drainingTimeoutSec: 30 } },
    },
  });
  const objects = [
    service("web", '{"ingress":true,"exposed_ports":{"8080":{}}}'),
    gkeGateway,
    route("web"),
    policy,
  ];
  const { findings } = await runCheck(draining, [...objects, deployment({}, {})]);
  expect(findings).toEqual([
    {
      severity: "error",
      code: "no-readiness-probe",
      objects: ["Deployment shop/web", "Service shop/web"],
      message:
        "Deployment shop/web (container app) behind Service shop/web, which Google's load balancer reaches, has no readiness probe: its pods count as ready the moment they start, so the NEG's readiness gate lets the load balancer send to pods that cannot serve yet, at every rollout.",
      fix: "give container app a readinessProbe on the path the load balancer health-checks (an App's readinessPath)",
      evidence: "lib/manifests/appWorkload.ts AppWorkload: readiness and startup probes",
    },
    {
      severity: "warning",
      code: "prestop-too-short",
      objects: ["Deployment shop/web", "Service shop/web"],
      message:
        "Deployment shop/web (container app) behind Service shop/web, which Google's load balancer reaches, has no preStop delay: the load balancer keeps sending to a terminating pod for 40s, 30s of draining (GCPBackendPolicy shop/web connectionDraining) plus 10s for the load balancer to see the pod unready (its health check every 5s, unhealthy after 2), so requests in that time fail.",
      fix: "lifecycle.preStop.sleep.seconds: 40 on container app (Kubernetes 1.30+; the platform's App sets it)",
      evidence: "lib/manifests/appWorkload.ts shutdownTiming",
    },
    {
      severity: "warning",
      code: "grace-too-short",
      objects: ["Deployment shop/web", "Service shop/web"],
      message:
        "Deployment shop/web (container app) behind Service shop/web, which Google's load balancer reaches, has terminationGracePeriodSeconds 30: Kubernetes kills the pod before its preStop delay (40s, 30s of draining (GCPBackendPolicy shop/web connectionDraining) plus 10s for the load balancer to see the pod unready (its health check every 5s, unhealthy after 2)) and ten seconds for the app to finish after SIGTERM are over, cutting requests in flight.",
      fix: "terminationGracePeriodSeconds: 50 on Deployment shop/web's pods",
      evidence: "lib/manifests/appWorkload.ts shutdownTiming",
    },
  ]);
  // The chain the platform's App gets: nothing to say.
  const safe = deployment(
    { terminationGracePeriodSeconds: 50 },
    {
      readinessProbe: { httpGet: { path: "/", port: 8080 } },
      lifecycle: { preStop: { sleep: { seconds: 40 } } },
    },
  );
  expect((await runCheck(draining, [...objects, safe])).findings).toEqual([]);
  // Without draining configured, GKE drains nothing: 10s of preStop and 20s of grace are enough; an exec sleep counts.
  const gce = [service("web", '{"ingress":true}'), gceIngress("web")];
  const execSleep = deployment(
    { terminationGracePeriodSeconds: 20 },
    {
      readinessProbe: { httpGet: { path: "/", port: 8080 } },
      lifecycle: { preStop: { exec: { command: ["/bin/sh", "-c", "sleep 10"] } } },
    },
  );
  expect((await runCheck(draining, [...gce, execSleep])).findings).toEqual([]);
  // A Service no Google load balancer reaches is not judged.
  expect((await runCheck(draining, [service("web"), deployment({}, {})])).findings).toEqual([]);
});
