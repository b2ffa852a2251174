import { ApiObject } from "cdk8s";
import { Construct } from "constructs";
import { createHash } from "crypto";
import { images, linkerdFacts } from "../versions";
import {
  LinkerdAuthorizationPolicy,
  LinkerdServer,
  MeshTLSAuthentication,
  NetworkAuthentication,
} from "./customResources";
import { istioTrustDomain } from "./istio";
import { pathCovers, pathMatch, type PathMatch } from "./paths";

/**
 * East-west traffic policy, written once and emitted for the environment's mesh:
 * - routes: Gateway API HTTPRoutes whose parent is a Service (the GAMMA mesh profile), which Linkerd
 *   and Istio both read from `gateway.networking.k8s.io/v1`;
 * - access: who may call which requests of an app, as Linkerd's Server, HTTPRoute, AuthorizationPolicy,
 *   MeshTLSAuthentication and NetworkAuthentication, or as one Istio AuthorizationPolicy.
 * docs/mesh-policy.md shows the objects for each mesh.
 */

export type PolicyMesh = "linkerd" | "istio";

const gatewayApiVersion = "gateway.networking.k8s.io/v1";
const istioSecurityVersion = "security.istio.io/v1";
const appLabel = "app.kubernetes.io/name";

/** Istio's form of a path match: exact, or a prefix with a trailing `*` (AuthorizationPolicy `paths`). */
function istioPaths(path: string): string[] {
  const m = pathMatch(path);
  if (m.type === "Exact") return [m.value];
  return m.value === "/" ? ["/*"] : [m.value, `${m.value}/*`];
}

function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 6);
}

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
  /** Linkerd only: Istio reads retries from a field GKE's standard channel does not serve. */
  readonly retry?: { readonly on: readonly string[]; readonly attempts: number; readonly timeout?: string };
  readonly fault?: { readonly percent: number; readonly status: number };
}

