import { monitoringNamespace, prometheusPodLabels } from "../addons";
import { isolatedNamespaces, teamCallerNamespaces, teamOfNamespace, type ExposurePath } from "../config";
import { faultInjectorPort, type NetworkPeer, type NetworkPort, type NetworkSource } from "../manifests";
import {
  unmeshedNetwork,
  type MeshEnforcement,
  type MeshIdentity,
  type MeshNetwork,
  type MeshPodContract,
} from "../meshes";
import { meshOfPlan, type AppPlan, type Plan } from "../plan";
import {
  acmeHttp01SolverPort,
  ingressControllerIdentities,
  ingressControllerPods,
  managedPrometheusCollectors,
} from "../versions";

/** One isolated namespace's NetworkPolicy: everything let in (`NamespaceNetworkPolicy` renders it). */
export interface NamespaceIsolation {
  readonly namespace: string;
  readonly peers: readonly NetworkPeer[];
}

type InClusterIngress = Extract<ExposurePath, "traefik" | "ingress-nginx">;
const inClusterIngress = (via: ExposurePath): via is InClusterIngress =>
  via === "traefik" || via === "ingress-nginx";

/** What the environment's mesh asks a NetworkPolicy to let in for itself. */
export function meshNetworkOf(mesh: MeshIdentity & MeshEnforcement): MeshNetwork {
  return mesh.policy?.network(mesh.config) ?? unmeshedNetwork;
}

/**
 * Where the environment's monitoring scrapes from: the platform's Prometheus pods, Managed Prometheus's
 * collectors, or, for a Prometheus running elsewhere, the pods of its namespace
 * (`monitoring.scraperNamespace`); where that is unknown, any namespace, and a NetworkPolicy then lets
 * the scraped ports in from every pod (a team's namespaces refuse that: lib/plan/teams.ts).
 */
function scraperSource(plan: Pick<Plan, "monitoring" | "prometheus" | "config">): NetworkSource | undefined {
  if (!plan.monitoring) return undefined;
  if (plan.monitoring.backend === "managed-prometheus")
    return {
      kind: "pods",
      namespace: managedPrometheusCollectors.namespace,
      podLabels: managedPrometheusCollectors.podLabels,
    };
  if (plan.prometheus)
    return { kind: "pods", namespace: monitoringNamespace, podLabels: prometheusPodLabels };
  const namespace = plan.config.monitoring.scraperNamespace;
  return namespace ? { kind: "pods", namespace } : { kind: "pods" };
}

/** The port a monitor scrapes an app's metrics on: its own port, or the proxy's (Istio's merged metrics). */
function metricsPort(mesh: MeshPodContract, a: AppPlan): NetworkPort[] {
  const metrics = a.app.metrics;
  if (!metrics) return [];
  const port = mesh.appScrape({ port: a.app.port, path: metrics.path }).endpoint.port;
  return [port === "http" ? a.app.port : port];
}

/** Another namespace's workloads an app's authorization rules name (`<namespace>/<service account>`). */
function callerNamespaces(a: AppPlan): string[] {
  return (a.app.mesh.authorization?.rules ?? [])
    .flatMap((r) => r.from)
    .filter((from) => from.includes("/"))
    .map((from) => from.split("/")[0])
    .filter((ns) => ns !== a.app.namespace);
}

