import { Construct } from "constructs";
import { istioFacts } from "../../versions";
import {
  Certificate,
  ClusterPodMonitoring,
  Issuer,
  PeerAuthentication,
  PodMonitor,
  PodMonitoring,
  ServiceMonitor,
  waitForAnnotation,
  type MtlsMode,
  type RelabelConfig,
} from "../../manifests";

export const istioCaName = "istio-ca";

/**
 * The CA istio-csr signs workload certificates from: a self-signed root made and kept in
 * istio-system by cert-manager, and the `istio-ca` Issuer istio-csr uses (its chart's default). No
 * key passes through Pulumi, and istiod's own CA stays off.
 */
/** The mesh's trust domain, istio-csr's `app.tls.trustDomain` and the first part of every principal. */
export const istioTrustDomain = "cluster.local";

export class IstioCa extends Construct {
  constructor(
    scope: Construct,
    id: string,
    props: { readonly namespace: string; readonly trustDomain?: string },
  ) {
    super(scope, id);
    const ns = props.namespace;
    new Issuer(this, "root-issuer", {
      metadata: { name: "istio-root-selfsigned", namespace: ns },
      spec: { selfSigned: {} },
    });
    new Certificate(this, "root", {
      metadata: { name: istioCaName, namespace: ns, annotations: { [waitForAnnotation]: "condition=Ready" } },
      spec: {
        secretName: istioCaName,
        issuerRef: { name: "istio-root-selfsigned", kind: "Issuer", group: "cert-manager.io" },
        isCA: true,
        commonName: `istio-ca.${props.trustDomain ?? istioTrustDomain}`,
        // Ten years, renewed with the same key, so workload certificates keep verifying (as Linkerd's anchor).
        duration: "87600h0m0s",
        renewBefore: "8760h0m0s",
        privateKey: { algorithm: "ECDSA", size: 256, rotationPolicy: "Never" },
      },
    });
    new Issuer(this, "ca-issuer", {
      metadata: { name: istioCaName, namespace: ns },
      spec: { ca: { secretName: istioCaName } },
    });
  }
}

/** The mesh-wide PeerAuthentication in Istio's root namespace. */
export class MeshMtls extends PeerAuthentication {
  constructor(scope: Construct, id: string, props: { readonly namespace: string; readonly mode: MtlsMode }) {
    super(scope, id, {
      metadata: { name: "default", namespace: props.namespace },
      spec: { mtls: { mode: props.mode } },
    });
  }
}

/**
 * Lets a Google load balancer reach an app's port under STRICT mesh mTLS: the load balancer sends
 * to pods through NEGs and is not in the mesh, so that one port accepts plain traffic too.
 */
export class LoadBalancerPort extends PeerAuthentication {
  constructor(
    scope: Construct,
    id: string,
    props: { readonly app: string; readonly namespace: string; readonly port: number },
  ) {
    super(scope, id, {
      metadata: { name: `${props.app}-load-balancer`, namespace: props.namespace },
      spec: {
        selector: { matchLabels: { "app.kubernetes.io/name": props.app } },
        portLevelMtls: { [String(props.port)]: { mode: "PERMISSIVE" } },
      },
    });
  }
}

export interface IstioMonitorsProps {
  readonly namespace: string;
  readonly backend: "prometheus-operator" | "managed-prometheus";
  readonly selectorLabels: Record<string, string>;
  /** ztunnel runs (the ambient data plane): it gets its own monitor. @default false */
  readonly ztunnel?: boolean;
  /**
   * Some pod runs an Istio sidecar, which the proxies' monitor scrapes; with ambient only a meshed ingress
   * controller does, and a monitor of sidecars that never run would scrape nothing. @default true
   */
  readonly sidecars?: boolean;
}

/**
 * The pod label that keeps a pod out of Istio's envoy-stats-monitor (its selector: `istio-prometheus-ignore`
 * DoesNotExist); ztunnel carries it, so its own monitor is its only scrape.
 */
export const istioScrapeOptOut = { "istio-prometheus-ignore": "true" } as const;

