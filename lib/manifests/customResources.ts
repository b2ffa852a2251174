import { ApiObject, type ApiObjectMetadata } from "cdk8s";
import type { Construct } from "constructs";
import { istioFacts, linkerdFacts } from "../versions";

/**
 * Typed builders for the custom resources the platform emits that have no published cdk8s classes.
 * Field names follow the upstream CRDs at the pinned versions (cert-manager v1.21.2, trust-manager
 * v0.24.0, Prometheus Operator v0.93.0, Managed Service for Prometheus v0.17.2, linkerd-crds
 * edge-26.8.3); the tests check
 * emitted objects against those CRDs where the reference copies are available.
 */

/** Makes Pulumi wait until the object reports this condition (pulumi-kubernetes `pulumi.com/waitFor`). */
export const waitForAnnotation = "pulumi.com/waitFor";

// ---------- cert-manager.io/v1 ----------

export interface IssuerRef {
  readonly name: string;
  readonly kind: "ClusterIssuer" | "Issuer";
  readonly group?: "cert-manager.io";
}

export interface CertificateSpec {
  readonly secretName: string;
  readonly issuerRef: IssuerRef;
  readonly isCA?: boolean;
  readonly commonName?: string;
  readonly dnsNames?: readonly string[];
  /** Go duration, e.g. `48h0m0s`. */
  readonly duration?: string;
  readonly renewBefore?: string;
  readonly privateKey?: {
    readonly algorithm: "ECDSA" | "RSA" | "Ed25519";
    readonly size?: number;
    readonly rotationPolicy?: "Always" | "Never";
  };
  readonly usages?: readonly string[];
}

export class Certificate extends ApiObject {
  constructor(scope: Construct, id: string, props: { metadata: ApiObjectMetadata; spec: CertificateSpec }) {
    super(scope, id, {
      apiVersion: "cert-manager.io/v1",
      kind: "Certificate",
      metadata: props.metadata,
      spec: props.spec,
    });
  }
}

export interface AcmeSolver {
  readonly http01?: {
    readonly ingress: {
      /** The solver Ingress's spec.ingressClassName; or */
      readonly ingressClassName?: string;
      /** its kubernetes.io/ingress.class annotation (pkg/issuer/acme/http/ingress.go at v1.21.2). */
      readonly class?: string;
      /** Metadata merged into the solver pods cert-manager creates. */
      readonly podTemplate?: {
        readonly metadata: {
          readonly labels?: Readonly<Record<string, string>>;
          readonly annotations?: Readonly<Record<string, string>>;
        };
      };
    };
  };
  readonly dns01?: { readonly cloudDNS: { readonly project: string } };
}

export interface ClusterIssuerSpec {
  readonly selfSigned?: Record<string, never>;
  readonly ca?: { readonly secretName: string };
  readonly acme?: {
    readonly server: string;
    readonly email: string;
    readonly privateKeySecretRef: { readonly name: string };
    readonly solvers: readonly AcmeSolver[];
  };
}

export class ClusterIssuer extends ApiObject {
  constructor(scope: Construct, id: string, props: { metadata: ApiObjectMetadata; spec: ClusterIssuerSpec }) {
    super(scope, id, {
      apiVersion: "cert-manager.io/v1",
      kind: "ClusterIssuer",
      metadata: props.metadata,
      spec: props.spec,
    });
  }
}

/** A namespaced cert-manager Issuer: the same spec as a ClusterIssuer, in one namespace. */
export class Issuer extends ApiObject {
  constructor(scope: Construct, id: string, props: { metadata: ApiObjectMetadata; spec: ClusterIssuerSpec }) {
    super(scope, id, {
      apiVersion: "cert-manager.io/v1",
      kind: "Issuer",
      metadata: props.metadata,
      spec: props.spec,
    });
  }
}

// ---------- trust.cert-manager.io/v1alpha1 ----------

export interface BundleSpec {
  /**
   * Secrets in trust-manager's trust namespace. Never `useDefaultCAs`: the platform runs trust-manager
   * without its default CA package (lib/addons/certManager.ts), so such a Bundle would never sync.
   */
  readonly sources: readonly { readonly secret?: { readonly name: string; readonly key: string } }[];
  readonly target: {
    readonly configMap?: { readonly key: string };
    readonly namespaceSelector?: { readonly matchLabels: Record<string, string> };
  };
}

/** trust-manager's cluster-scoped Bundle (v0.24.0 ships only this; ClusterBundle is not wired yet). */
export class Bundle extends ApiObject {
  constructor(scope: Construct, id: string, props: { metadata: ApiObjectMetadata; spec: BundleSpec }) {
    super(scope, id, {
      apiVersion: "trust.cert-manager.io/v1alpha1",
      kind: "Bundle",
      metadata: props.metadata,
      spec: props.spec,
    });
  }
}

/** A Kubernetes label selector. */
export interface LabelSelector {
  readonly matchLabels?: Record<string, string>;
  readonly matchExpressions?: readonly {
    readonly key: string;
    readonly operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
    readonly values?: readonly string[];
  }[];
}

// ---------- monitoring.coreos.com/v1 ----------