export interface MeshRoutesProps {
  readonly mesh: PolicyMesh;
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
      if (route.retry && props.mesh !== "linkerd") {
        throw new Error(
          `route ${route.name}: retries are built for Linkerd only; the config rules refuse them`,
        );
      }
      new ApiObject(this, route.name, {
        apiVersion: gatewayApiVersion,
        kind: "HTTPRoute",
        metadata: {
          name: `${props.service}-${route.name}`,
          namespace: props.namespace,
          annotations: route.retry ? linkerdRetryAnnotations(route.retry) : undefined,
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

function linkerdRetryAnnotations(retry: NonNullable<MeshRouteSpec["retry"]>): Record<string, string> {
  const a = linkerdFacts.retryAnnotations;
  return {
    [a.on]: retry.on.join(","),
    [a.limit]: String(retry.attempts),
    ...(retry.timeout ? { [a.timeout]: retry.timeout } : {}),
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
  readonly mesh: PolicyMesh;
  readonly namespace: string;
  readonly status: number;
}

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
        replicas: 1,
        selector: { matchLabels: labels },
        template: {
          metadata: {
            labels,
            // Where the namespace denies by default, any meshed caller still reaches the injector (Linkerd).
            annotations:
              props.mesh === "linkerd"
                ? { [linkerdFacts.defaultInboundPolicyAnnotation]: "all-authenticated" }
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
                  requests: { cpu: "10m", memory: "16Mi" },
                  limits: { memory: "64Mi" },
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
    if (props.mesh === "istio") {
      // Where the namespace denies by default, any meshed caller still reaches the injector (Istio).
      new ApiObject(this, "access", {
        apiVersion: istioSecurityVersion,
        kind: "AuthorizationPolicy",
        metadata,
        spec: {
          selector: { matchLabels: labels },
          action: "ALLOW",
          rules: [{ from: [{ source: { principals: ["*"] } }] }],
        },
      });
    }
  }
}

// ---------- access ----------

/** Who may call: a workload by its mesh identity (its service account), or clients from networks. */
export type Caller =
  | { readonly kind: "identity"; readonly namespace: string; readonly serviceAccount: string }
  | { readonly kind: "network"; readonly name: string; readonly cidrs: readonly string[] };

/** Every address: kubelet probes and Prometheus scrapes come from outside the mesh. */
export const anyNetwork: Caller = { kind: "network", name: "any-network", cidrs: ["0.0.0.0/0", "::/0"] };

export interface AccessGrant {
  readonly callers: readonly Caller[];
  /** @default every method */
  readonly methods?: readonly string[];
  /** Paths as `pathMatch` reads them. @default every path */
  readonly paths?: readonly string[];
}

export interface AppAccessProps {
  readonly mesh: PolicyMesh;
  /** Names the policy objects. */
  readonly name: string;
  readonly namespace: string;
  /** Pods the policy protects. Empty: every pod in the namespace. */
  readonly podSelector: Readonly<Record<string, string>>;
  /** The port protected (Linkerd Servers select one port; Istio policies apply to the workload). */
  readonly port: number | string;
  /** Everything allowed; anything else is refused. */
  readonly grants: readonly AccessGrant[];
  /** Istio's trust domain, the first part of principals. @default istioTrustDomain */
  readonly trustDomain?: string;
  /**
   * Where Linkerd's Server goes, so it can be deployed after its routes and policies: a Server
   * refuses everything no policy authorizes, probes included, from the moment it exists.
   * @default the construct itself
   */
  readonly serverScope?: Construct;
}

/**
 * What may reach one port of some pods; everything else is refused. For Linkerd, each distinct
 * (path, method) becomes an HTTPRoute on the Server, authorized for every grant that covers it: a
 * request matches only its most specific route (Gateway API precedence), so a route must carry the
 * callers of every broader grant too. A grant for any method on a path that some grant narrows to one
 * method adds a route for that method, or it would shadow the narrower one. Istio ORs the rules of an
 * ALLOW policy itself.
 */
export class AppAccess extends Construct {
  constructor(scope: Construct, id: string, props: AppAccessProps) {
    super(scope, id);
    if (props.mesh === "linkerd") linkerdAccess(this, props);
    else istioAccess(this, props);
  }
}

interface Pair {
  readonly path: PathMatch;
  readonly method?: string;
}

interface Grant extends Pair {
  readonly callers: readonly Caller[];
}

const pairKey = (p: Pair): string => `${p.method ?? "*"} ${p.path.type} ${p.path.value}`;
const callerKey = (c: Caller): string =>
  c.kind === "identity" ? `identity ${c.namespace}/${c.serviceAccount}` : `network ${c.name}`;

/**
 * The routes a Linkerd Server needs for these grants: the (path, method) pairs, grouped by who may
 * call them. Matches of one route keep their own precedence, so grouping changes nothing but the
 * object count.
 */
export function linkerdRoutes(grants: readonly AccessGrant[]): { pairs: Pair[]; callers: Caller[] }[] {
  const groups = new Map<string, { pairs: Pair[]; callers: Caller[] }>();
  for (const { pair, callers } of linkerdPairs(grants)) {
    const key = callers.map(callerKey).join(",");
    const group = groups.get(key) ?? { pairs: [], callers };
    group.pairs.push(pair);
    groups.set(key, group);
  }
  // An HTTPRoute rule holds at most 64 matches (the CRD's limit).
  return [...groups.values()].flatMap((g) =>
    Array.from({ length: Math.ceil(g.pairs.length / 64) }, (_, i) => ({
      pairs: g.pairs.slice(i * 64, i * 64 + 64),
      callers: g.callers,
    })),
  );
}

/** Each (path, method) a Server must route, with every caller allowed on it. */
function linkerdPairs(grants: readonly AccessGrant[]): { pair: Pair; callers: Caller[] }[] {
  const flat: Grant[] = grants.flatMap((g) =>
    (g.paths ?? ["/*"]).flatMap((p) =>
      (g.methods ?? [undefined]).map((method) => ({ path: pathMatch(p), method, callers: g.callers })),
    ),
  );
  const pairs = new Map<string, Pair>();
  for (const g of flat) pairs.set(pairKey(g), { path: g.path, method: g.method });
  for (const broad of flat.filter((g) => !g.method)) {
    for (const narrow of flat.filter((g) => g.method && pathCovers(g.path, broad.path))) {
      const pair = { path: broad.path, method: narrow.method };
      pairs.set(pairKey(pair), pair);
    }
  }
  return [...pairs.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, pair]) => {
      const callers = new Map<string, Caller>();
      for (const g of flat) {
        if (pathCovers(g.path, pair.path) && (!g.method || g.method === pair.method)) {
          for (const c of g.callers) callers.set(callerKey(c), c);
        }
      }
      return {
        pair,
        callers: [...callers.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, c]) => c),
      };
    });
}

/** A route's name: its first request, readable in `linkerd viz authz`, and a hash of all of them. */
function routeSlug(pairs: readonly Pair[]): string {
  const first = pairs[0];
  const words = first.path.value
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 24);
  return `${(first.method ?? "any").toLowerCase()}-${words || "root"}-${shortHash(pairs.map(pairKey).join(","))}`;
}

