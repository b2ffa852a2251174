/** The rules of platform:teams that know the platform and its mesh: namespaces of the team's own, a quota that holds its apps. */
import {
  meshDefaults,
  quantityValue,
  showValue,
  teamNamespacePath,
  type ConfigProblem,
  type PlatformConfig,
  type Team,
} from "../config";
import {
  appPodShape,
  certManagerNamespace,
  faultInjectorPodShape,
  gatewayNamespace,
  monitoringNamespace,
} from "../manifests";
import { meshNamespaces } from "../meshes";
import { acmeSolverPodShape, ingressControllerIdentities, managedPrometheusCollectors } from "../versions";

const cfg = (path: string): string => `platform:${path}`;

/**
 * Namespaces the platform, Kubernetes or GKE own, whatever the mesh, ingress and monitoring (so a team's
 * namespace stays valid when they change): the platform's cert-manager, monitoring and shared Gateway,
 * each mesh's, each in-cluster ingress controller's, Managed Prometheus'. Names starting with `kube-`
 * are Kubernetes' (kubernetes.io/docs/concepts/overview/working-with-objects/namespaces), `gke-` GKE's.
 */
export const platformNamespaces: readonly string[] = [
  "default",
  certManagerNamespace,
  monitoringNamespace,
  gatewayNamespace,
  ...meshNamespaces,
  ...Object.values(ingressControllerIdentities).map((c) => c.namespace),
  managedPrometheusCollectors.namespace,
  // Managed Prometheus' own rules and frontends (cloud.google.com/stackdriver/docs/managed-prometheus).
  "gmp-public",
];

/** Whether a namespace is the platform's, Kubernetes' or GKE's (`platformNamespaces`). */
export function isPlatformNamespace(namespace: string): boolean {
  return (
    platformNamespaces.includes(namespace) || namespace.startsWith("kube-") || namespace.startsWith("gke-")
  );
}

/** What a namespace's pods request and are limited to in all, in base units (cores, bytes), and how many there are. */
export interface NamespaceNeed {
  readonly cpu: number;
  readonly memory: number;
  readonly memoryLimit: number;
  readonly pods: number;
}

/**
 * What a team namespace's apps need at most: each app's replicas plus the pod a rollout adds, each pod
 * the app container's requests and limit; one fault injector per status the namespace's routes inject
 * (`FaultInjector`), with the pod its rollout adds; with ACME's HTTP-01 challenges through an in-cluster
 * controller, one solver pod per exposed host (never meshed); and in all but those the mesh's proxy where
 * one runs in every pod (a sidecar mesh; not Istio ambient, not without a mesh).
 */
export function namespaceNeed(
  config: Pick<PlatformConfig, "apps" | "mesh" | "sizing" | "ingress">,
  namespace: string,
): NamespaceNeed {
  const proxy =
    meshDefaults[config.mesh.kind].redirectsTraffic && config.mesh.dataplane === "sidecar"
      ? config.sizing.proxy
      : undefined;
  const mi = 1024 ** 2;
  const withProxy = (shape: {
    cpuRequestMillis: number;
    memoryRequestMi: number;
    memoryLimitMi: number;
  }) => ({
    cpu: shape.cpuRequestMillis / 1000 + (proxy ? quantityValue(proxy.cpu) : 0),
    memory: shape.memoryRequestMi * mi + (proxy ? quantityValue(proxy.memory) : 0),
    memoryLimit: shape.memoryLimitMi * mi + (proxy ? quantityValue(proxy.memoryLimit) : 0),
  });
  const apps = config.apps.filter((a) => a.namespace === namespace);
  const statuses = new Set(
    apps.flatMap((a) => a.mesh.routes.flatMap((r) => (r.fault ? [r.fault.status] : []))),
  );
  // With HTTP-01 through an in-cluster controller, a challenge's solver pod per host, during issuance and renewal.
  const challenged = new Set(
    config.ingress.acme?.solver === "http01"
      ? apps.flatMap((a) =>
          a.expose && a.expose.via.some((v) => v in ingressControllerIdentities) ? [a.expose.host] : [],
        )
      : [],
  );
  const groups = [
    {
      pods: apps.reduce((n, a) => n + a.replicas + appPodShape.rolloutSurge, 0),
      each: withProxy(appPodShape),
    },
    {
      pods: challenged.size,
      each: {
        cpu: acmeSolverPodShape.cpuRequestMillis / 1000,
        memory: acmeSolverPodShape.memoryRequestMi * mi,
        memoryLimit: acmeSolverPodShape.memoryLimitMi * mi,
      },
    },
    {
      pods: statuses.size * (faultInjectorPodShape.replicas + faultInjectorPodShape.rolloutSurge),
      each: withProxy(faultInjectorPodShape),
    },
  ];
  return {
    cpu: groups.reduce((n, g) => n + g.pods * g.each.cpu, 0),
    memory: groups.reduce((n, g) => n + g.pods * g.each.memory, 0),
    memoryLimit: groups.reduce((n, g) => n + g.pods * g.each.memoryLimit, 0),
    pods: groups.reduce((n, g) => n + g.pods, 0),
  };
}

