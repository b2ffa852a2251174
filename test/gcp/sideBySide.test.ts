import * as fs from "fs";
import * as path from "path";
import { configWarnings } from "../../lib/config";
import type { RenderResult } from "../../lib/render";
import { at, config, find, ofType, one, renderPlatform } from "../helpers";
import {
  BACKUP_PLAN,
  CLUSTER,
  CRYPTO_KEY,
  KEY_RING,
  NODE_POOL,
  PROJECT_MEMBER,
  SERVICE,
  SERVICE_IDENTITY,
  renderCluster,
} from "./gke";

/**
 * docs/gke.md compares the platform with safer-cluster and Fabric, one row per setting. Each row's last
 * column is a claim about the platform: here each claim names the words it makes and checks them
 * against renders, and a row without a check, or a check without a row, fails.
 */

const doc = fs.readFileSync(path.resolve(__dirname, "../../docs/gke.md"), "utf8");

/** The rows of the side-by-side table: setting and this project's cell. */
function sideBySide(): [string, string][] {
  const section = doc.split("## Side by side with safer-cluster and Fabric")[1]?.split("\n## ")[0] ?? "";
  const cells = section
    .split("\n")
    .filter((l) => l.startsWith("|"))
    .map((l) =>
      l
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((c) => c.trim()),
    );
  return cells.slice(2).map((c) => [c[0], c[3]]);
}

const tiers = ["dev", "staging", "prod"] as const;
const renders = new Map<string, Promise<RenderResult>>();
function cluster(tier: string, overrides: Record<string, unknown> = {}): Promise<RenderResult> {
  const key = JSON.stringify([tier, overrides]);
  const cached = renders.get(key) ?? renderCluster({ tier, ...overrides });
  renders.set(key, cached);
  return cached;
}
const clusterArgs = async (tier: string, overrides: Record<string, unknown> = {}) =>
  one(await cluster(tier, overrides), CLUSTER);

interface Claim {
  /** Words of the cell the check stands behind. */
  readonly says: readonly string[];
  readonly holds: () => Promise<void>;
}