function linkerdAccess(scope: Construct, props: AppAccessProps): void {
  const meta = (name: string) => ({ name, namespace: props.namespace });
  new LinkerdServer(props.serverScope ?? scope, "server", {
    metadata: meta(props.name),
    spec: {
      podSelector: { matchLabels: { ...props.podSelector } },
      port: props.port,
      // Explicit, though it is the CRD's default: what no route authorizes is refused.
      accessPolicy: "deny",
    },
  });
  const linkerdRef = (kind: string, name: string) => ({ group: "policy.linkerd.io", kind, name });
  const networks = new Map<string, Extract<Caller, { kind: "network" }>>();
  for (const { pairs, callers } of linkerdRoutes(props.grants)) {
    const route = `${props.name}-${routeSlug(pairs)}`;
    new ApiObject(scope, route, {
      apiVersion: gatewayApiVersion,
      kind: "HTTPRoute",
      metadata: meta(route),
      spec: {
        parentRefs: [linkerdRef("Server", props.name)],
        rules: [{ matches: pairs.map((p) => ({ path: p.path, method: p.method })) }],
      },
    });
    const targetRef = { group: "gateway.networking.k8s.io", kind: "HTTPRoute", name: route };
    const identities = callers.filter((c) => c.kind === "identity");
    if (identities.length > 0) {
      new MeshTLSAuthentication(scope, `${route}-mesh-authn`, {
        metadata: meta(route),
        spec: {
          identityRefs: identities.map((c) => ({
            kind: "ServiceAccount",
            name: c.serviceAccount,
            namespace: c.namespace,
          })),
        },
      });
      new LinkerdAuthorizationPolicy(scope, `${route}-mesh`, {
        metadata: meta(`${route}-mesh`),
        spec: { targetRef, requiredAuthenticationRefs: [linkerdRef("MeshTLSAuthentication", route)] },
      });
    }
    for (const c of callers) {
      if (c.kind !== "network") continue;
      networks.set(c.name, c);
      new LinkerdAuthorizationPolicy(scope, `${route}-${c.name}`, {
        metadata: meta(`${route}-${c.name}`),
        spec: {
          targetRef,
          requiredAuthenticationRefs: [linkerdRef("NetworkAuthentication", `${props.name}-${c.name}`)],
        },
      });
    }
  }
  for (const c of networks.values()) {
    new NetworkAuthentication(scope, `${c.name}-authn`, {
      metadata: meta(`${props.name}-${c.name}`),
      spec: { networks: c.cidrs.map((cidr) => ({ cidr })) },
    });
  }
}

function istioAccess(scope: Construct, props: AppAccessProps): void {
  const trustDomain = props.trustDomain ?? istioTrustDomain;
  new ApiObject(scope, "policy", {
    apiVersion: istioSecurityVersion,
    kind: "AuthorizationPolicy",
    metadata: { name: props.name, namespace: props.namespace },
    spec: {
      selector: { matchLabels: props.podSelector },
      action: "ALLOW",
      rules: props.grants.map((g) => {
        const principals = g.callers
          .filter((c) => c.kind === "identity")
          .map((c) => `${trustDomain}/ns/${c.namespace}/sa/${c.serviceAccount}`);
        const ipBlocks = [...new Set(g.callers.flatMap((c) => (c.kind === "network" ? c.cidrs : [])))];
        const from = [
          ...(principals.length > 0 ? [{ source: { principals } }] : []),
          ...(ipBlocks.length > 0 ? [{ source: { ipBlocks } }] : []),
        ];
        const operation = {
          methods: g.methods,
          paths: g.paths?.flatMap(istioPaths),
        };
        return {
          from,
          to: operation.methods || operation.paths ? [{ operation }] : undefined,
        };
      }),
    },
  });
}

// ---------- default deny ----------

export interface DenyByDefaultProps {
  readonly mesh: PolicyMesh;
  readonly namespace: string;
  /** Where Linkerd's proxy admin Server goes (see AppAccessProps.serverScope). @default the construct itself */
  readonly serverScope?: Construct;
}

/** Metadata that makes a namespace refuse what no policy allows: Linkerd reads an annotation. */
export function denyByDefaultAnnotations(mesh: PolicyMesh): Record<string, string> {
  return mesh === "linkerd" ? { [linkerdFacts.defaultInboundPolicyAnnotation]: "deny" } : {};
}

/**
 * The objects a deny-by-default namespace needs besides its annotation. Istio: an ALLOW-nothing
 * policy (an AuthorizationPolicy with an empty spec). Linkerd: the proxies' admin port stays open to
 * probes and metrics scrapes, which come from outside the mesh (what `linkerd viz allow-scrapes`
 * writes by hand); apps' own ports get their Servers from AppAccess.
 */
export class DenyByDefault extends Construct {
  constructor(scope: Construct, id: string, props: DenyByDefaultProps) {
    super(scope, id);
    if (props.mesh === "istio") {
      new ApiObject(this, "allow-nothing", {
        apiVersion: istioSecurityVersion,
        kind: "AuthorizationPolicy",
        metadata: { name: "deny-by-default", namespace: props.namespace },
        spec: {},
      });
      return;
    }
    new AppAccess(this, "proxy-admin", {
      mesh: "linkerd",
      name: "linkerd-proxy-admin",
      namespace: props.namespace,
      podSelector: {},
      port: linkerdFacts.proxyAdminPort,
      serverScope: props.serverScope,
      grants: [
        {
          callers: [anyNetwork],
          methods: ["GET"],
          paths: [...linkerdFacts.proxyAdminPaths.probes, linkerdFacts.proxyAdminPaths.metrics],
        },
      ],
    });
  }
}
