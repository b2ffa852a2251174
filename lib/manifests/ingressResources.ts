import { ApiObject, type ApiObjectMetadata } from "cdk8s";
import type { Construct } from "constructs";

/**
 * Typed builders for the routing objects the platform emits: Gateway API (standard channel, v1),
 * GKE's policy CRDs (networking.gke.io/v1, gke-gateway-api fc40d60), GCE Ingress BackendConfig and
 * FrontendConfig (ingress-gce pkg/apis), and Traefik's traefik.io/v1alpha1 (chart 41.3.0).
 */

type Props<S> = { metadata: ApiObjectMetadata; spec: S };

function object<S>(
  scope: Construct,
  id: string,
  apiVersion: string,
  kind: string,
  props: Props<S>,
): ApiObject {
  return new ApiObject(scope, id, { apiVersion, kind, metadata: props.metadata, spec: props.spec });
}

// ---------- gateway.networking.k8s.io/v1 ----------

export interface ParentRef {
  readonly name: string;
  readonly namespace?: string;
  readonly sectionName?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly port?: number;
}

export interface GatewayListener {
  readonly name: string;
  readonly protocol: "HTTP" | "HTTPS";
  readonly port: number;
  readonly hostname?: string;
  readonly tls?: { readonly mode: "Terminate"; readonly options?: Record<string, string> };
  readonly allowedRoutes?: {
    readonly namespaces: {
      readonly from: "All" | "Same" | "Selector";
      readonly selector?: { readonly matchLabels: Record<string, string> };
    };
  };
}

export interface GatewaySpec {
  readonly gatewayClassName: string;
  readonly addresses?: readonly { readonly type: "NamedAddress"; readonly value: string }[];
  readonly listeners: readonly GatewayListener[];
}

export const gatewayApiVersion = "gateway.networking.k8s.io/v1";

export function gateway(scope: Construct, id: string, props: Props<GatewaySpec>): ApiObject {
  return object(scope, id, gatewayApiVersion, "Gateway", props);
}

export interface HTTPRouteMatch {
  readonly path?: { readonly type: "PathPrefix" | "Exact"; readonly value: string };
  readonly method?: string;
  readonly headers?: readonly { readonly name: string; readonly value: string; readonly type?: "Exact" }[];
}

export interface HTTPRouteFilter {
  readonly type: "RequestRedirect" | "URLRewrite";
  readonly requestRedirect?: { readonly scheme?: "https"; readonly statusCode?: 301 | 302 };
  readonly urlRewrite?: {
    readonly path: { readonly type: "ReplacePrefixMatch"; readonly replacePrefixMatch: string };
  };
}

export interface HTTPBackendRef {
  readonly name: string;
  readonly port: number;
  readonly weight?: number;
  readonly group?: string;
  readonly kind?: string;
}

export interface HTTPRouteRule {
  readonly matches?: readonly HTTPRouteMatch[];
  readonly filters?: readonly HTTPRouteFilter[];
  readonly backendRefs?: readonly HTTPBackendRef[];
  readonly timeouts?: { readonly request?: string; readonly backendRequest?: string };
}

export interface HTTPRouteSpec {
  readonly parentRefs: readonly ParentRef[];
  readonly hostnames?: readonly string[];
  readonly rules: readonly HTTPRouteRule[];
}

export function httpRoute(scope: Construct, id: string, props: Props<HTTPRouteSpec>): ApiObject {
  return object(scope, id, gatewayApiVersion, "HTTPRoute", props);
}

// ---------- networking.gke.io/v1: GKE Gateway policies ----------

export interface PolicyTargetRef {
  readonly group: string;
  readonly kind: string;
  readonly name: string;
}

export function gcpGatewayPolicy(
  scope: Construct,
  id: string,
  props: Props<{ targetRef: PolicyTargetRef; default: { sslPolicy?: string; allowGlobalAccess?: boolean } }>,
): ApiObject {
  return object(scope, id, "networking.gke.io/v1", "GCPGatewayPolicy", props);
}

export interface HealthCheckPolicySpec {
  readonly targetRef: PolicyTargetRef;
  readonly default: {
    readonly checkIntervalSec?: number;
    readonly timeoutSec?: number;
    readonly healthyThreshold?: number;
    readonly unhealthyThreshold?: number;
    readonly config: {
      readonly type: "HTTP";
      readonly httpHealthCheck: {
        readonly portSpecification: "USE_FIXED_PORT" | "USE_NAMED_PORT" | "USE_SERVING_PORT";
        readonly port?: number;
        readonly requestPath: string;
      };
    };
    readonly logConfig?: { readonly enabled: boolean };
  };
}