/** Istio's own Prometheus Operator objects (samples/addons/extras/prometheus-operator.yaml), or their Managed Prometheus equivalents. */
export class IstioMonitors extends Construct {
  constructor(scope: Construct, id: string, props: IstioMonitorsProps) {
    super(scope, id);
    const ns = props.namespace;
    const sidecars = props.sidecars ?? true;
    if (props.backend === "prometheus-operator") {
      if (sidecars)
        new PodMonitor(this, "envoy", {
          metadata: {
            name: "envoy-stats-monitor",
            namespace: ns,
            labels: { monitoring: "istio-proxies", ...props.selectorLabels },
          },
          spec: {
            selector: { matchExpressions: [{ key: "istio-prometheus-ignore", operator: "DoesNotExist" }] },
            namespaceSelector: { any: true },
            jobLabel: "envoy-stats",
            podMetricsEndpoints: [
              { path: istioFacts.proxyMetricsPath, interval: "15s", relabelings: envoyRelabelings },
            ],
          },
        });
      new ServiceMonitor(this, "components", {
        metadata: {
          name: "istio-component-monitor",
          namespace: ns,
          labels: { monitoring: "istio-components", ...props.selectorLabels },
        },
        spec: {
          jobLabel: "istio",
          targetLabels: ["app"],
          selector: { matchExpressions: [{ key: "istio", operator: "In", values: ["pilot"] }] },
          namespaceSelector: { any: true },
          endpoints: [{ port: istioFacts.istiodMonitoringPort, interval: "15s" }],
        },
      });
      if (props.ztunnel) {
        new PodMonitor(this, "ztunnel", {
          metadata: { name: "ztunnel", namespace: ns, labels: { ...props.selectorLabels } },
          spec: {
            selector: { matchLabels: { app: "ztunnel" } },
            podMetricsEndpoints: [
              {
                port: istioFacts.ztunnelMetricsPort,
                path: istioFacts.proxyMetricsPath,
                interval: "15s",
                // Istio's ztunnel dashboard selects `app="ztunnel"` (manifests/addons/dashboards/ztunnel.libsonnet).
                relabelings: [
                  {
                    action: "replace",
                    sourceLabels: ["__meta_kubernetes_pod_label_app"],
                    targetLabel: "app",
                  },
                  { action: "replace", targetLabel: "job", replacement: "ztunnel" },
                ],
              },
            ],
          },
        });
      }
      return;
    }
    new PodMonitoring(this, "istiod", {
      metadata: { name: "istiod", namespace: ns },
      spec: {
        // Every istiod pod, revisioned or not, carries `app: istiod`; a revisioned one has `istio: istiod`,
        // not `istio: pilot` (istiod chart templates/deployment.yaml at 1.30.3).
        selector: { matchLabels: { app: "istiod" } },
        endpoints: [{ port: 15014, interval: "15s" }],
        // Istio's control-plane dashboard selects `app="istiod"`, which the sample's ServiceMonitor takes
        // from the Service (targetLabels: [app]); Managed Prometheus copies it from the pod.
        targetLabels: { fromPod: [{ from: "app", to: "app" }] },
      },
    });
    if (props.ztunnel) {
      new PodMonitoring(this, "ztunnel", {
        metadata: { name: "ztunnel", namespace: ns },
        spec: {
          selector: { matchLabels: { app: "ztunnel" } },
          endpoints: [
            { port: istioFacts.ztunnelMetricsPort, path: istioFacts.proxyMetricsPath, interval: "15s" },
          ],
          targetLabels: { fromPod: [{ from: "app", to: "app" }] },
        },
      });
    }
    if (sidecars)
      new ClusterPodMonitoring(this, "proxies", {
        metadata: { name: "istio-proxies" },
        spec: {
          // Every injected pod carries this label (the sidecar injector template).
          selector: { matchExpressions: [{ key: "security.istio.io/tlsMode", operator: "Exists" }] },
          endpoints: [
            { port: istioFacts.proxyMetricsPort, path: istioFacts.proxyMetricsPath, interval: "15s" },
          ],
        },
      });
  }
}

/** The relabel chain of Istio's envoy-stats-monitor sample, verbatim. */
const envoyRelabelings: RelabelConfig[] = [
  { action: "keep", sourceLabels: ["__meta_kubernetes_pod_container_name"], regex: "istio-proxy" },
  { action: "keep", sourceLabels: ["__meta_kubernetes_pod_annotationpresent_prometheus_io_scrape"] },
  {
    action: "replace",
    regex: "(\\d+);(([A-Fa-f0-9]{1,4}::?){1,7}[A-Fa-f0-9]{1,4})",
    replacement: "[$2]:$1",
    sourceLabels: ["__meta_kubernetes_pod_annotation_prometheus_io_port", "__meta_kubernetes_pod_ip"],
    targetLabel: "__address__",
  },
  {
    action: "replace",
    regex: "(\\d+);((([0-9]+?)(\\.|$)){4})",
    replacement: "$2:$1",
    sourceLabels: ["__meta_kubernetes_pod_annotation_prometheus_io_port", "__meta_kubernetes_pod_ip"],
    targetLabel: "__address__",
  },
  { action: "labeldrop", regex: "__meta_kubernetes_pod_label_(.+)" },
  { sourceLabels: ["__meta_kubernetes_namespace"], action: "replace", targetLabel: "namespace" },
  { sourceLabels: ["__meta_kubernetes_pod_name"], action: "replace", targetLabel: "pod" },
];
