/** The cross-field rules of existing-cluster mode: which cluster, and no key that shapes a cluster. */
import type { EnvironmentInput } from "../environment";
import type { ConfigProblem } from "../errors";
import type { PlatformConfig } from "../resolved";
import { cfg } from "./key";

/** Fields that shape a cluster the platform creates; they cannot change a cluster made elsewhere. */
const clusterShapingKeys = [
  "location",
  "releaseChannel",
  "privateNodes",
  "privateEndpoint",
  "authorizedNetworks",
  "dnsEndpoint",
  "ipEndpoints",
  "dataplaneV2",
  "managedPrometheus",
  "nodeLocalDns",
  "backupAgent",
  "backups",
  "secretsEncryption",
  "deletionProtection",
  "protect",
  "maintenance",
  "labels",
  "nodePools",
  "nodeServiceAccountRoles",
  "imageRepositories",
  "enableApis",
  "costAllocation",
  "securityPosture",
  "binaryAuthorization",
  "googleGroups",
] as const;

export function existingClusterRules(input: EnvironmentInput, config: PlatformConfig): ConfigProblem[] {
  const c = input.cluster ?? {};
  const problems: ConfigProblem[] = [];
  if (config.cluster.mode !== "existing") {
    if (c.existing !== undefined) {
      problems.push({
        path: cfg("cluster.existing"),
        problem: `is set, but cluster.mode is "${config.cluster.mode}"`,
        fix: 'set platform:cluster.mode to "existing", or remove platform:cluster.existing',
      });
    }
    return problems;
  }
  const e = c.existing;
  const byName = e?.name !== undefined || e?.location !== undefined;
  const byFile = e?.kubeconfigPath !== undefined;
  if (!byName && !byFile) {
    problems.push({
      path: cfg("cluster.existing"),
      problem: "is missing: existing-cluster mode needs to know which cluster",
      allowed: "{ name, location } of a GKE cluster, or { kubeconfigPath, context? }",
      fix: "set platform:cluster.existing.name and platform:cluster.existing.location",
    });
  } else if (byName && byFile) {
    problems.push({
      path: cfg("cluster.existing"),
      problem: "names a cluster both by name/location and by kubeconfigPath",
      allowed: "one of { name, location } or { kubeconfigPath, context? }",
      fix: "remove one of the two",
    });
  } else if (byName && (e?.name === undefined || e?.location === undefined)) {
    const missing = e?.name === undefined ? "name" : "location";
    problems.push({
      path: cfg(`cluster.existing.${missing}`),
      problem: "is missing; a GKE cluster is found by name and location together",
      fix: `set platform:cluster.existing.${missing}`,
    });
  }
  if (byName && e?.context !== undefined) {
    problems.push({
      path: cfg("cluster.existing.context"),
      problem: "is set, but applies only with kubeconfigPath",
      fix: "remove platform:cluster.existing.context",
    });
  }
  for (const key of clusterShapingKeys) {
    if (c[key] !== undefined) {
      problems.push({
        path: cfg(`cluster.${key}`),
        problem: "is set, but the platform does not manage an existing cluster, so it would have no effect",
        fix:
          key === "googleGroups"
            ? "remove platform:cluster.googleGroups, and enable Google Groups for RBAC on the cluster itself: gcloud container clusters update <name> --location <location> --security-group=gke-security-groups@<your domain>"
            : `remove platform:cluster.${key}, or set platform:cluster.mode to "standard" to let the platform build the cluster`,
      });
    }
  }
  if (input.network !== undefined) {
    problems.push({
      path: "platform:network",
      problem: "is set, but an existing cluster brings its own network",
      fix: "remove platform:network",
    });
  }
  return problems;
}