export function healthCheckPolicy(
  scope: Construct,
  id: string,
  props: Props<HealthCheckPolicySpec>,
): ApiObject {
  return object(scope, id, "networking.gke.io/v1", "HealthCheckPolicy", props);
}

export interface GCPBackendPolicySpec {
  readonly targetRef: PolicyTargetRef;
  readonly default: {
    readonly timeoutSec?: number;
    readonly connectionDraining?: { readonly drainingTimeoutSec: number };
    /** `sampleRate` in millionths (0 to 1000000), only with logging enabled. */
    readonly logging?: { readonly enabled: boolean; readonly sampleRate?: number };
    /** A Cloud Armor security policy name. */
    readonly securityPolicy?: string;
  };
}

export function gcpBackendPolicy(
  scope: Construct,
  id: string,
  props: Props<GCPBackendPolicySpec>,
): ApiObject {
  return object(scope, id, "networking.gke.io/v1", "GCPBackendPolicy", props);
}

// ---------- GCE Ingress: cloud.google.com/v1 BackendConfig, networking.gke.io/v1beta1 FrontendConfig ----------

export interface BackendConfigSpec {
  readonly timeoutSec?: number;
  readonly connectionDraining?: { readonly drainingTimeoutSec: number };
  /** `sampleRate` from 0 to 1. */
  readonly logging?: { readonly enable: boolean; readonly sampleRate?: number };
  readonly securityPolicy?: { readonly name: string };
  readonly healthCheck?: {
    readonly type: "HTTP";
    readonly requestPath: string;
    readonly port?: number;
    readonly checkIntervalSec?: number;
    readonly timeoutSec?: number;
  };
}

export function backendConfig(scope: Construct, id: string, props: Props<BackendConfigSpec>): ApiObject {
  return object(scope, id, "cloud.google.com/v1", "BackendConfig", props);
}

export interface FrontendConfigSpec {
  readonly sslPolicy?: string;
  readonly redirectToHttps?: {
    readonly enabled: boolean;
    readonly responseCodeName?: "MOVED_PERMANENTLY_DEFAULT";
  };
}

export function frontendConfig(scope: Construct, id: string, props: Props<FrontendConfigSpec>): ApiObject {
  return object(scope, id, "networking.gke.io/v1beta1", "FrontendConfig", props);
}

/** networking.gke.io/v1 ManagedCertificate: a Google-managed certificate for GCE Ingress (not Gateway). */
export function managedCertificate(
  scope: Construct,
  id: string,
  props: Props<{ domains: readonly string[] }>,
): ApiObject {
  return object(scope, id, "networking.gke.io/v1", "ManagedCertificate", props);
}

// ---------- traefik.io/v1alpha1 ----------

export interface TraefikRouteService {
  readonly name: string;
  readonly port: number;
  /** Route to the Service's cluster IP, not pod endpoints, so a mesh proxy balances per request. */
  readonly nativeLB?: boolean;
  readonly serversTransport?: string;
}

export interface IngressRouteSpec {
  readonly entryPoints: readonly string[];
  readonly routes: readonly {
    readonly match: string;
    readonly kind: "Rule";
    readonly services: readonly TraefikRouteService[];
    readonly middlewares?: readonly { readonly name: string; readonly namespace?: string }[];
  }[];
  readonly tls?: { readonly secretName: string };
}

export function ingressRoute(scope: Construct, id: string, props: Props<IngressRouteSpec>): ApiObject {
  return object(scope, id, "traefik.io/v1alpha1", "IngressRoute", props);
}

export interface MiddlewareSpec {
  readonly headers?: { readonly customRequestHeaders: Record<string, string> };
  readonly stripPrefix?: { readonly prefixes: readonly string[] };
}

export function middleware(scope: Construct, id: string, props: Props<MiddlewareSpec>): ApiObject {
  return object(scope, id, "traefik.io/v1alpha1", "Middleware", props);
}

export function serversTransport(
  scope: Construct,
  id: string,
  props: Props<{ forwardingTimeouts: { responseHeaderTimeout: string } }>,
): ApiObject {
  return object(scope, id, "traefik.io/v1alpha1", "ServersTransport", props);
}
