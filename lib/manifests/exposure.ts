import { ApiObject } from "cdk8s";
import { Construct } from "constructs";
import { gkeAnnotations } from "../versions";
import { Certificate } from "./customResources";
import {
  backendConfig,
  frontendConfig,
  gcpBackendPolicy,
  healthCheckPolicy,
  httpRoute,
  ingressRoute,
  managedCertificate,
  middleware,
  serversTransport,
} from "./ingressResources";

/** The same ways of exposing an app that the environment config names (config ExposurePath). */
type ExposurePath = "gke-gateway" | "traefik" | "ingress-nginx" | "gce-ingress";

/** One app, exposed once: the platform derives every object each way of exposing it needs. */
export interface Exposure {
  /** The app, its Service and every object derived for it share this name. */
  readonly name: string;
  readonly namespace: string;
  /** Service port, the same as the container port. */
  readonly port: number;
  readonly host: string;
  readonly path: string;
  /** Every way the Service is exposed; two during a migration. */
  readonly via: readonly ExposurePath[];
  readonly timeoutSeconds: number;
  /** Readiness path the load balancers health-check. */
  readonly healthCheckPath: string;
  readonly stripPrefix: boolean;
  readonly methods?: readonly string[];
  /** A Cloud Armor security policy in front of the app on Google's load balancers. */
  readonly securityPolicy?: string;
}

/** How an in-cluster ingress controller's requests reach an app, as the environment's mesh needs them. */
export interface IngressBackend {
  /** Send to the Service's cluster IP, so the controller's mesh proxy (not the controller) balances. */
  readonly serviceClusterIp: boolean;
  /** Rewrite the Host header to the Service's cluster name, by which the mesh recognises the destination. */
  readonly serviceHostHeader: boolean;
}

/** What the exposure objects refer to outside the app's namespace. */
export interface ExposureContext {
  /** How Traefik and ingress-nginx send to the app (the mesh's `ingressBackend`). */
  readonly backend: IngressBackend;
  /** The shared GKE Gateway and its HTTPS listener. */
  readonly gateway: { readonly name: string; readonly namespace: string };
  readonly drainingTimeoutSeconds: number;
  /** Request logs of Google's load balancers: the share of requests logged, 0 to 1; absent: off. */
  readonly requestLogSampleRate?: number;
  /** Health-check logs of GKE Gateway backends (changes of health only). @default false */
  readonly healthCheckLogging?: boolean;
  /** ClusterIssuer that issues certificates for Traefik and ingress-nginx. */
  readonly acmeIssuer?: string;
  /** GCE Ingress: SSL policy, certificates, and the static IP name per app (absent: ephemeral). */
  readonly gce: {
    readonly sslPolicy: string;
    readonly tls: { readonly mode: "managed" | "pre-shared"; readonly certificates: readonly string[] };
    readonly staticIpName?: (e: Exposure) => string;
  };
}

/** The Service's in-cluster name, which meshes recognise as its identity. */
export function serviceHost(e: Pick<Exposure, "name" | "namespace">): string {
  return `${e.name}.${e.namespace}.svc.cluster.local`;
}

/**
 * The one `cloud.google.com/neg` value for a Service, from every way it is exposed. GCE Ingress
 * reads only `ingress: true`; GKE Gateway uses standalone NEGs on `exposed_ports`. Written always,
 * as the union, so a Service moved between them, or served by both during a migration, never keeps a
 * value only the other understands (the "expected NodePort or LoadBalancer" failure of GCE Ingress).
 */
export function negAnnotation(via: readonly ExposurePath[], port: number): string {
  const value: { ingress: boolean; exposed_ports?: Record<string, Record<string, never>> } = {
    // Also GKE's own default for new Services on VPC-native clusters; written out so the platform owns the field.
    ingress: true,
  };
  if (via.includes("gke-gateway")) value.exposed_ports = { [String(port)]: {} };
  return JSON.stringify(value);
}

/** What an app's Service needs to know: its name, port and every way it is exposed (none: in-cluster only). */
export type ServicedApp = Pick<Exposure, "name" | "namespace" | "port" | "via">;

/** Annotations of an app's Service. */
export function serviceAnnotations(e: ServicedApp): Record<string, string> {
  return {
    [gkeAnnotations.neg]: negAnnotation(e.via, e.port),
    ...(e.via.includes("gce-ingress")
      ? { [gkeAnnotations.backendConfig]: JSON.stringify({ default: e.name }) }
      : {}),
  };
}

/** The app's Service, selecting its pods by `app.kubernetes.io/name`, annotated for every way it is exposed. */
export class AppService extends ApiObject {
  constructor(scope: Construct, id: string, e: ServicedApp) {
    super(scope, id, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: e.name, namespace: e.namespace, annotations: serviceAnnotations(e) },
      spec: {
        type: "ClusterIP",
        selector: { "app.kubernetes.io/name": e.name },
        // Numeric port: Linkerd and Istio route by Service port (linkerd using-ingress.md: "numeric servicePort only").
        ports: [{ name: "http", port: e.port, targetPort: e.port, protocol: "TCP", appProtocol: "http" }],
      },
    });
  }
}

