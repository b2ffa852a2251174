import { ApiObject } from "cdk8s";
import { Construct } from "constructs";
import { images } from "../versions";
import { pathMatch } from "./paths";

/**
 * East-west traffic policy that reads the same on every mesh: routes are Gateway API HTTPRoutes whose
 * parent is a Service (the GAMMA mesh profile), which Linkerd and Istio both read from
 * `gateway.networking.k8s.io/v1`; the access intent (callers, methods, paths) is compiled to each
 * mesh's own objects by the mesh (lib/meshes/<mesh>/policy.ts). docs/mesh-policy.md shows the objects.
 */

const gatewayApiVersion = "gateway.networking.k8s.io/v1";
const appLabel = "app.kubernetes.io/name";

// ---------- routes ----------

export interface RouteBackend {
  /** A Service in the route's namespace. */
  readonly service: string;
  readonly port: number;
  readonly weight: number;
}

export interface MeshRouteSpec {
  readonly name: string;
  /** Any of these; none means every request. */
  readonly matches: readonly {
    readonly path?: string;
    readonly method?: string;
    readonly headers?: Readonly<Record<string, string>>;
  }[];
  readonly backends: readonly RouteBackend[];
  readonly timeouts?: { readonly request?: string; readonly backendRequest?: string };
  /** Only where the mesh reads retries (its `MeshPolicy.retryAnnotations`). */
  readonly retry?: { readonly on: readonly string[]; readonly attempts: number; readonly timeout?: string };
  readonly fault?: { readonly percent: number; readonly status: number };
}

export interface MeshRoutesProps {
  /** The annotations that carry a route's retries on the environment's mesh. */
  readonly retryAnnotations: (retry: NonNullable<MeshRouteSpec["retry"]>) => Record<string, string>;
  readonly namespace: string;
  /** The Service the routes attach to: calls to it, from anywhere in the mesh, follow them. */
  readonly service: string;
  readonly port: number;
  readonly routes: readonly MeshRouteSpec[];
  /** Name of the HTTPRoute that sends requests no route takes to the Service itself. */
  readonly restRouteName: string;
}

/** A route that takes every request: no matches, or a match on nothing but the path `/*`. */
function takesEverything(route: MeshRouteSpec): boolean {
  return (
    route.matches.length === 0 ||
    route.matches.some((m) => !m.method && !m.headers && (m.path === undefined || m.path === "/*"))
  );
}

/**
 * A Service's mesh routes, one HTTPRoute each (Linkerd's retry annotations apply to a whole HTTPRoute).
 * Once a route is attached to a Service, both meshes refuse requests no route matches (GAMMA,
 * gateway-api site/content/en/docs/mesh); so, unless a route takes every request, one more route
 * (`restRouteName`) sends the rest to the Service itself.
 */
export class MeshRoutes extends Construct {
  constructor(scope: Construct, id: string, props: MeshRoutesProps) {
    super(scope, id);
    const parent = { group: "", kind: "Service", name: props.service, port: props.port };
    for (const route of props.routes) {
      new ApiObject(this, route.name, {
        apiVersion: gatewayApiVersion,
        kind: "HTTPRoute",
        metadata: {
          name: `${props.service}-${route.name}`,
          namespace: props.namespace,
          annotations: route.retry ? props.retryAnnotations(route.retry) : undefined,
        },
        spec: {
          parentRefs: [parent],
          rules: [
            {
              matches: route.matches.length > 0 ? route.matches.map(httpRouteMatch) : undefined,
              backendRefs: backendRefs(route),
              timeouts: route.timeouts,
            },
          ],
        },
      });
    }
    if (props.routes.length > 0 && !props.routes.some(takesEverything)) {
      new ApiObject(this, "rest", {
        apiVersion: gatewayApiVersion,
        kind: "HTTPRoute",
        metadata: { name: props.restRouteName, namespace: props.namespace },
        spec: {
          parentRefs: [parent],
          rules: [{ backendRefs: [{ name: props.service, port: props.port }] }],
        },
      });
    }
  }
}

function httpRouteMatch(m: MeshRouteSpec["matches"][number]): Record<string, unknown> {
  return {
    path: m.path ? pathMatch(m.path) : undefined,
    method: m.method,
    headers: m.headers
      ? Object.entries(m.headers).map(([name, value]) => ({ type: "Exact", name, value }))
      : undefined,
  };
}

/**
 * The route's backends; with a fault, the injector gets `percent` of the requests and the others
 * share the rest in their own proportions, in ten-thousandths (Gateway API weights are relative and
 * at most 1,000,000). A backend with a weight keeps at least 1.
 */
function backendRefs(route: MeshRouteSpec): { name: string; port: number; weight: number }[] {
  const refs = route.backends.map((b) => ({ name: b.service, port: b.port, weight: b.weight }));
  const fault = route.fault;
  if (!fault) return refs;
  const total = refs.reduce((sum, r) => sum + r.weight, 0);
  const share = (w: number) =>
    w === 0 ? 0 : Math.max(1, Math.round((w / total) * (100 - fault.percent) * 100));
  return [
    ...refs.map((r) => ({ ...r, weight: share(r.weight) })),
    { name: faultInjectorName(fault.status), port: faultInjectorPort, weight: fault.percent * 100 },
  ];
}

