import { isGuarded, isIsolatedNamespace, type App, type PlatformConfig } from "../config";
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

/** Whether the mesh enforces per-request authorization: Linkerd, Istio's sidecars; not ambient, not no mesh. */
export function meshEnforcesPolicy(mesh: MeshEnforcement): boolean {
  return mesh.policy !== undefined && mesh.policy.unsupported === undefined;
}

export function meshClosure(
  config: Pick<PlatformConfig, "mesh" | "isolation" | "apps">,
  mesh: MeshEnforcement,
  namespace: string,
): MeshClosure {
  if (config.mesh.denyByDefault.includes(namespace)) return "deny";
  if (meshEnforcesPolicy(mesh) && isIsolatedNamespace(config, namespace)) return "isolated";
  return "open";
}

/** Whether calls to an app need authorization: it has rules, or its namespace is closed in the mesh. */
export function isGuardedIn(
  config: Pick<PlatformConfig, "mesh" | "isolation" | "apps">,
  mesh: MeshEnforcement,
  app: Pick<App, "mesh" | "namespace">,
): boolean {
  return isGuarded(config, app) || meshClosure(config, mesh, app.namespace) !== "open";
}

/**
 * The grant an isolated namespace gives an app without rules: every workload of its own namespace, by
 * mesh identity. An app with rules takes only what they allow, as everywhere.
 */
export function sameNamespaceGrants(
  config: Pick<PlatformConfig, "mesh" | "isolation" | "apps">,
  mesh: MeshEnforcement,
  app: Pick<App, "mesh" | "namespace">,
): AccessGrant[] {
  if (app.mesh.authorization || meshClosure(config, mesh, app.namespace) !== "isolated") return [];
  return [{ callers: [{ kind: "namespace", namespace: app.namespace }] }];
}
