/** The cross-field rules of a cluster the platform creates: location, endpoints, keys, backups, node pools. */
import type { EnvironmentInput } from "../environment";
import { showValue, type ConfigProblem } from "../errors";
import { nodePoolName } from "../queries";
import type { PlatformConfig } from "../resolved";
import { cfg } from "./key";
import { maintenanceRules } from "./maintenance";

export function clusterRules(input: EnvironmentInput, config: PlatformConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const c = config.cluster;
  if (c.mode === "existing") return problems;
  if (c.location !== config.gcp.region && !c.location.startsWith(`${config.gcp.region}-`)) {
    problems.push({
      path: cfg("cluster.location"),
      problem: `${showValue(c.location)} is outside gcp:region ${showValue(config.gcp.region)}, where the network is built`,
      allowed: `${config.gcp.region} or one of its zones`,
      fix: `set platform:cluster.location to "${config.gcp.region}", or change gcp:region`,
    });
  }
  if (c.privateEndpoint && !c.privateNodes) {
    problems.push({
      path: cfg("cluster.privateEndpoint"),
      problem: "is true, but privateNodes is false; GKE allows a private endpoint only on private clusters",
      fix: "set platform:cluster.privateNodes to true, or privateEndpoint to false",
    });
  }
  problems.push(...secretsKeyRules(input, config));
  problems.push(...controlPlaneAccessRules(config));
  const b = c.backups;
  if (b && !c.backupAgent) {
    problems.push({
      path: cfg("cluster.backups"),
      problem: "is set, but cluster.backupAgent is false; Backup for GKE takes backups through its agent",
      fix: "set platform:cluster.backupAgent to true, or platform:cluster.backups to null",
    });
  }
  // Backup for GKE: "backupRetainDays must be >= backupDeleteLockDays" (gkebackup BackupPlan retentionPolicy).
  if (b && b.retainDays < b.deleteLockDays) {
    problems.push({
      path: cfg("cluster.backups.retainDays"),
      problem: `${b.retainDays} is shorter than deleteLockDays ${b.deleteLockDays}; a backup would expire while it cannot be deleted`,
      fix: `set retainDays to at least ${b.deleteLockDays}, or lower deleteLockDays`,
    });
  }
  const names = new Set<string>();
  const gkeNames = new Set<string>();
  c.nodePools.forEach((pool, i) => {
    const gkeName = nodePoolName(pool);
    // GKE node pool names: at most 40 characters (cloud.google.com/kubernetes-engine/docs/reference/rest/v1/projects.locations.clusters.nodePools).
    if (gkeName.length > 40) {
      problems.push({
        path: cfg(`cluster.nodePools[${i}].name`),
        problem: `${showValue(pool.name)} makes the GKE node pool name ${showValue(gkeName)}, ${gkeName.length} characters; GKE allows 40`,
        fix: `shorten it to at most ${40 - (gkeName.length - pool.name.length)} characters`,
      });
    }
    if (gkeNames.has(gkeName) && !names.has(pool.name)) {
      problems.push({
        path: cfg(`cluster.nodePools[${i}].name`),
        problem: `${showValue(pool.name)} makes the GKE node pool name ${showValue(gkeName)}, which another pool has (spot pools are named <name>-spot)`,
        fix: "give the pools names that differ by more than -spot",
      });
    }
    gkeNames.add(gkeName);
    if (pool.minNodes > pool.maxNodes) {
      problems.push({
        path: cfg(`cluster.nodePools[${i}].minNodes`),
        problem: `${pool.minNodes} is larger than maxNodes ${pool.maxNodes}`,
        fix: `set minNodes to at most ${pool.maxNodes}, or raise maxNodes`,
      });
    }
    if (names.has(pool.name)) {
      problems.push({
        path: cfg(`cluster.nodePools[${i}].name`),
        problem: `${showValue(pool.name)} names two node pools`,
        fix: "give each node pool its own name",
      });
    }
    names.add(pool.name);
  });
  if (c.maintenance) problems.push(...maintenanceRules(c.maintenance));
  if (input.cluster?.managedPrometheus === false && config.monitoring.backend === "managed-prometheus") {
    problems.push({
      path: cfg("cluster.managedPrometheus"),
      problem: 'is false, but monitoring.backend is "managed-prometheus", which needs managed collection on',
      fix: "remove platform:cluster.managedPrometheus, or choose another monitoring.backend",
    });
  }
  return problems;
}
/** The control plane must stay reachable, and IP-only settings need the IP endpoints. */
function controlPlaneAccessRules(config: PlatformConfig): ConfigProblem[] {
  const c = config.cluster;
  const problems: ConfigProblem[] = [];
  if (!c.dnsEndpoint && !c.ipEndpoints) {
    problems.push({
      path: cfg("cluster.dnsEndpoint"),
      problem:
        "is false and cluster.ipEndpoints is false, so nothing, `pulumi up` included, could reach the control plane",
      fix: "remove platform:cluster.dnsEndpoint (the DNS endpoint is authenticated by IAM), or set platform:cluster.ipEndpoints to true",
    });
  }
  if (!c.ipEndpoints && c.authorizedNetworks.length > 0) {
    problems.push({
      path: cfg("cluster.authorizedNetworks"),
      problem:
        "is set, but cluster.ipEndpoints is false; authorized networks limit the IP endpoints only (IAM limits the DNS endpoint)",
      fix: "set platform:cluster.ipEndpoints to true, or remove platform:cluster.authorizedNetworks",
    });
  }
  if (!c.ipEndpoints && c.privateEndpoint) {
    problems.push({
      path: cfg("cluster.privateEndpoint"),
      problem: "is true, but cluster.ipEndpoints is false; the private endpoint is one of the IP endpoints",
      fix: "set platform:cluster.ipEndpoints to true, or remove platform:cluster.privateEndpoint",
    });
  }
  return problems;
}

/** An adopted KMS key: GKE and Backup for GKE use it only in the cluster's region; its rotation is its owner's. */
function secretsKeyRules(input: EnvironmentInput, config: PlatformConfig): ConfigProblem[] {
  const e = config.cluster.secretsEncryption;
  const at = cfg("cluster.secretsEncryption.key");
  if (e.key === undefined) return [];
  const problems: ConfigProblem[] = [];
  if (!e.enabled) {
    problems.push({
      path: at,
      problem: "is set, but secretsEncryption.enabled is false, so no key is used",
      fix: "remove platform:cluster.secretsEncryption.key, or set platform:cluster.secretsEncryption.enabled to true",
    });
  }
  if (input.cluster?.secretsEncryption?.rotationDays !== undefined) {
    problems.push({
      path: cfg("cluster.secretsEncryption.rotationDays"),
      problem:
        "is set, but secretsEncryption.key names a key the platform does not manage; its rotation is set where the key is managed",
      fix: "remove platform:cluster.secretsEncryption.rotationDays",
    });
  }
  // GKE application-layer secrets encryption: "the key must be in the same location as the cluster"
  // (cloud.google.com/kubernetes-engine/docs/how-to/encrypting-secrets); a zonal cluster's is its region.
  const location = /\/locations\/([^/]+)\//.exec(e.key)?.[1];
  if (location !== config.gcp.region) {
    problems.push({
      path: at,
      problem: `${showValue(e.key)} is in ${showValue(location)}, but GKE uses a key only in the cluster's region ${showValue(config.gcp.region)}`,
      allowed: `a key under projects/<project>/locations/${config.gcp.region}/`,
      fix: `name a key in ${config.gcp.region}, or remove platform:cluster.secretsEncryption.key to let the platform create one`,
    });
  }
  return problems;
}