export interface RelabelConfig {
  readonly sourceLabels?: readonly string[];
  readonly separator?: string;
  readonly targetLabel?: string;
  readonly regex?: string;
  readonly replacement?: string;
  readonly action?: "replace" | "keep" | "drop" | "labelmap" | "labeldrop" | "labelkeep" | "hashmod";
}

export interface PodMetricsEndpoint {
  readonly port?: string;
  readonly honorTimestamps?: boolean;
  readonly path?: string;
  readonly interval?: string;
  readonly scrapeTimeout?: string;
  readonly relabelings?: readonly RelabelConfig[];
}

export interface PodMonitorSpec {
  readonly selector: LabelSelector;
  readonly namespaceSelector?: { readonly any?: boolean; readonly matchNames?: readonly string[] };
  readonly jobLabel?: string;
  readonly podMetricsEndpoints: readonly PodMetricsEndpoint[];
}

export class PodMonitor extends ApiObject {
  constructor(scope: Construct, id: string, props: { metadata: ApiObjectMetadata; spec: PodMonitorSpec }) {
    super(scope, id, {
      apiVersion: "monitoring.coreos.com/v1",
      kind: "PodMonitor",
      metadata: props.metadata,
      spec: props.spec,
    });
  }
}

export interface ServiceMonitorSpec {
  readonly selector: LabelSelector;
  readonly namespaceSelector?: { readonly any?: boolean; readonly matchNames?: readonly string[] };
  readonly jobLabel?: string;
  readonly targetLabels?: readonly string[];
  readonly endpoints: readonly {
    readonly port: string;
    readonly interval?: string;
    readonly path?: string;
  }[];
}

export class ServiceMonitor extends ApiObject {
  constructor(
    scope: Construct,
    id: string,
    props: { metadata: ApiObjectMetadata; spec: ServiceMonitorSpec },
  ) {
    super(scope, id, {
      apiVersion: "monitoring.coreos.com/v1",
      kind: "ServiceMonitor",
      metadata: props.metadata,
      spec: props.spec,
    });
  }
}

// ---------- Istio's security API (istio base 1.30.3) ----------

export type MtlsMode = "STRICT" | "PERMISSIVE";

export interface PeerAuthenticationSpec {
  readonly selector?: { readonly matchLabels: Record<string, string> };
  readonly mtls?: { readonly mode: MtlsMode };
  readonly portLevelMtls?: Readonly<Record<string, { readonly mode: MtlsMode }>>;
}

export class PeerAuthentication extends ApiObject {
  constructor(
    scope: Construct,
    id: string,
    props: { metadata: ApiObjectMetadata; spec: PeerAuthenticationSpec },
  ) {
    super(scope, id, {
      apiVersion: istioFacts.peerAuthenticationApiVersion,
      kind: "PeerAuthentication",
      metadata: props.metadata,
      spec: props.spec,
    });
  }
}

// ---------- monitoring.googleapis.com/v1 (Managed Service for Prometheus) ----------

export interface PodMonitoringEndpoint {
  readonly port: string | number;
  readonly interval: string;
  readonly path?: string;
  readonly timeout?: string;
}

export interface PodMonitoringSpec {
  readonly selector: LabelSelector;
  readonly endpoints: readonly PodMonitoringEndpoint[];
  readonly targetLabels?: {
    readonly metadata?: readonly string[];
    /** Pod labels copied onto every target, as `to` (default: the same name). */
    readonly fromPod?: readonly { readonly from: string; readonly to?: string }[];
  };
}

/**
 * The pod metadata a monitor's series carry where it names none: the CRD's own default, which the API
 * server applies only inside a `targetLabels` the object has; without one the operator adds no pod
 * label at all (prometheus-engine pod_config.go at v0.17.2), unlike a PodMonitor's series.
 */
const defaultTargetMetadata = ["container", "pod", "top_level_controller_name", "top_level_controller_type"];

/** Namespaced: selects pods in its own namespace. */
export class PodMonitoring extends ApiObject {
  constructor(scope: Construct, id: string, props: { metadata: ApiObjectMetadata; spec: PodMonitoringSpec }) {
    super(scope, id, {
      apiVersion: "monitoring.googleapis.com/v1",
      kind: "PodMonitoring",
      metadata: props.metadata,
      spec: { ...props.spec, targetLabels: props.spec.targetLabels ?? { metadata: defaultTargetMetadata } },
    });
  }
}

/** Cluster-scoped: selects pods in every namespace. */
export class ClusterPodMonitoring extends ApiObject {
  constructor(scope: Construct, id: string, props: { metadata: ApiObjectMetadata; spec: PodMonitoringSpec }) {
    super(scope, id, {
      apiVersion: "monitoring.googleapis.com/v1",
      kind: "ClusterPodMonitoring",
      metadata: props.metadata,
      spec: {
        ...props.spec,
        targetLabels: props.spec.targetLabels ?? { metadata: ["namespace", ...defaultTargetMetadata] },
      },
    });
  }
}

// ---------- policy.linkerd.io (linkerd-crds edge-26.8.3) ----------