/** A quantity for messages: cores as millicores, bytes as Mi. */
function showCpu(cores: number): string {
  return `${Math.ceil(cores * 1000)}m`;
}
function showMemory(bytes: number): string {
  return `${Math.ceil(bytes / 1024 ** 2)}Mi`;
}

/** Teams whose namespaces are the platform's, and teams whose quota cannot hold their apps. */
export function teamPlanRules(config: PlatformConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  config.teams.forEach((team, i) => {
    team.namespaces.forEach((ns, j) => {
      const at = teamNamespacePath(team, i, j);
      if (isPlatformNamespace(ns)) {
        problems.push({
          path: at,
          problem: `${showValue(ns)} is a namespace the platform, Kubernetes or GKE owns`,
          allowed: `a namespace of the team's own: none of ${platformNamespaces.join(", ")}, none starting with kube- or gke-`,
          fix: `name another namespace, such as "${team.name}-apps"`,
        });
      }
    });
    problems.push(...quotaRules(config, team, i));
  });
  problems.push(...scraperRules(config));
  return problems;
}

/** Each of the team's namespaces must hold its apps: their replicas, a rollout's extra pod, the mesh's proxies. */
function quotaRules(config: PlatformConfig, team: Team, i: number): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const quota = team.quota;
  for (const ns of team.namespaces) {
    const need = namespaceNeed(config, ns);
    if (need.pods === 0) continue;
    const short: [string, string | number, string][] = [];
    if (quantityValue(quota.requests.cpu) < need.cpu)
      short.push(["requests.cpu", quota.requests.cpu, showCpu(need.cpu)]);
    if (quantityValue(quota.requests.memory) < need.memory)
      short.push(["requests.memory", quota.requests.memory, showMemory(need.memory)]);
    if (quantityValue(quota.limits.memory) < need.memoryLimit)
      short.push(["limits.memory", quota.limits.memory, showMemory(need.memoryLimit)]);
    if (quota.pods < need.pods) short.push(["pods", quota.pods, String(need.pods)]);
    for (const [key, has, needs] of short) {
      problems.push({
        path: cfg(`teams[${i}].quota.${key}`),
        problem: `${showValue(has)} is less than the apps of namespace ${showValue(ns)} need: ${needs} for ${need.pods} pods (each app's replicas and each fault injector its routes need, plus the pod a rollout of each adds, each with the mesh's proxy where one runs in every pod, and an ACME solver pod per host challenged through the ingress)`,
        allowed: `${needs} or more`,
        fix: `set platform:teams[${i}].quota.${key} to ${needs} or more, or run fewer replicas`,
      });
    }
  }
  return problems;
}

/**
 * A team's scraped apps under a Prometheus the platform cannot place: the NetworkPolicy would let every
 * pod of the cluster in on the scraped ports (and under Istio ambient on 15008, where HBONE carries every
 * port), so one team could call another's apps there.
 */
function scraperRules(config: PlatformConfig): ConfigProblem[] {
  if (config.monitoring.backend !== "existing-prometheus" || config.monitoring.scraperNamespace) return [];
  const scraped = config.apps.filter(
    (a) => a.metrics && config.teams.some((t) => t.namespaces.includes(a.namespace)),
  );
  if (scraped.length === 0) return [];
  return [
    {
      path: cfg("monitoring.scraperNamespace"),
      problem: `is not set, and monitoring.prometheusUrl names no Service of the cluster (<service>.<namespace>.svc): the team apps ${scraped.map((a) => showValue(a.name)).join(", ")} are scraped by a Prometheus the platform cannot place, so their namespaces would let every pod in on the scraped ports, other teams' included`,
      allowed: "the namespace your Prometheus's pods run in",
      fix: "set platform:monitoring.scraperNamespace to that namespace, or platform:monitoring.prometheusUrl to its Service's cluster URL (http://<service>.<namespace>.svc:9090)",
    },
  ];
}
