import { ApiObject } from "cdk8s";
import { Construct } from "constructs";
import { istioFacts } from "../../versions";
import {
  Bundle,
  Certificate,
  ClusterIssuer,
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

/** Istio's monitors of every sidecar: its sample's PodMonitor, and the platform's Managed Prometheus one. */
export const istioProxyMonitorNames = {
  operator: "envoy-stats-monitor",
  managed: "istio-proxies",
} as const;

/** The Issuer istio-csr signs workload certificates with (its chart's default `app.certmanager.issuer.name`). */
export const istioCaName = "istio-ca";

/** The mesh's trust domain, istio-csr's `app.tls.trustDomain` and the first part of every principal. */
export const istioTrustDomain = "cluster.local";

/** Names of the objects of the mesh's chain of trust. */
export const istioCaNames = {
  rootSelfSigned: "istio-root-selfsigned",
  /** The root's Certificate and Secret (in trust-manager's trust namespace) and the ClusterIssuer signing from it. */
  root: "istio-root-ca",
  /** A copy of the previous root's certificate, trusted too during a rotation (docs/istio.md). */
  previousRoot: "istio-previous-root-ca",
  /** The intermediate CA's Certificate and Secret, in Istio's namespace. */
  intermediate: "istio-intermediate-ca",
  issuer: istioCaName,
  /** The trust-manager Bundle, and the ConfigMap it writes, that istio-csr reads the roots from. */
  trustRoots: "istio-trust-roots",
  trustRootsKey: "ca.pem",
} as const;

/** Where istio-csr mounts the trust roots, and the file it reads them from (`--root-ca-file`). */
export const istioCsrRootsDir = "/var/run/secrets/istio-csr";

export interface IstioCaProps {
  /** Istio's namespace, where istio-csr creates CertificateRequests. */
  readonly namespace: string;
  /** trust-manager's trust namespace: the root lives there, away from every serving workload. */
  readonly trustNamespace: string;
  readonly trustDomain?: string;
  /** Also trust `istio-previous-root-ca`, during a root rotation. @default false */
  readonly previousTrustAnchor?: boolean;
}

/**
 * The mesh's chain of trust, made and kept in the cluster by cert-manager: a self-signed root in
 * trust-manager's trust namespace (which runs no mesh workload, so neither istiod nor istio-csr ever
 * mount its key), an intermediate CA in Istio's namespace signed by it, and the `istio-ca` Issuer that
 * signs workload certificates from the intermediate. trust-manager copies the root's certificate (never
 * its key) into a ConfigMap istio-csr reads as its pinned roots (`app.tls.rootCAFile`), so the roots
 * proxies trust never depend on what an issuer answers, and a root rotation can distribute two
 * (istio-csr reads every certificate in the file: pkg/tls/rootca/rootca.go at v0.17.0). No key passes
 * through Pulumi, and istiod's own CA stays off.
 */
export class IstioCa extends Construct {
  constructor(scope: Construct, id: string, props: IstioCaProps) {
    super(scope, id);
    const domain = props.trustDomain ?? istioTrustDomain;
    const n = istioCaNames;
    new Issuer(this, "root-issuer", {
      metadata: { name: n.rootSelfSigned, namespace: props.trustNamespace },
      spec: { selfSigned: {} },
    });
    new Certificate(this, "root", {
      metadata: { name: n.root, namespace: props.trustNamespace },
      spec: {
        secretName: n.root,
        issuerRef: { name: n.rootSelfSigned, kind: "Issuer", group: "cert-manager.io" },
        isCA: true,
        // The subject the platform's root has always had: a root copied in from an earlier release is
        // re-issued with the same subject and key, so certificates issued under it keep verifying.
        commonName: `istio-ca.${domain}`,
        // Ten years, renewed a year early with the same key, so certificates under it keep verifying; a
        // new key is a deliberate rotation with both roots trusted (docs/istio.md).
        duration: "87600h0m0s",
        renewBefore: "8760h0m0s",
        privateKey: { algorithm: "ECDSA", size: 256, rotationPolicy: "Never" },
      },
    });
    // A ClusterIssuer reads its CA Secret from cert-manager's cluster resource namespace, the trust namespace.
    new ClusterIssuer(this, "root-ca-issuer", {
      metadata: { name: n.root },
      spec: { ca: { secretName: n.root } },
    });
    new Certificate(this, "intermediate", {
      metadata: {
        name: n.intermediate,
        namespace: props.namespace,
        // Pulumi waits until cert-manager has written it, so istio-csr's first request is signed.
        annotations: { [waitForAnnotation]: "condition=Ready" },
      },
      spec: {
        secretName: n.intermediate,
        issuerRef: { name: n.root, kind: "ClusterIssuer", group: "cert-manager.io" },
        isCA: true,
        commonName: `istio-intermediate-ca.${domain}`,
        // A year, renewed a month early with a new key: workloads trust the root, so a new intermediate
        // changes nothing they verify, and a leaked intermediate key is worthless within a year.
        duration: "8760h0m0s",
        renewBefore: "720h0m0s",
        privateKey: { algorithm: "ECDSA", size: 256, rotationPolicy: "Always" },
        usages: ["cert sign", "crl sign"],
      },
    });
    new Issuer(this, "ca-issuer", {
      metadata: { name: n.issuer, namespace: props.namespace },
      spec: { ca: { secretName: n.intermediate } },
    });
    new Bundle(this, "trust-roots", {
      metadata: {
        name: n.trustRoots,
        // Pulumi waits until trust-manager has written the ConfigMap istio-csr mounts.
        annotations: { [waitForAnnotation]: "condition=Synced" },
      },
      spec: {
        sources: [
          { secret: { name: n.root, key: "tls.crt" } },
          // Only during a rotation: a missing source would stop trust-manager from writing the target.
          ...(props.previousTrustAnchor ? [{ secret: { name: n.previousRoot, key: "tls.crt" } }] : []),
        ],
        target: {
          configMap: { key: n.trustRootsKey },
          // Only istio-csr's namespace, which is trust-manager's trust namespace.
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": props.trustNamespace } },
        },
      },
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
 * Lets a Google load balancer reach an app's port under STRICT mesh mTLS, and nothing else in plain
 * text: the load balancer sends to pods through NEGs and is not in the mesh, so that one port accepts
 * plain traffic (a port-level PERMISSIVE PeerAuthentication), and a DENY AuthorizationPolicy refuses
 * plain traffic on it from any source but the load balancers' (`notPrincipals: ["*"]` matches a request
 * without a mesh identity; both are L4 attributes, so sidecars and ztunnel enforce it alike).
 */
export class LoadBalancerPort extends Construct {
  constructor(
    scope: Construct,
    id: string,
    props: {
      readonly app: string;
      readonly namespace: string;
      readonly port: number;
      readonly sources: readonly string[];
    },
  ) {
    super(scope, id);
    const selector = { matchLabels: { "app.kubernetes.io/name": props.app } };
    new PeerAuthentication(this, "permissive", {
      metadata: { name: `${props.app}-load-balancer`, namespace: props.namespace },
      spec: { selector, portLevelMtls: { [String(props.port)]: { mode: "PERMISSIVE" } } },
    });
    new ApiObject(this, "only-load-balancers", {
      apiVersion: "security.istio.io/v1",
      kind: "AuthorizationPolicy",
      metadata: { name: `${props.app}-load-balancer`, namespace: props.namespace },
      spec: {
        selector,
        action: "DENY",
        rules: [
          {
            from: [{ source: { notPrincipals: ["*"], notIpBlocks: [...props.sources] } }],
            to: [{ operation: { ports: [String(props.port)] } }],
          },
        ],
      },
    });
  }
}

/** Lets selected pods accept plain traffic on every port under a STRICT mesh (a workload PeerAuthentication). */
export class PermissivePods extends PeerAuthentication {
  constructor(
    scope: Construct,
    id: string,
    props: {
      readonly name: string;
      readonly namespace: string;
      readonly podSelector: Record<string, string>;
    },
  ) {
    super(scope, id, {
      metadata: { name: props.name, namespace: props.namespace },
      spec: { selector: { matchLabels: props.podSelector }, mtls: { mode: "PERMISSIVE" } },
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
export const istioScrapeOptOut = { [istioFacts.scrapeIgnoreLabel]: "true" } as const;

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
            name: istioProxyMonitorNames.operator,
            namespace: ns,
            labels: { monitoring: "istio-proxies", ...props.selectorLabels },
          },
          spec: {
            selector: { matchExpressions: [{ key: istioFacts.scrapeIgnoreLabel, operator: "DoesNotExist" }] },
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
        metadata: { name: istioProxyMonitorNames.managed },
        spec: {
          // Every injected pod carries this label (the sidecar injector template); an app scraped by its own
          // monitor (metrics merging) is skipped, as Istio's own envoy-stats-monitor skips it.
          selector: {
            matchExpressions: [
              { key: "security.istio.io/tlsMode", operator: "Exists" },
              { key: istioFacts.scrapeIgnoreLabel, operator: "DoesNotExist" },
            ],
          },
          endpoints: [
            { port: istioFacts.proxyMetricsPort, path: istioFacts.proxyMetricsPath, interval: "15s" },
          ],
        },
      });
  }
}

/** The relabel chain of Istio's envoy-stats-monitor sample, verbatim. */
const envoyRelabelings: RelabelConfig[] = [
  {
    action: "keep",
    sourceLabels: ["__meta_kubernetes_pod_container_name"],
    regex: istioFacts.proxyContainer,
  },
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
