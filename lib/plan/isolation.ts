import {
  isGuarded,
  isIsolatedNamespace,
  teamCallerNamespaces,
  teamOfNamespace,
  type App,
  type PlatformConfig,
} from "../config";
import type { AccessGrant } from "../manifests";
import type { MeshEnforcement } from "../meshes";

/**
 * How far the mesh's authorization closes an app namespace (docs/mesh-policy.md):
 * - `deny`: `mesh.denyByDefault` names it, so every call needs a rule;
 * - `isolated`: `platform:isolation` isolates it and the mesh enforces per-request policy, so calls from
 *   its own namespace pass, calls from others need a rule;
 * - `open`: the mesh lets every call in (apps with rules excepted).
 * Either closed level gets the mesh's deny-by-default objects; what always gets through passes both.
 */
export type MeshClosure = "deny" | "isolated" | "open";

/** A config as the closure queries read it: its teams, where it has any. */
type ClosureConfig = Pick<PlatformConfig, "mesh" | "isolation" | "apps"> &
  Partial<Pick<PlatformConfig, "teams">>;

/** Whether the mesh enforces per-request authorization: Linkerd, Istio's sidecars; not ambient, not no mesh. */
export function meshEnforcesPolicy(mesh: MeshEnforcement): boolean {
  return mesh.policy !== undefined && mesh.policy.unsupported === undefined;
}

export function meshClosure(config: ClosureConfig, mesh: MeshEnforcement, namespace: string): MeshClosure {
  if (config.mesh.denyByDefault.includes(namespace)) return "deny";
  if (meshEnforcesPolicy(mesh) && isIsolatedNamespace(config, namespace)) return "isolated";
  return "open";
}

/** Whether calls to an app need authorization: it has rules, or its namespace is closed in the mesh. */
export function isGuardedIn(
  config: ClosureConfig,
  mesh: MeshEnforcement,
  app: Pick<App, "mesh" | "namespace">,
): boolean {
  return isGuarded(config, app) || meshClosure(config, mesh, app.namespace) !== "open";
}

/**
 * The grant an isolated namespace gives an app without rules: every workload of its own namespace, by
 * mesh identity; in a team's namespace, every workload of the team's namespaces and of the teams its
 * `allowFrom` names. An app with rules takes only what they allow, as everywhere.
 */
export function sameNamespaceGrants(
  config: ClosureConfig,
  mesh: MeshEnforcement,
  app: Pick<App, "mesh" | "namespace">,
): AccessGrant[] {
  if (app.mesh.authorization || meshClosure(config, mesh, app.namespace) !== "isolated") return [];
  const team = teamOfNamespace(config, app.namespace);
  const namespaces = team ? teamCallerNamespaces({ teams: config.teams ?? [] }, team) : [app.namespace];
  return [{ callers: namespaces.map((namespace) => ({ kind: "namespace", namespace })) }];
}
