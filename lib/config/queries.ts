/** What the platform asks of a resolved config: node pool names, guarded apps, isolated namespaces, probe paths. */
import type { App, NodePool, PlatformConfig, Team } from "./resolved";

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

/** A config as the isolation queries read it: its teams, where it has any. */
type IsolationConfig = Pick<PlatformConfig, "isolation" | "apps"> & Partial<Pick<PlatformConfig, "teams">>;

/**
 * The namespaces isolated from the others, sorted: every app namespace but the exceptions when
 * isolation is on (`platform:isolation`), none when it is off; and every team's namespace, always.
 */
export function isolatedNamespaces(config: IsolationConfig): string[] {
  const teams = (config.teams ?? []).flatMap((t) => t.namespaces);
  const apps = config.isolation.enabled
    ? config.apps.map((a) => a.namespace).filter((ns) => !config.isolation.except.includes(ns))
    : [];
  return [...new Set([...apps, ...teams])].sort();
}

/** Whether `namespace` is one of `isolatedNamespaces(config)`, without building the list (asked once per app). */
export function isIsolatedNamespace(config: IsolationConfig, namespace: string): boolean {
  return (
    teamOfNamespace(config, namespace) !== undefined ||
    (config.isolation.enabled &&
      !config.isolation.except.includes(namespace) &&
      appNamespaces(config.apps).has(namespace))
  );
}

/** Per apps list, the namespaces they run in: asked once per app, so indexed once, not searched per app. */
const namespacesOfApps = new WeakMap<readonly Pick<App, "namespace">[], ReadonlySet<string>>();

/** The namespaces `apps` run in. */
function appNamespaces(apps: readonly Pick<App, "namespace">[]): ReadonlySet<string> {
  let known = namespacesOfApps.get(apps);
  if (!known) {
    known = new Set(apps.map((a) => a.namespace));
    namespacesOfApps.set(apps, known);
  }
  return known;
}

/** The team whose namespaces include `namespace`, if one does. */
export function teamOfNamespace(
  config: Partial<Pick<PlatformConfig, "teams">>,
  namespace: string,
): Team | undefined {
  return (config.teams ?? []).find((t) => t.namespaces.includes(namespace));
}

/**
 * The namespaces whose workloads may call a team's: its own, and those of the teams its `allowFrom`
 * names, sorted.
 */
export function teamCallerNamespaces(config: Pick<PlatformConfig, "teams">, team: Team): string[] {
  const allowed = config.teams.filter((t) => team.allowFrom.includes(t.name)).flatMap((t) => t.namespaces);
  return [...new Set([...team.namespaces, ...allowed])].sort();
}

/** The path of an app's readiness, startup and liveness probes, which load balancers health-check too. */
export function probePathOf(app: Pick<App, "expose">): string {
  return app.expose?.healthCheckPath ?? "/";
}
