/** What the platform asks of a resolved config: node pool names, guarded apps, isolated namespaces, probe paths. */
import type { App, NodePool, PlatformConfig } from "./resolved";

/**
 * The GKE name of a node pool: its config name, and `-spot` for spot pools. Spot is the one pool setting
 * in the config that GKE cannot change in place (terraform-google-kubernetes-engine
 * modules/beta-private-cluster-update-variant/cluster.tf `force_node_pool_recreation_resources`; machine
 * type, disk and labels update in place), so changing it changes the name, and the new pool is created
 * beside the old one before the old one is drained and deleted.
 */
export function nodePoolName(pool: Pick<NodePool, "name" | "spot">): string {
  return pool.spot ? `${pool.name}-spot` : pool.name;
}

/**
 * Whether calls to an app need authorization: it has rules, or its namespace denies by default. A
 * guarded app gets the platform's allowances for probes, scrapes and its ingress.
 */
export function isGuarded(
  config: Pick<PlatformConfig, "mesh">,
  app: Pick<App, "mesh" | "namespace">,
): boolean {
  return app.mesh.authorization !== undefined || config.mesh.denyByDefault.includes(app.namespace);
}

/**
 * The app namespaces isolated from the others (`platform:isolation`), sorted: every app namespace but
 * the exceptions when isolation is on, none when it is off.
 */
export function isolatedNamespaces(config: Pick<PlatformConfig, "isolation" | "apps">): string[] {
  if (!config.isolation.enabled) return [];
  return [...new Set(config.apps.map((a) => a.namespace))]
    .filter((ns) => !config.isolation.except.includes(ns))
    .sort();
}

/** Whether `namespace` is one of `isolatedNamespaces(config)`, without building the list (asked once per app). */
export function isIsolatedNamespace(
  config: Pick<PlatformConfig, "isolation" | "apps">,
  namespace: string,
): boolean {
  return (
    config.isolation.enabled &&
    !config.isolation.except.includes(namespace) &&
    config.apps.some((a) => a.namespace === namespace)
  );
}

/** The path of an app's readiness, startup and liveness probes, which load balancers health-check too. */
export function probePathOf(app: Pick<App, "expose">): string {
  return app.expose?.healthCheckPath ?? "/";
}