/** Every object that exposes one app, for each way in `via`. */
export class Exposed extends Construct {
  constructor(scope: Construct, id: string, e: Exposure, edge: ExposureContext) {
    super(scope, id);
    for (const via of e.via) {
      switch (via) {
        case "gke-gateway":
          gkeGatewayObjects(this, e, edge);
          break;
        case "traefik":
          traefikObjects(this, e, edge);
          break;
        case "ingress-nginx":
          nginxObjects(this, e, edge);
          break;
        case "gce-ingress":
          gceIngressObjects(this, e, edge);
          break;
      }
    }
  }
}

function meta(e: Exposure, name = e.name, extra: { annotations?: Record<string, string> } = {}) {
  return { name, namespace: e.namespace, ...extra };
}

const serviceTarget = (e: Exposure) => ({ group: "", kind: "Service", name: e.name });

/** HTTPRoute on the shared Gateway, with the GKE policies that carry what GKE's HTTPRoute lacks. */
function gkeGatewayObjects(scope: Construct, e: Exposure, edge: ExposureContext): void {
  httpRoute(scope, "gateway-route", {
    metadata: meta(e),
    spec: {
      parentRefs: [{ name: edge.gateway.name, namespace: edge.gateway.namespace, sectionName: "https" }],
      hostnames: [e.host],
      // No rules[].timeouts: GKE does not implement them; GCPBackendPolicy.timeoutSec below does the job.
      rules: [
        {
          matches: [{ path: { type: "PathPrefix", value: e.path } }],
          backendRefs: [{ name: e.name, port: e.port }],
        },
      ],
    },
  });
  healthCheckPolicy(scope, "gateway-health", {
    metadata: meta(e),
    spec: {
      targetRef: serviceTarget(e),
      default: {
        checkIntervalSec: 5,
        timeoutSec: 5,
        healthyThreshold: 2,
        unhealthyThreshold: 2,
        // GKE's CRD allows `port` only with USE_FIXED_PORT (CEL rule); the readiness path decides health.
        config: {
          type: "HTTP",
          httpHealthCheck: {
            portSpecification: "USE_FIXED_PORT",
            port: e.port,
            requestPath: e.healthCheckPath,
          },
        },
        logConfig: { enabled: edge.healthCheckLogging ?? false },
      },
    },
  });
  const rate = edge.requestLogSampleRate;
  gcpBackendPolicy(scope, "gateway-backend", {
    metadata: meta(e),
    spec: {
      targetRef: serviceTarget(e),
      default: {
        timeoutSec: e.timeoutSeconds,
        // A pod leaving the NEG (not ready, or terminating) keeps finishing its requests but gets no new ones.
        connectionDraining: { drainingTimeoutSec: edge.drainingTimeoutSeconds },
        // Explicit either way, so turning it off turns it off. The CRD takes millionths (gke-gateway-api networking.gke.io_gcpbackendpolicies.yaml).
        logging:
          rate !== undefined
            ? { enabled: true, sampleRate: Math.round(rate * 1_000_000) }
            : { enabled: false },
        ...(e.securityPolicy ? { securityPolicy: e.securityPolicy } : {}),
      },
    },
  });
}

/** A cert-manager Certificate for the host, from the ACME ClusterIssuer. */
function tlsCertificate(scope: Construct, e: Exposure, edge: ExposureContext): string {
  const secretName = `${e.name}-tls`;
  if (!edge.acmeIssuer)
    throw new Error(`exposing ${e.name} through an in-cluster ingress needs an ACME issuer`);
  new Certificate(scope, "certificate", {
    metadata: meta(e, secretName),
    spec: {
      secretName,
      dnsNames: [e.host],
      issuerRef: { name: edge.acmeIssuer, kind: "ClusterIssuer", group: "cert-manager.io" },
    },
  });
  return secretName;
}

/**
 * Traefik IngressRoute, meshed the way the mesh needs: Traefik sends to the Service's cluster IP
 * (nativeLB), so the mesh proxy in Traefik's pod picks the endpoint per request; with Istio the Host
 * header names the Service, which Istio needs to recognise the destination.
 */
function traefikObjects(scope: Construct, e: Exposure, edge: ExposureContext): void {
  const secretName = tlsCertificate(scope, e, edge);
  const middlewares: { name: string }[] = [];
  if (e.stripPrefix && e.path !== "/") {
    middleware(scope, "strip-prefix", {
      metadata: meta(e, `${e.name}-strip-prefix`),
      spec: { stripPrefix: { prefixes: [e.path] } },
    });
    middlewares.push({ name: `${e.name}-strip-prefix` });
  }
  if (edge.backend.serviceHostHeader) {
    middleware(scope, "service-host", {
      metadata: meta(e, `${e.name}-service-host`),
      spec: { headers: { customRequestHeaders: { Host: serviceHost(e) } } },
    });
    middlewares.push({ name: `${e.name}-service-host` });
  }
  serversTransport(scope, "transport", {
    metadata: meta(e),
    spec: { forwardingTimeouts: { responseHeaderTimeout: `${e.timeoutSeconds}s` } },
  });
  const methods = e.methods ? ` && (${e.methods.map((m) => `Method(\`${m}\`)`).join(" || ")})` : "";
  ingressRoute(scope, "route", {
    metadata: meta(e),
    spec: {
      entryPoints: ["websecure"],
      routes: [
        {
          match: `Host(\`${e.host}\`) && PathPrefix(\`${e.path}\`)${methods}`,
          kind: "Rule",
          services: [
            { name: e.name, port: e.port, nativeLB: edge.backend.serviceClusterIp, serversTransport: e.name },
          ],
          ...(middlewares.length > 0 ? { middlewares } : {}),
        },
      ],
      tls: { secretName },
    },
  });
}