// ---------- fault injection ----------

export const faultInjectorPort = 8080;
const faultHealthPort = 8081;

/** The Service that answers every request with `status`, one per status and namespace. */
export function faultInjectorName(status: number): string {
  return `fault-${status}`;
}

export interface FaultInjectorProps {
  /** Pod annotations that let any meshed caller in where the namespace denies by default. */
  readonly podAnnotations?: Readonly<Record<string, string>>;
  readonly namespace: string;
  readonly status: number;
}

/**
 * A fault injector's one pod as a namespace's quota counts it: NGINX answering one status needs little;
 * a rollout adds one pod (a Deployment's default maxSurge, 25% of one replica, rounds up to 1).
 */
export const faultInjectorPodShape = {
  replicas: 1,
  cpuRequestMillis: 10,
  memoryRequestMi: 16,
  memoryLimitMi: 64,
  rolloutSurge: 1,
} as const;

/**
 * A backend that fails on purpose: NGINX answering every request on port 8080 with one status, for
 * routes to send a share of their requests to. It takes calls from any meshed client even where the
 * namespace denies by default, so callers see the injected status and not a policy refusal.
 */
export class FaultInjector extends Construct {
  constructor(scope: Construct, id: string, props: FaultInjectorProps) {
    super(scope, id);
    const name = faultInjectorName(props.status);
    const labels = { [appLabel]: name };
    const metadata = { name, namespace: props.namespace, labels };
    const conf = [
      "pid /tmp/nginx.pid;",
      "events {}",
      "http {",
      "  access_log off;",
      "  client_body_temp_path /tmp/body;",
      "  proxy_temp_path /tmp/proxy;",
      "  fastcgi_temp_path /tmp/fastcgi;",
      "  uwsgi_temp_path /tmp/uwsgi;",
      "  scgi_temp_path /tmp/scgi;",
      `  server { listen ${faultInjectorPort}; location / { return ${props.status}; } }`,
      // Probes on their own port, so the injected status never fails them.
      `  server { listen ${faultHealthPort}; location / { return 200; } }`,
      "}",
    ].join("\n");
    new ApiObject(this, "config", {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata,
      data: { "nginx.conf": conf },
    });
    const probe = { httpGet: { path: "/", port: faultHealthPort }, periodSeconds: 5 };
    new ApiObject(this, "deployment", {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata,
      spec: {
        replicas: faultInjectorPodShape.replicas,
        selector: { matchLabels: labels },
        template: {
          metadata: {
            labels,
            annotations:
              props.podAnnotations && Object.keys(props.podAnnotations).length > 0
                ? { ...props.podAnnotations }
                : undefined,
          },
          spec: {
            automountServiceAccountToken: false,
            securityContext: {
              runAsNonRoot: true,
              runAsUser: 101,
              runAsGroup: 101,
              seccompProfile: { type: "RuntimeDefault" },
            },
            containers: [
              {
                name: "nginx",
                image: images.faultInjector,
                command: ["nginx", "-c", "/etc/fault/nginx.conf", "-g", "daemon off;"],
                ports: [
                  { name: "http", containerPort: faultInjectorPort },
                  { name: "health", containerPort: faultHealthPort },
                ],
                readinessProbe: probe,
                livenessProbe: probe,
                resources: {
                  requests: {
                    cpu: `${faultInjectorPodShape.cpuRequestMillis}m`,
                    memory: `${faultInjectorPodShape.memoryRequestMi}Mi`,
                  },
                  limits: { memory: `${faultInjectorPodShape.memoryLimitMi}Mi` },
                },
                securityContext: {
                  allowPrivilegeEscalation: false,
                  readOnlyRootFilesystem: true,
                  capabilities: { drop: ["ALL"] },
                },
                volumeMounts: [
                  { name: "config", mountPath: "/etc/fault" },
                  { name: "tmp", mountPath: "/tmp" },
                ],
              },
            ],
            volumes: [
              { name: "config", configMap: { name } },
              { name: "tmp", emptyDir: {} },
            ],
          },
        },
      },
    });
    new ApiObject(this, "service", {
      apiVersion: "v1",
      kind: "Service",
      metadata,
      spec: {
        selector: labels,
        ports: [
          { name: "http", port: faultInjectorPort, targetPort: faultInjectorPort, appProtocol: "http" },
        ],
      },
    });
  }
}

// ---------- access ----------

/**
 * Who may call: a workload by its mesh identity (its service account), every workload of a namespace
 * by theirs, or clients from networks.
 */
export type Caller =
  | { readonly kind: "identity"; readonly namespace: string; readonly serviceAccount: string }
  | { readonly kind: "namespace"; readonly namespace: string }
  | { readonly kind: "network"; readonly name: string; readonly cidrs: readonly string[] };

export interface AccessGrant {
  readonly callers: readonly Caller[];
  /** @default every method */
  readonly methods?: readonly string[];
  /** Paths as `pathMatch` reads them. @default every path */
  readonly paths?: readonly string[];
}
