import { autoName, placeholder } from "../../lib/render";
import { at, ofType, one } from "../helpers";
import {
  BACKUP_PLAN,
  CLUSTER,
  KMS_MEMBER,
  SERVICE,
  SERVICE_IDENTITY,
  planProblems,
  renderCluster,
} from "./gke";

const keyId = `projects/acme-test/locations/europe-west1/keyRings/${autoName("gke-test-secrets-ring")}/cryptoKeys/gke-secrets`;
const clusterId = "projects/acme-test/locations/europe-west1/clusters/gke-test";
const labels = { stack: "test", "managed-by": "pulumi", environment: "staging" };

describe("Backup for GKE", () => {
  test("staging backs up every namespace daily, Secrets and volumes, encrypted with the platform's key", async () => {
    const result = await renderCluster({ tier: "staging" });
    const plan = one(result, BACKUP_PLAN);
    expect(plan.inputs).toEqual({
      project: "acme-test",
      location: "europe-west1",
      cluster: clusterId,
      backupSchedule: { cronSchedule: "0 22 * * *" },
      retentionPolicy: { backupRetainDays: 7, backupDeleteLockDays: 0 },
      backupConfig: {
        allNamespaces: true,
        includeSecrets: true,
        includeVolumeData: true,
        encryptionKey: { gcpKmsEncryptionKey: keyId },
      },
      labels,
    });
    // No fixed name (Pulumi adds a random suffix), and kept by a destroy: backups outlive the cluster.
    expect(plan.options).toMatchObject({ retainOnDelete: true, protect: false });
    expect(at(one(result, CLUSTER), "addonsConfig", "gkeBackupAgentConfig")).toEqual({ enabled: true });
  });

  test("Backup for GKE's agent may use the key, and exists before it is granted it", async () => {
    const result = await renderCluster({ tier: "staging" });
    const agents = ofType(result, SERVICE_IDENTITY);
    expect(agents.map((a) => at(a, "service"))).toEqual([
      "container.googleapis.com",
      "gkebackup.googleapis.com",
    ]);
    const binding = ofType(result, KMS_MEMBER).find((b) => b.name === "gke-test-secrets-backup-agent");
    expect(binding?.inputs).toEqual({
      cryptoKeyId: keyId,
      role: "roles/cloudkms.cryptoKeyEncrypterDecrypter",
      member: `serviceAccount:service-${placeholder("project number of acme-test")}@gcp-sa-gkebackup.iam.gserviceaccount.com`,
    });
    expect(binding?.dependencies).toContain(agents[1].key);
    expect(one(result, BACKUP_PLAN).dependsOn).toContain(binding?.key);
    expect(ofType(result, SERVICE).map((s) => at(s, "service"))).toContain("gkebackup.googleapis.com");
  });

  test("prod keeps a month of backups, none deletable in its first week, and protects the plan", async () => {
    const plan = one(await renderCluster({ tier: "prod" }), BACKUP_PLAN);
    expect(at(plan, "retentionPolicy")).toEqual({ backupRetainDays: 30, backupDeleteLockDays: 7 });
    expect(plan.options.protect).toBe(true);
  });

  test("dev takes none, unless asked: a plan asked for turns the agent on", async () => {
    expect(ofType(await renderCluster({ tier: "dev" }), BACKUP_PLAN)).toEqual([]);
    const asked = await renderCluster({ tier: "dev", cluster: { backups: { retainDays: 3 } } });
    expect(at(one(asked, BACKUP_PLAN), "retentionPolicy")).toEqual({
      backupRetainDays: 3,
      backupDeleteLockDays: 0,
    });
    expect(at(one(asked, CLUSTER), "addonsConfig", "gkeBackupAgentConfig")).toEqual({ enabled: true });
  });

  test("null turns the plan off; without secrets encryption backups use Google's own encryption", async () => {
    expect(ofType(await renderCluster({ tier: "prod", cluster: { backups: null } }), BACKUP_PLAN)).toEqual(
      [],
    );
    const plain = await renderCluster({
      tier: "staging",
      cluster: { secretsEncryption: { enabled: false } },
    });
    expect(at(one(plain, BACKUP_PLAN), "backupConfig", "encryptionKey")).toBeUndefined();
  });

  test("a plan without its agent, a retention shorter than the lock, or a bad schedule are refused", () => {
    expect(planProblems({ tier: "staging", cluster: { backupAgent: false, backups: {} } })).toEqual([
      {
        path: "platform:cluster.backups",
        problem: "is set, but cluster.backupAgent is false; Backup for GKE takes backups through its agent",
        fix: "set platform:cluster.backupAgent to true, or platform:cluster.backups to null",
      },
    ]);
    expect(planProblems({ tier: "prod", cluster: { backups: { retainDays: 5 } } })).toEqual([
      {
        path: "platform:cluster.backups.retainDays",
        problem: "5 is shorter than deleteLockDays 7; a backup would expire while it cannot be deleted",
        fix: "set retainDays to at least 7, or lower deleteLockDays",
      },
    ]);
    expect(planProblems({ cluster: { backups: { schedule: "daily" } } })).toEqual([
      {
        path: "platform:cluster.backups.schedule",
        problem: '"daily" is not valid',
        allowed: 'a cron schedule of five fields, in UTC, such as "0 22 * * *"',
        fix: 'set platform:cluster.backups.schedule to a cron schedule of five fields, in UTC, such as "0 22 * * *"',
      },
    ]);
  });
});
