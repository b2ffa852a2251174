import type { ConfigProblem, PlatformConfig } from "../../config";
import { charts, linkerdFacts } from "../../versions";
import { plainScrape, type Mesh, type MeshConfig, type MeshRelease } from "../mesh";
import { autopilotProxyProblems } from "../rules";
import { linkerdPodSecurity, linkerdVizNamespace } from "./namespace";
import { linkerdPolicy } from "./policy";

export { linkerdAccess, linkerdPolicy, linkerdRouteParents, linkerdRoutes } from "./policy";
export {
  LinkerdNamespace,
  linkerdCniNamespace,
  linkerdNamespace,
  linkerdPodSecurity,
  linkerdVizNamespace,
} from "./namespace";
export * from "./identity";
export * from "./monitors";
export * from "./webhookCertificates";
export * from "./alerts";

/** Linkerd from its edge-channel charts, identity from cert-manager and trust-manager. */
export function linkerdMesh(config: MeshConfig): Mesh {
  const meshedPodSecurity = linkerdPodSecurity(config.cni);
  const releases: MeshRelease[] = [
    { release: "linkerd-crds", chart: "linkerdCrds" },
    ...(config.cni ? [{ release: "linkerd-cni", chart: "linkerdCni" } as const] : []),
    { release: "linkerd-control-plane", chart: "linkerdControlPlane" },
    ...(config.dashboard ? [{ release: "linkerd-viz", chart: "linkerdViz" } as const] : []),
  ];
  return {
    kind: "linkerd",
    title: "Linkerd",
    config,
    ownKeys: ["previousTrustAnchor", "tracing"],
    configProblems: (_input, env) => [
      ...autopilotProxyProblems(env, "linkerd", "linkerd-cni"),
      ...dashboardProblems(env),
      ...tracingProblems(env),
    ],
    releases,
    gatewayApi: linkerdFacts.gatewayApi,
    crdOwners: [
      { family: "trustManager", chart: "trustManager", reason: "distributes Linkerd's trust anchor" },
      { family: "linkerd", chart: "linkerdCrds", reason: "platform:mesh.kind is linkerd" },
    ],
    sizedCharts: {
      proxy: ["linkerdControlPlane"],
      linkerdControlPlane: ["linkerdControlPlane"],
      linkerdViz: ["linkerdViz"],
      linkerdCni: ["linkerdCni"],
    },
    needsCertManager: true,
    needsTrustManager: true,
    webhookPorts: charts.linkerdControlPlane.webhookPorts ?? [],
    // linkerd-viz's web Service (viz/charts/linkerd-viz/templates/web.yaml).
    dashboardUrl: config.dashboard ? `http://web.${linkerdVizNamespace}.svc.cluster.local:8084` : undefined,
    grafanaDashboards: linkerdFacts.grafanaDashboards,
    namespaceEnrolment: {
      labels: {},
      annotations: {
        "linkerd.io/inject": "enabled",
        // The app container starts only once its proxy is ready, so early requests do not fail.
        "config.linkerd.io/proxy-await": "enabled",
        // The 2.20 annotation (pkg/k8s/labels.go); explicit, so Jobs finish whatever the control-plane default.
        ...(config.nativeSidecars ? { "config.linkerd.io/proxy-enable-native-sidecar": "true" } : {}),
      },
    },
    meshedPodSecurity,
    // Every Linkerd webhook (proxy injector, service profile and policy validators) skips namespaces with
    // this label (proxyInjector.namespaceSelector, profileValidator and policyValidator namespaceSelector in
    // charts/linkerd-control-plane/values.yaml at edge-26.8.3); with webhookFailurePolicy Fail in HA, a
    // control-plane outage would otherwise block Prometheus' pods and every HTTPRoute write in the Gateway's namespace.
    unmanagedNamespaceLabels: { "config.linkerd.io/admission-webhooks": "disabled" },
    // With native sidecars Kubernetes stops the proxy when the Job's app exits; without them the proxy
    // would keep the pod running forever, so the Job's pods are taken out of the mesh instead.
    jobPodMetadata: config.nativeSidecars
      ? { labels: {}, annotations: { "config.linkerd.io/proxy-enable-native-sidecar": "true" } }
      : { labels: {}, annotations: { "linkerd.io/inject": "disabled" } },
    // cert-manager opts its solver pods out of Istio only (pkg/issuer/acme/http/pod.go at v1.21.2);
    // meshed, a deny-by-default namespace would refuse the challenge on the solver's port 8089.
    acmeSolverPod: { labels: {}, annotations: { "linkerd.io/inject": "disabled" } },
    // The proxy authorizes kubelet's probes itself only while a Server has no routes
    // (policy-controller/k8s/index/src/inbound/index.rs default_inbound_http_routes at edge-26.8.3).
    probesThroughPolicy: true,
    // Prometheus, outside the mesh, scrapes the app port in plain text; the proxy accepts it unless
    // a policy refuses it, so a guarded app grants it.
    appScrape: (m) => plainScrape(m, true),
    configWarnings: () => [],
    ingressControllerPod: (podKey, inboundPorts) => ({
      [podKey]: {
        podAnnotations: {
          "linkerd.io/inject": "enabled",
          "config.linkerd.io/skip-inbound-ports": inboundPorts,
        },
      },
    }),
    ingressControllerPodSecurity: meshedPodSecurity,
    // The controller sends to the Service's cluster IP; its proxy resolves the Service and balances per
    // request with mTLS (linkerd2#6157: no ingress mode, so no l5d-dst-override open relay).
    ingressBackend: { serviceClusterIp: true, serviceHostHeader: false },
    policy: linkerdPolicy,
  };
}

/**
 * The control-plane chart `fail`s at install when tracing has no collector identity: proxies verify the
 * collector over mTLS as `<serviceAccount>.<namespace>` (charts/partials/templates/_proxy.tpl at
 * edge-26.8.3), and neither can be derived from the endpoint.
 */
function tracingProblems(config: PlatformConfig): ConfigProblem[] {
  const t = config.mesh.tracing;
  if (!t) return [];
  return (["serviceAccount", "namespace"] as const)
    .filter((key) => t[key] === undefined)
    .map((key) => ({
      path: `platform:mesh.tracing.${key}`,
      problem:
        "is missing: proxies verify the collector by its mesh identity, its service account and namespace, and Linkerd's chart refuses to install tracing without them",
      allowed:
        key === "namespace"
          ? "the collector's namespace, e.g. tracing"
          : "the collector's service account, e.g. collector",
      fix: "set platform:mesh.tracing.serviceAccount and platform:mesh.tracing.namespace to the collector's",
    }));
}

function dashboardProblems(config: PlatformConfig): ConfigProblem[] {
  const b = config.monitoring.backend;
  if (!config.mesh.dashboard) return [];
  if (
    b === "none" ||
    b === "managed-prometheus" ||
    (b === "existing-prometheus" && !config.monitoring.prometheusUrl)
  ) {
    return [
      {
        path: "platform:mesh.dashboard",
        problem: `is true, but linkerd-viz needs a Prometheus query URL and monitoring.backend "${b}" gives none`,
        allowed: 'monitoring.backend "prometheus", or "existing-prometheus" with monitoring.prometheusUrl',
        fix: 'set platform:monitoring.backend to "prometheus", set platform:monitoring.prometheusUrl, or remove platform:mesh.dashboard',
      },
    ];
  }
  return [];
}
