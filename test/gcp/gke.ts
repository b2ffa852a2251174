import { ConfigError, type ConfigProblem } from "../../lib/config";
import { GkeCluster } from "../../lib/gcp";
import { planFor, resolvePlan } from "../../lib/plan";
import type { RenderResult } from "../../lib/render";
import { config, input, render } from "../helpers";

export const CLUSTER = "gcp:container/cluster:Cluster";
export const NODE_POOL = "gcp:container/nodePool:NodePool";
export const KEY_RING = "gcp:kms/keyRing:KeyRing";
export const CRYPTO_KEY = "gcp:kms/cryptoKey:CryptoKey";
export const KMS_MEMBER = "gcp:kms/cryptoKeyIAMMember:CryptoKeyIAMMember";
export const PROJECT_MEMBER = "gcp:projects/iAMMember:IAMMember";
export const SERVICE = "gcp:projects/service:Service";
export const SERVICE_IDENTITY = "gcp:projects/serviceIdentity:ServiceIdentity";
export const BACKUP_PLAN = "gcp:gkebackup/backupPlan:BackupPlan";
export const K8S_PROVIDER = "pulumi:providers:kubernetes";

/** A GkeCluster exactly as the Platform builds it for the smallest valid environment plus `overrides`. */
export function renderCluster(overrides: Record<string, unknown>): Promise<RenderResult> {
  const plan = planFor(config(overrides));
  const c = plan.config;
  return render(() => {
    new GkeCluster(c.cluster.name, {
      project: c.gcp.project,
      region: c.gcp.region,
      settings: { cluster: c.cluster, network: c.network },
      webhookPorts: plan.webhookPorts,
      proxyOnlySubnet: plan.proxyOnlySubnet,
    });
  });
}

/** The problems the plan reports for the smallest valid environment plus `overrides`. */
export function planProblems(overrides: Record<string, unknown>): readonly ConfigProblem[] {
  try {
    resolvePlan(input(overrides), "test");
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error("expected a ConfigError");
}