/** A reference to a Kubernetes object by group, kind and name (Linkerd's targetRef). */
export interface LinkerdRef {
  readonly group?: string;
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

export interface LinkerdServerSpec {
  /** Pods of the Server's namespace; empty matchLabels selects them all. */
  readonly podSelector: LabelSelector;
  /** A port name or number of the pods. */
  readonly port: number | string;
  /** What happens to traffic no policy authorizes. */
  /** The values of the chart's proxy.defaultInboundPolicy (linkerd-control-plane values.yaml). */
  readonly accessPolicy?:
    | "deny"
    | "audit"
    | "all-unauthenticated"
    | "all-authenticated"
    | "cluster-authenticated"
    | "cluster-unauthenticated";
  readonly proxyProtocol?: "unknown" | "HTTP/1" | "HTTP/2" | "gRPC" | "opaque" | "TLS";
}

export class LinkerdServer extends ApiObject {
  constructor(scope: Construct, id: string, props: { metadata: ApiObjectMetadata; spec: LinkerdServerSpec }) {
    super(scope, id, {
      apiVersion: linkerdFacts.policyApiVersions.Server,
      kind: "Server",
      metadata: props.metadata,
      spec: props.spec,
    });
  }
}

export interface LinkerdAuthorizationPolicySpec {
  /** A Server, an HTTPRoute or the Namespace. */
  readonly targetRef: LinkerdRef;
  /** All of them must be satisfied. */
  readonly requiredAuthenticationRefs: readonly LinkerdRef[];
}

export class LinkerdAuthorizationPolicy extends ApiObject {
  constructor(
    scope: Construct,
    id: string,
    props: { metadata: ApiObjectMetadata; spec: LinkerdAuthorizationPolicySpec },
  ) {
    super(scope, id, {
      apiVersion: linkerdFacts.policyApiVersions.AuthorizationPolicy,
      kind: "AuthorizationPolicy",
      metadata: props.metadata,
      spec: props.spec,
    });
  }
}

/** Clients by mesh identity: service accounts (identityRefs) or identity strings. */
export interface MeshTLSAuthenticationSpec {
  readonly identityRefs?: readonly LinkerdRef[];
  readonly identities?: readonly string[];
}

export class MeshTLSAuthentication extends ApiObject {
  constructor(
    scope: Construct,
    id: string,
    props: { metadata: ApiObjectMetadata; spec: MeshTLSAuthenticationSpec },
  ) {
    super(scope, id, {
      apiVersion: linkerdFacts.policyApiVersions.MeshTLSAuthentication,
      kind: "MeshTLSAuthentication",
      metadata: props.metadata,
      spec: props.spec,
    });
  }
}

/** Clients by source address, meshed or not. */
export interface NetworkAuthenticationSpec {
  readonly networks: readonly { readonly cidr: string; readonly except?: readonly string[] }[];
}

export class NetworkAuthentication extends ApiObject {
  constructor(
    scope: Construct,
    id: string,
    props: { metadata: ApiObjectMetadata; spec: NetworkAuthenticationSpec },
  ) {
    super(scope, id, {
      apiVersion: linkerdFacts.policyApiVersions.NetworkAuthentication,
      kind: "NetworkAuthentication",
      metadata: props.metadata,
      spec: props.spec,
    });
  }
}

// ---------- alerting rules: monitoring.coreos.com/v1 PrometheusRule, monitoring.googleapis.com/v1 ClusterRules ----------

/** One alerting rule, as both Prometheus Operator and Managed Service for Prometheus write it. */
export interface AlertRule {
  readonly alert: string;
  /** The PromQL expression; the alert fires for each series it returns. */
  readonly expr: string;
  /** How long the expression must hold first (a Prometheus duration). */
  readonly for: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

export interface RuleGroupSpec {
  readonly name: string;
  readonly interval?: string;
  readonly rules: readonly AlertRule[];
}

/** Prometheus Operator's PrometheusRule (spec.groups[].rules[]: alert, expr, for, labels, annotations). */
export class PrometheusRule extends ApiObject {
  constructor(
    scope: Construct,
    id: string,
    props: { metadata: ApiObjectMetadata; spec: { groups: readonly RuleGroupSpec[] } },
  ) {
    super(scope, id, {
      apiVersion: "monitoring.coreos.com/v1",
      kind: "PrometheusRule",
      metadata: props.metadata,
      spec: props.spec,
    });
  }
}

/**
 * Managed Service for Prometheus' cluster-scoped rules: queries see the whole cluster's series
 * (prometheus-engine v0.17.2 pkg/operator/apis/monitoring/v1/rules_types.go: spec.groups[] of name,
 * interval, rules[] of record or alert, expr, for, labels, annotations).
 */
export class ClusterRules extends ApiObject {
  constructor(
    scope: Construct,
    id: string,
    props: { metadata: ApiObjectMetadata; spec: { groups: readonly RuleGroupSpec[] } },
  ) {
    super(scope, id, {
      apiVersion: "monitoring.googleapis.com/v1",
      kind: "ClusterRules",
      metadata: props.metadata,
      spec: props.spec,
    });
  }
}
