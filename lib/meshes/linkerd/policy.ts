import { ApiObject } from "cdk8s";
import { Construct } from "constructs";
import { createHash } from "crypto";
import {
  FaultInjector,
  LinkerdAuthorizationPolicy,
  LinkerdServer,
  MeshTLSAuthentication,
  NetworkAuthentication,
  pathCovers,
  pathMatch,
  type AccessGrant,
  type Caller,
  type PathMatch,
  type RouteParentKind,
} from "../../manifests";
import { linkerdFacts } from "../../versions";
import { linkerdVizNamespace } from "./namespace";
import type { AccessProps, MeshConfig, MeshNetwork, MeshPolicy, RouteRetry } from "../mesh";

/**
 * Linkerd's east-west policy: a Server per protected port (accessPolicy deny), an HTTPRoute on the
 * Server per group of requests with the same callers, an AuthorizationPolicy per kind of caller, and
 * MeshTLSAuthentication or NetworkAuthentication for them (linkerd/website 2-edge
 * reference/authorization-policy.md). docs/mesh-policy.md shows the objects.
 */

const gatewayApiVersion = "gateway.networking.k8s.io/v1";

function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 6);
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
  c.kind === "identity"
    ? `identity ${c.namespace}/${c.serviceAccount}`
    : c.kind === "namespace"
      ? `identity ${c.namespace}/*`
      : `network ${c.name}`;

/** What Linkerd's HTTPRoutes name as their parent to carry east-west calls: its Server (policy.linkerd.io). */
export const linkerdRouteParents: readonly RouteParentKind[] = [
  { group: linkerdFacts.policyApiVersions.Server.split("/")[0], kind: "Server" },
];

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

export function linkerdAccess(scope: Construct, props: AccessProps): void {
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
    const identities = callers.filter((c) => c.kind === "identity" || c.kind === "namespace");
    if (identities.length > 0) {
      new MeshTLSAuthentication(scope, `${route}-mesh-authn`, {
        metadata: meta(route),
        spec: {
          identityRefs: identities.map((c) =>
            c.kind === "namespace"
              ? // Every service account of the namespace (policy-controller/k8s/index/src/inbound/meshtls_authentication.rs at edge-26.8.3).
                { kind: "Namespace", name: c.namespace }
              : { kind: "ServiceAccount", name: c.serviceAccount, namespace: c.namespace },
          ),
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

/** Linkerd reads retries from HTTPRoute annotations (linkerd/website 2-edge reference/retries.md). */
function retryAnnotations(retry: RouteRetry): Record<string, string> {
  const a = linkerdFacts.retryAnnotations;
  return {
    [a.on]: retry.on.join(","),
    [a.limit]: String(retry.attempts),
    ...(retry.timeout ? { [a.timeout]: retry.timeout } : {}),
  };
}

/**
 * What a NetworkPolicy lets in for Linkerd: meshed calls on the proxy's inbound port (where the
 * transport header sends them), Prometheus's scrapes of the proxy's admin port, and, with linkerd-viz,
 * its tap server on the proxy's tap port. The tap port is outside the inbound policy: the proxy's tap
 * server accepts only the client identity tap-injector names on every pod (viz/tap/injector/webhook.go
 * `LINKERD2_PROXY_TAP_SVC_NAME`; linkerd2-proxy release/v2.366.0, edge-26.8.3's `.proxy-version`,
 * linkerd/app/src/tap.rs `AcceptPermittedClients`). Kubelet probes the admin port from the node.
 * Ports go by number: the native sidecar's named ports are on an init container, which NetworkPolicy
 * implementations may not resolve (kubernetes/kubernetes#125285, projectcalico/calico#8885).
 */
function linkerdNetwork(config: MeshConfig): MeshNetwork {
  return {
    meshedCallPorts: [linkerdFacts.proxyInboundPortNumber],
    proxyScrapePorts: [linkerdFacts.proxyAdminPortNumber],
    probeSources: [],
    controlPlane: config.dashboard
      ? [
          {
            from: { kind: "pods", namespace: linkerdVizNamespace, podLabels: linkerdFacts.vizTapPodLabels },
            ports: [linkerdFacts.proxyTapPort],
          },
        ]
      : [],
  };
}

export const linkerdPolicy: MeshPolicy = {
  network: linkerdNetwork,
  retryAnnotations,
  access: (scope, id, props) => linkerdAccess(new Construct(scope, id), props),
  // Where no Server applies, the namespace's pods refuse what no policy allows (reference/authorization-policy.md).
  denyByDefaultAnnotations: { [linkerdFacts.defaultInboundPolicyAnnotation]: "deny" },
  /**
   * The proxies' admin port stays open to probes and metrics scrapes, which come from outside the mesh
   * but from inside the cluster (what `linkerd viz allow-scrapes` writes by hand, for the cluster's own
   * addresses only); apps' own ports get their Servers from access.
   */
  denyByDefault(scope, id, props) {
    linkerdAccess(new Construct(scope, id), {
      name: "linkerd-proxy-admin",
      namespace: props.namespace,
      podSelector: {},
      port: linkerdFacts.proxyAdminPort,
      serverScope: props.serverScope,
      grants: [
        {
          callers: [{ kind: "network", name: "cluster", cidrs: props.clusterSources }],
          methods: ["GET"],
          paths: [...linkerdFacts.proxyAdminPaths.probes, linkerdFacts.proxyAdminPaths.metrics],
        },
      ],
    });
  },
  faultInjector: (scope, id, props) =>
    new FaultInjector(scope, id, {
      ...props,
      // Where the namespace denies by default, any meshed caller still reaches the injector.
      podAnnotations: { [linkerdFacts.defaultInboundPolicyAnnotation]: "all-authenticated" },
    }),
};
