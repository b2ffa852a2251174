/** The cross-field rules that hold whatever the mesh, gathered: on the input, and on the resolved config alone. */
import type { EnvironmentInput } from "../environment";
import type { ConfigProblem } from "../errors";
import type { PlatformConfig } from "../resolved";
import { appRules } from "./apps";
import { autopilotRules } from "./autopilot";
import { clusterRules } from "./cluster";
import { crdRules } from "./crds";
import { existingClusterRules } from "./existingCluster";
import { exposureCollisions } from "./exposure";
import { googleGroupsRules } from "./googleGroups";
import { ingressRules } from "./ingress";
import { loadBalancerRules } from "./loadBalancers";
import { networkRules } from "./network";
import { sizingRules } from "./sizing";
import { teamRules } from "./teams";

/**
 * Cross-field rules that hold whatever the mesh: combinations each field allows alone but the platform
 * cannot build, or that GKE would reject after minutes of `pulumi up`. Each returns problems in the
 * same shape as schema errors. Rules see the raw input too, so a key set explicitly but without effect
 * is an error, never ignored. What depends on the mesh is the mesh's own rule (lib/meshes), run by the
 * plan (lib/plan) with these.
 */
export function checkRules(input: EnvironmentInput, config: PlatformConfig): ConfigProblem[] {
  return [
    ...autopilotRules(input, config),
    ...existingClusterRules(input, config),
    ...clusterRules(input, config),
    ...ingressRules(input, config),
    ...loadBalancerRules(input, config),
    ...crdRules(input, config),
    ...sizingRules(input, config),
    ...configRules(config),
  ];
}

/**
 * The rules that hold on the resolved config alone, whoever built it: overlapping networks, two apps
 * with one name, two apps on one host and path, teams and their apps, teams' Google groups without
 * Google Groups for RBAC. A config built in code (`new Platform({ config })`)
 * is checked against them too; the others judge keys as the user wrote them.
 */
export function configRules(config: PlatformConfig): ConfigProblem[] {
  return [
    ...networkRules(config),
    ...appRules(config),
    ...exposureCollisions(config),
    ...teamRules(config),
    ...googleGroupsRules(config),
  ];
}
