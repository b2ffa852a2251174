import type { AdmittedPod, InjectedContainer, MeshAdmission } from "../mesh";

/**
 * Istio's sidecar injector at 1.30.3. Its webhooks (rev.namespace., rev.object., namespace., object.
 * sidecar-injector.istio.io; istiod chart templates/mutatingwebhook.yaml) decide by their namespace and
 * object selectors which pods they are called for; the injector then skips pods that opt out with the
 * `sidecar.istio.io/inject` label or annotation set to false (pkg/kube/inject/webhook.go injectRequired).
 */
const optsOut = (pod: AdmittedPod) =>
  pod.labels["sidecar.istio.io/inject"] === "false" || pod.annotations["sidecar.istio.io/inject"] === "false";

export const istioAdmission: MeshAdmission = {
  mesh: "istio",
  proxyConfigChart: "istiod",
  // istio-csr signs every workload certificate (one-hour lifetime): without it no pod starts.
  controlPlaneCharts: ["istiod", "cert-manager-istio-csr"],
  scrapedCharts: ["istiod", "ztunnel"],
  // istiod's namespace controller writes the root certificate into every namespace
  // (pilot/pkg/serviceregistry/kube/controller/namespacecontroller.go at 1.30.3, PILOT_CA_CERT_CONFIGMAP).
  writtenInto: (namespace, installed) =>
    installed.has("istiod") ? [`ConfigMap ${namespace}/istio-ca-root-cert`] : [],
  isInjectionWebhook: (name) => name.endsWith("sidecar-injector.istio.io"),
  asksForProxy: (pod) =>
    !optsOut(pod) &&
    (pod.labels["sidecar.istio.io/inject"] === "true" ||
      pod.labels["istio.io/rev"] !== undefined ||
      pod.namespaceLabels["istio-injection"] === "enabled" ||
      pod.namespaceLabels["istio.io/rev"] !== undefined),
  injects: (pod) => !optsOut(pod),
  proxy(pod, values) {
    const global = (values.global ?? {}) as {
      proxy?: { resources?: { requests?: Record<string, string>; limits?: Record<string, string> } };
    };
    // The chart's defaults for global.proxy.resources (istio-discovery values.yaml): 100m/128Mi, limits 2000m/1024Mi.
    const resources = {
      requests: global.proxy?.resources?.requests ?? { cpu: "100m", memory: "128Mi" },
      limits: global.proxy?.resources?.limits ?? { cpu: "2000m", memory: "1024Mi" },
    };
    const env = (values.env ?? {}) as Record<string, string>;
    const native =
      pod.annotations["sidecar.istio.io/nativeSidecar"] === "true" || env.ENABLE_NATIVE_SIDECARS === "true";
    // The injection template declares only Envoy's stats port (files/injection-template.yaml:
    // http-envoy-prom 15090); pilot-agent also serves merged metrics on 15020 and readiness on 15021.
    const proxy: InjectedContainer = {
      name: "istio-proxy",
      ports: [{ name: "http-envoy-prom", containerPort: 15090 }],
      listens: [15020, 15021],
      resources,
    };
    const cni = ((values.cni ?? {}) as { enabled?: boolean }).enabled === true;
    const init: InjectedContainer = { name: cni ? "istio-validation" : "istio-init", ports: [], resources };
    return {
      containers: native ? [] : [proxy],
      initContainers: native ? [init, proxy] : [init],
      labels: {
        // Every injected pod carries it (files/injection-template.yaml); Istio's monitors select on it.
        "security.istio.io/tlsMode": "istio",
        "service.istio.io/canonical-name":
          pod.labels["app.kubernetes.io/name"] ?? pod.labels.app ?? pod.workload,
      },
      annotations: {
        // Metrics merging: the agent serves the app's and Envoy's metrics on 15020 (pkg/kube/inject).
        "prometheus.io/scrape": "true",
        "prometheus.io/port": "15020",
        "prometheus.io/path": "/stats/prometheus",
      },
    };
  },
};