const claims: Record<string, Claim> = {
  "private nodes": {
    says: ["`enablePrivateNodes: true`", "every tier"],
    holds: async () => {
      for (const t of tiers)
        expect(at(await clusterArgs(t), "privateClusterConfig", "enablePrivateNodes")).toBe(true);
    },
  },
  "control-plane endpoint": {
    says: ["`allowExternalTraffic: true`", "kubeconfig", "IP endpoints off", "`authorizedNetworks`"],
    holds: async () => {
      for (const t of tiers) {
        expect(at(await clusterArgs(t), "controlPlaneEndpointsConfig")).toEqual({
          dnsEndpointConfig: { allowExternalTraffic: true },
          ipEndpointsConfig: { enabled: false },
        });
      }
      const withNetworks = await clusterArgs("prod", {
        cluster: { authorizedNetworks: [{ name: "ci", cidr: "203.0.113.0/24" }] },
      });
      expect(at(withNetworks, "controlPlaneEndpointsConfig", "ipEndpointsConfig")).toEqual({ enabled: true });
      // The kubeconfig's server is the DNS endpoint: test/gcp/controlPlane.test.ts reads it.
    },
  },
  "authorized networks": {
    says: ["`authorizedNetworks`", "warned about in every tier"],
    holds: async () => {
      for (const t of tiers) {
        expect(configWarnings(config({ tier: t, cluster: { ipEndpoints: true } }))).toHaveLength(1);
      }
      const withNetworks = await clusterArgs("prod", {
        cluster: { authorizedNetworks: [{ name: "ci", cidr: "203.0.113.0/24" }] },
      });
      expect(at(withNetworks, "masterAuthorizedNetworksConfig")).toEqual({
        cidrBlocks: [{ cidrBlock: "203.0.113.0/24", displayName: "ci" }],
      });
    },
  },
  "release channel": {
    says: ["`REGULAR`", "`STABLE` in prod"],
    holds: async () => {
      expect(at(await clusterArgs("dev"), "releaseChannel")).toEqual({ channel: "REGULAR" });
      expect(at(await clusterArgs("staging"), "releaseChannel")).toEqual({ channel: "REGULAR" });
      expect(at(await clusterArgs("prod"), "releaseChannel")).toEqual({ channel: "STABLE" });
    },
  },
  "Dataplane V2": {
    says: ["`ADVANCED_DATAPATH`", "every mesh, Linkerd included", "kept from creation"],
    holds: async () => {
      for (const kind of ["linkerd", "istio", "none"]) {
        const c = await clusterArgs("prod", { mesh: { kind } });
        expect(at(c, "datapathProvider")).toBe("ADVANCED_DATAPATH");
        expect(c.options.ignoreChanges).toContain("datapathProvider");
      }
    },
  },
  "FQDN network policy": {
    says: ["not set"],
    holds: async () => {
      for (const t of tiers) expect(at(await clusterArgs(t), "enableFqdnNetworkPolicy")).toBeUndefined();
    },
  },
  "Workload Identity": {
    says: ["`<project>.svc.id.goog`", "`GKE_METADATA`"],
    holds: async () => {
      for (const t of tiers) {
        const result = await cluster(t);
        expect(at(one(result, CLUSTER), "workloadIdentityConfig")).toEqual({
          workloadPool: "acme-test.svc.id.goog",
        });
        expect(at(one(result, NODE_POOL), "nodeConfig", "workloadMetadataConfig")).toEqual({
          mode: "GKE_METADATA",
        });
      }
    },
  },
  "shielded nodes": {
    says: ["`enableShieldedNodes: true`", "secure boot and integrity monitoring"],
    holds: async () => {
      for (const t of tiers) {
        const result = await cluster(t);
        expect(at(one(result, CLUSTER), "enableShieldedNodes")).toBe(true);
        expect(at(one(result, NODE_POOL), "nodeConfig", "shieldedInstanceConfig")).toEqual({
          enableSecureBoot: true,
          enableIntegrityMonitoring: true,
        });
      }
    },
  },
  "secrets encryption": {
    says: ["`ENCRYPTED`", "`secretsEncryption.key`"],
    holds: async () => {
      for (const t of tiers) {
        expect(at(await clusterArgs(t), "databaseEncryption", "state")).toBe("ENCRYPTED");
      }
      const key = "projects/acme-sec/locations/europe-west1/keyRings/gke/cryptoKeys/secrets";
      const adopted = await clusterArgs("prod", { cluster: { secretsEncryption: { key } } });
      expect(at(adopted, "databaseEncryption")).toEqual({ state: "ENCRYPTED", keyName: key });
    },
  },
  "KMS key": {
    says: ["random suffix", "`retainOnDelete`", "protected in prod"],
    holds: async () => {
      for (const t of tiers) {
        const result = await cluster(t);
        const ring = one(result, KEY_RING);
        expect(at(ring, "name")).toBeUndefined();
        expect(ring.options.retainOnDelete).toBe(true);
        const key = one(result, CRYPTO_KEY);
        expect(key.options.retainOnDelete).toBe(true);
        expect(key.options.protect).toBe(t === "prod");
      }
    },
  },
  "default node pool": {
    says: ["`removeDefaultNodePool: true`"],
    holds: async () => {
      for (const t of tiers) expect(at(await clusterArgs(t), "removeDefaultNodePool")).toBe(true);
    },
  },
  "pool size after creation": {
    says: ['`ignoreChanges: ["initialNodeCount"]`'],
    holds: async () => {
      for (const t of tiers)
        expect(one(await cluster(t), NODE_POOL).options.ignoreChanges).toEqual(["initialNodeCount"]);
    },
  },
  "pool replacement": {
    says: ["`deleteBeforeReplace: false`", "`<name>-spot`"],
    holds: async () => {
      const dev = one(await cluster("dev"), NODE_POOL);
      expect(dev.options.deleteBeforeReplace).toBe(false);
      expect(at(dev, "name")).toBe("default-spot");
      expect(at(one(await cluster("prod"), NODE_POOL), "name")).toBe("default");
    },
  },
  "pool protection": {
    says: ["`protect` in prod", "`nodePools[].protect`"],
    holds: async () => {
      for (const t of tiers) expect(one(await cluster(t), NODE_POOL).options.protect).toBe(t === "prod");
    },
  },
  "node service account": {
    says: [
      "`roles/container.defaultNodeServiceAccount`",
      "`roles/artifactregistry.reader`",
      "`imageRepositories`",
    ],
    holds: async () => {
      for (const t of tiers) {
        expect(ofType(await cluster(t), PROJECT_MEMBER).map((m) => at(m, "role"))).toEqual([
          "roles/container.defaultNodeServiceAccount",
          "roles/artifactregistry.reader",
        ]);
      }
    },
  },
  "deletion protection": {
    says: ["`deletionProtection: true` in prod"],
    holds: async () => {
      for (const t of tiers) expect(at(await clusterArgs(t), "deletionProtection")).toBe(t === "prod");
    },
  },
  "maintenance window": {
    says: ["`FREQ=WEEKLY;BYDAY=SA,SU`", "02:00-08:00 UTC in staging and prod", "none in dev"],
    holds: async () => {
      expect(at(await clusterArgs("dev"), "maintenancePolicy")).toBeUndefined();
      for (const t of ["staging", "prod"]) {
        expect(at(await clusterArgs(t), "maintenancePolicy", "recurringWindow")).toEqual({
          startTime: "2024-01-01T02:00:00Z",
          endTime: "2024-01-01T08:00:00Z",
          recurrence: "FREQ=WEEKLY;BYDAY=SA,SU",
        });
      }
    },
  },
  "maintenance exclusions": {
    says: ["`maintenance.exclusions`", "`NO_UPGRADES` longer than 30 days is refused"],
    holds: async () => {
      const c = await clusterArgs("prod", {
        cluster: {
          maintenance: {
            days: ["SA", "SU"],
            start: "02:00",
            hours: 6,
            exclusions: [{ name: "freeze", start: "2026-12-20T00:00:00Z", end: "2027-01-05T00:00:00Z" }],
          },
        },
      });
      expect(at(c, "maintenancePolicy", "maintenanceExclusions")).toEqual([
        expect.objectContaining({ exclusionName: "freeze", exclusionOptions: { scope: "NO_UPGRADES" } }),
      ]);
    },
  },
  "Backup for GKE": {
    says: ["daily plan in staging and prod", "Secrets and volumes", "encrypted", "30 days, locked 7"],
    holds: async () => {
      expect(ofType(await cluster("dev"), BACKUP_PLAN)).toEqual([]);
      for (const t of ["staging", "prod"]) {
        const plan = one(await cluster(t), BACKUP_PLAN);
        expect(at(plan, "backupSchedule")).toEqual({ cronSchedule: "0 22 * * *" });
        expect(at(plan, "backupConfig")).toMatchObject({
          includeSecrets: true,
          includeVolumeData: true,
          encryptionKey: {
            gcpKmsEncryptionKey: expect.stringContaining("/cryptoKeys/gke-secrets") as unknown,
          },
        });
      }
      expect(at(one(await cluster("prod"), BACKUP_PLAN), "retentionPolicy")).toEqual({
        backupRetainDays: 30,
        backupDeleteLockDays: 7,
      });
    },
  },
  APIs: {
    says: ["`disableOnDestroy: false`", "service agent created before its KMS grant"],
    holds: async () => {
      for (const t of tiers) {
        const result = await cluster(t);
        const services = ofType(result, SERVICE);
        expect(services.map((s) => at(s, "service"))).toContain("container.googleapis.com");
        for (const s of services) expect(at(s, "disableOnDestroy")).toBe(false);
        const agent = ofType(result, SERVICE_IDENTITY).find(
          (a) => at(a, "service") === "container.googleapis.com",
        );
        const grant = ofType(result, "gcp:kms/cryptoKeyIAMMember:CryptoKeyIAMMember")[0];
        expect(grant.dependencies).toContain(agent?.key);
      }
    },
  },
  "Binary Authorization": {
    says: ["`PROJECT_SINGLETON_POLICY_ENFORCE` in staging and prod"],
    holds: async () => {
      for (const t of tiers) {
        expect(at(await clusterArgs(t), "binaryAuthorization", "evaluationMode")).toBe(
          t === "dev" ? "DISABLED" : "PROJECT_SINGLETON_POLICY_ENFORCE",
        );
      }
    },
  },
  "cost allocation": {
    says: ["`costManagementConfig.enabled: true`"],
    holds: async () => {
      for (const t of tiers)
        expect(at(await clusterArgs(t), "costManagementConfig")).toEqual({ enabled: true });
    },
  },
  "security posture": {
    says: ["`BASIC`", "`VULNERABILITY_DISABLED`"],
    holds: async () => {
      for (const t of tiers) {
        expect(at(await clusterArgs(t), "securityPostureConfig")).toEqual({
          mode: "BASIC",
          vulnerabilityMode: "VULNERABILITY_DISABLED",
        });
      }
    },
  },
  "Gateway API": {
    says: ["`CHANNEL_STANDARD`"],
    holds: async () => {
      for (const t of tiers)
        expect(at(await clusterArgs(t), "gatewayApiConfig")).toEqual({ channel: "CHANNEL_STANDARD" });
    },
  },
  "NodeLocal DNSCache": {
    says: ["`dnsCacheConfig.enabled: true`"],
    holds: async () => {
      for (const t of tiers)
        expect(at(await clusterArgs(t), "addonsConfig", "dnsCacheConfig")).toEqual({ enabled: true });
    },
  },
  "Managed Prometheus": {
    says: ["`monitoring.backend: managed-prometheus`"],
    holds: async () => {
      const managed = await clusterArgs("prod", { monitoring: { backend: "managed-prometheus" } });
      expect(at(managed, "monitoringConfig", "managedPrometheus")).toEqual({ enabled: true });
      expect(at(await clusterArgs("prod"), "monitoringConfig", "managedPrometheus")).toEqual({
        enabled: false,
      });
    },
  },
  "load balancer logs and Cloud Armor": {
    says: ["request logs on in prod", "health-check logs", "`expose.securityPolicy`"],
    holds: async () => {
      const app = {
        name: "shop",
        image: "europe-west1-docker.pkg.dev/acme-test/images/shop:1.0",
        port: 8080,
        expose: { host: "shop.example.com", securityPolicy: "shop-waf" },
      };
      for (const t of tiers) {
        const result = await renderPlatform({ tier: t, apps: [app] });
        const backend = find(result, "GCPBackendPolicy", "shop", "shop").inputs.spec as {
          default: Record<string, unknown>;
        };
        expect(backend.default.logging).toEqual(
          t === "prod" ? { enabled: true, sampleRate: 1_000_000 } : { enabled: false },
        );
        expect(backend.default.securityPolicy).toBe("shop-waf");
        const health = find(result, "HealthCheckPolicy", "shop", "shop").inputs.spec as {
          default: Record<string, unknown>;
        };
        expect(health.default.logConfig).toEqual({ enabled: true });
      }
    },
  },
};

const rows = sideBySide();

test("docs/gke.md compares every setting the platform checks, and nothing else", () => {
  expect(rows.length).toBeGreaterThan(20);
  expect(rows.map(([setting]) => setting).sort()).toEqual(Object.keys(claims).sort());
});

describe.each(rows)("%s", (setting, ours) => {
  test("this project's cell says what the check holds, and the renders hold it", async () => {
    const claim = claims[setting];
    for (const words of claim.says) expect(ours).toContain(words);
    await claim.holds();
  });
});