/** ingress-nginx Ingress: NGINX sends to the Service, so the mesh, not NGINX, balances requests. */
function nginxObjects(scope: Construct, e: Exposure, edge: ExposureContext): void {
  const secretName = tlsCertificate(scope, e, edge);
  const strip = e.stripPrefix && e.path !== "/";
  const annotations: Record<string, string> = {
    "nginx.ingress.kubernetes.io/service-upstream": "true",
    "nginx.ingress.kubernetes.io/proxy-read-timeout": String(e.timeoutSeconds),
    "nginx.ingress.kubernetes.io/proxy-send-timeout": String(e.timeoutSeconds),
    // The mesh identifies the destination by Host (Istio); NGINX would send the client's.
    ...(edge.backend.serviceHostHeader
      ? { "nginx.ingress.kubernetes.io/upstream-vhost": serviceHost(e) }
      : {}),
    ...(strip
      ? {
          "nginx.ingress.kubernetes.io/use-regex": "true",
          "nginx.ingress.kubernetes.io/rewrite-target": "/$2",
        }
      : {}),
  };
  new ApiObject(scope, "ingress", {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: meta(e, e.name, { annotations }),
    spec: {
      ingressClassName: "nginx",
      tls: [{ hosts: [e.host], secretName }],
      rules: [
        {
          host: e.host,
          http: {
            paths: [
              {
                path: strip ? `${e.path.replace(/\/$/, "")}(/|$)(.*)` : e.path,
                pathType: strip ? "ImplementationSpecific" : "Prefix",
                backend: { service: { name: e.name, port: { number: e.port } } },
              },
            ],
          },
        },
      ],
    },
  });
}

/**
 * GCE Ingress (the older GKE path, for migrations): container-native load balancing through the
 * Service's `ingress: true` NEGs, a BackendConfig with draining and the readiness health check, and a
 * FrontendConfig that redirects HTTP to HTTPS with the platform's SSL policy.
 */
function gceIngressObjects(scope: Construct, e: Exposure, edge: ExposureContext): void {
  const name = `${e.name}-gce`;
  backendConfig(scope, "backend-config", {
    metadata: meta(e),
    spec: {
      timeoutSec: e.timeoutSeconds,
      connectionDraining: { drainingTimeoutSec: edge.drainingTimeoutSeconds },
      healthCheck: {
        type: "HTTP",
        requestPath: e.healthCheckPath,
        port: e.port,
        checkIntervalSec: 5,
        timeoutSec: 5,
      },
      // BackendConfig takes the share as 0 to 1, where GCPBackendPolicy takes millionths (kubernetes/ingress-gce pkg/apis/backendconfig/v1/types.go).
      logging:
        edge.requestLogSampleRate !== undefined
          ? { enable: true, sampleRate: edge.requestLogSampleRate }
          : { enable: false },
      ...(e.securityPolicy ? { securityPolicy: { name: e.securityPolicy } } : {}),
    },
  });
  frontendConfig(scope, "frontend-config", {
    metadata: meta(e),
    spec: {
      sslPolicy: edge.gce.sslPolicy,
      redirectToHttps: { enabled: true, responseCodeName: "MOVED_PERMANENTLY_DEFAULT" },
    },
  });
  const tls: Record<string, string> =
    edge.gce.tls.mode === "managed"
      ? { [gkeAnnotations.managedCertificates]: e.name }
      : { [gkeAnnotations.preSharedCert]: edge.gce.tls.certificates.join(",") };
  if (edge.gce.tls.mode === "managed") {
    managedCertificate(scope, "managed-certificate", { metadata: meta(e), spec: { domains: [e.host] } });
  }
  new ApiObject(scope, "gce-ingress", {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: meta(e, name, {
      annotations: {
        [gkeAnnotations.ingressClass]: "gce",
        [gkeAnnotations.frontendConfig]: e.name,
        ...tls,
        ...(edge.gce.staticIpName ? { [gkeAnnotations.globalStaticIp]: edge.gce.staticIpName(e) } : {}),
      },
    }),
    spec: {
      rules: [
        {
          host: e.host,
          http: {
            paths: [
              {
                path: e.path,
                pathType: "Prefix",
                backend: { service: { name: e.name, port: { number: e.port } } },
              },
            ],
          },
        },
      ],
    },
  });
}