/**
 * The NetworkPolicy of each isolated app namespace (`platform:isolation`). It lets in exactly:
 * - every pod of the namespace itself;
 * - the ingress controller the platform runs (Traefik, ingress-nginx) on the ports of the apps it
 *   exposes, where meshed calls arrive, and cert-manager's HTTP-01 solver port where ACME's challenge is
 *   answered in the namespace; Google's load balancers (GKE Gateway, GCE Ingress), which reach
 *   NEG-backed pods directly, by pod address, from Google's front-end and health-check ranges, and from
 *   the proxy-only subnet for regional and internal Gateway classes (`AppPlan.loadBalancerSources`;
 *   cloud.google.com/kubernetes-engine/docs/concepts/container-native-load-balancing,
 *   cloud.google.com/load-balancing/docs/health-check-concepts#ip-ranges,
 *   cloud.google.com/load-balancing/docs/proxy-only-subnets), on those apps' ports;
 * - the monitoring's scrapers on the apps' metrics ports and the mesh proxies' metrics ports;
 * - the mesh's own components that dial pods (linkerd-viz's tap), and kubelet's probes where they do not
 *   come from the node (Istio ambient's SNAT address); from the node itself a NetworkPolicy always lets
 *   them in (kubernetes.io/docs/concepts/services-networking/network-policies: "traffic to and from the
 *   node where a Pod is running is always allowed"), which Dataplane V2 and Calico both honour;
 * - the other namespaces an app's authorization rules name, on that app's port, where meshed calls
 *   arrive, and its fault injector's port where its routes inject faults; in a team's namespace, for
 *   its apps without rules, the team's other namespaces and those of the teams its `allowFrom` names.
 * Where the mesh's authorization applies too, each of these is also a grant of the app's (`AppPlan.grants`),
 * so neither layer lets in what the other refuses (docs/mesh-policy.md, "Namespace isolation").
 */
export function namespaceNetworkPolicies(
  plan: Pick<Plan, "config" | "apps" | "monitoring" | "prometheus">,
): NamespaceIsolation[] {
  const mesh = meshOfPlan(plan);
  const net = meshNetworkOf(mesh);
  const scraper = scraperSource(plan);
  const acmeHttp01 = plan.config.ingress.acme?.solver === "http01";
  return isolatedNamespaces(plan.config).map((namespace) => {
    const apps = plan.apps.filter((a) => a.app.namespace === namespace);
    // A route with a fault sends a share of its callers' requests to the namespace's fault injector.
    const withFaults = (a: AppPlan): NetworkPort[] =>
      a.routes.some((r) => r.fault) ? [faultInjectorPort] : [];
    const called = (a: AppPlan): NetworkPort[] => [a.app.port, ...net.meshedCallPorts, ...withFaults(a)];
    const peers: NetworkPeer[] = [{ from: { kind: "same-namespace" } }];
    for (const a of apps) {
      for (const via of (a.exposure?.via ?? []).filter(inClusterIngress)) {
        peers.push({
          from: {
            kind: "pods",
            namespace: ingressControllerIdentities[via].namespace,
            podLabels: ingressControllerPods[via],
          },
          ports: [...called(a), ...(acmeHttp01 ? [acmeHttp01SolverPort] : [])],
        });
      }
      if (a.loadBalancerSources.length > 0)
        peers.push({ from: { kind: "addresses", cidrs: a.loadBalancerSources }, ports: [a.app.port] });
    }
    const scraped = [
      ...apps.flatMap((a) => metricsPort(mesh, a)),
      ...net.proxyScrapePorts,
      // A scraper in the mesh (Istio ambient under STRICT mTLS) scrapes through it.
      ...(mesh.scraper && apps.some((a) => a.app.metrics) ? net.meshedCallPorts : []),
    ];
    if (scraper && scraped.length > 0) peers.push({ from: scraper, ports: scraped });
    peers.push(...net.controlPlane);
    // Without apps, no port: an empty list would let every port in.
    if (net.probeSources.length > 0 && apps.length > 0)
      peers.push({
        from: { kind: "addresses", cidrs: net.probeSources },
        ports: apps.map((a) => a.app.port),
      });
    const callers = new Map<string, NetworkPort[]>();
    const team = teamOfNamespace(plan.config, namespace);
    // A team's other namespaces and its allowFrom teams', to its apps without rules, as their grants say.
    const teamCallers = (a: AppPlan): string[] =>
      team && !a.app.mesh.authorization
        ? teamCallerNamespaces(plan.config, team).filter((ns) => ns !== namespace)
        : [];
    for (const a of apps) {
      for (const ns of [...new Set([...callerNamespaces(a), ...teamCallers(a)])])
        callers.set(ns, [...(callers.get(ns) ?? []), ...called(a)]);
    }
    for (const [ns, ports] of [...callers].sort(([x], [y]) => x.localeCompare(y)))
      peers.push({ from: { kind: "pods", namespace: ns }, ports });
    return { namespace, peers };
  });
}
