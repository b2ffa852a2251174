/** What differs between the tiers (dev, staging, prod), each default with its reason. */
import type { Filled, Section } from "./frozen";
import type { Maintenance, NodePool, TeamQuota } from "./resolved";
import type { Tier, releaseChannels } from "./schema";

/** What differs between tiers. Everything else is the same secure default everywhere. */
export interface TierDefaults {
  readonly zonal: boolean;
  readonly releaseChannel: (typeof releaseChannels)[number];
  readonly nodePool: Omit<NodePool, "protect">;
  readonly backupAgent: boolean;
  readonly backups: BackupPlanSettings | null;
  readonly binaryAuthorization: "enforce" | "disabled";
  readonly deletionProtection: boolean;
  readonly protect: boolean;
  readonly maintenance: Maintenance | null;
  readonly replicas: number;
  /** Prometheus keeps its TSDB on a PersistentVolumeClaim per replica (sizing.prometheus.storage). */
  readonly persistentMonitoring: boolean;
  /** Each team namespace's ResourceQuota, where the team sets none (teams[].quota). */
  readonly teamQuota: TeamQuota;
}

export type BackupPlanSettings = Filled<NonNullable<Section<"cluster">["backups"]>>;

// Daily at 22:00 UTC: outside European business hours and clear of the weekend maintenance window.
// Secrets and volume data included: a restore without them brings back objects that cannot run.
export const dailyBackups: BackupPlanSettings = {
  schedule: "0 22 * * *",
  retainDays: 7,
  deleteLockDays: 0,
  includeSecrets: true,
  includeVolumeData: true,
};

// GKE requires 48h of maintenance availability in any 32 days, in windows of at least 4h
// (cloud.google.com/kubernetes-engine/docs/concepts/maintenance-windows-and-exclusions):
// two 6h weekend windows give 48h in the worst 32 days (four of each weekday), exactly what it needs.
const weekendWindow: Maintenance = { days: ["SA", "SU"], start: "02:00", hours: 6, exclusions: [] };

// Two n2-standard-4 nodes' worth of requests: room for a team's replicated apps with their proxies and a
// rollout's surge, while no one team can take the six nodes prod keeps through a zone loss. Limits at twice
// the requests, the ratio of the platform's own app containers (128Mi requested, 256Mi limit).
const prodTeamQuota: TeamQuota = {
  requests: { cpu: "8", memory: "16Gi" },
  limits: { memory: "32Gi" },
  pods: 100,
};

export const tierDefaults: Record<Tier, TierDefaults> = {
  dev: {
    // One zone: nodes are not tripled across three zones. (GKE's management fee is per cluster, zonal or
    // regional; its free tier waives it for one zonal or Autopilot cluster per billing account.)
    zonal: true,
    // REGULAR gets new GKE versions weeks before STABLE, so dev meets them first.
    releaseChannel: "REGULAR",
    // Spot e2 nodes: the cheapest that still fit a mesh, an ingress and monitoring.
    nodePool: {
      name: "default",
      machineType: "e2-standard-4",
      minNodes: 1,
      maxNodes: 3,
      spot: true,
      diskSizeGb: 50,
      labels: {},
    },
    // Nothing in dev is worth restoring.
    backupAgent: false,
    backups: null,
    // Dev runs images from wherever a developer builds them.
    binaryAuthorization: "disabled",
    // Dev is rebuilt freely.
    deletionProtection: false,
    protect: false,
    // Dev takes upgrades whenever GKE schedules them.
    maintenance: null,
    replicas: 1,
    // An emptyDir: dev is torn down freely, and a StatefulSet's PersistentVolumeClaims outlive it (disks left behind).
    persistentMonitoring: false,
    // Small: a few one-replica apps and their proxies, so one team's runaway Deployment cannot fill dev's small pool.
    teamQuota: { requests: { cpu: "2", memory: "4Gi" }, limits: { memory: "8Gi" }, pods: 20 },
  },
  staging: {
    // Like prod, so regional failure modes show up before prod.
    zonal: false,
    releaseChannel: "REGULAR",
    // Regional: min 1 per zone is 3 nodes, enough to exercise PodDisruptionBudgets.
    nodePool: {
      name: "default",
      machineType: "e2-standard-4",
      minNodes: 1,
      maxNodes: 3,
      spot: false,
      diskSizeGb: 100,
      labels: {},
    },
    // Backups on, so restores are rehearsed before prod needs one; a week of them is enough to rehearse.
    backupAgent: true,
    backups: dailyBackups,
    // As prod, so an image the policy refuses is refused here first.
    binaryAuthorization: "enforce",
    // Staging may be recreated from code; prod may not.
    deletionProtection: false,
    protect: false,
    maintenance: weekendWindow,
    replicas: 2,
    // As prod, so the volume's life (zonal disks, resizing, backups with volume data) is rehearsed before prod.
    persistentMonitoring: true,
    // As prod, so an app that outgrows its team's quota is refused here first.
    teamQuota: prodTeamQuota,
  },
  prod: {
    // Regional control plane and nodes in three zones survive a zone outage.
    zonal: false,
    // STABLE takes versions after they have soaked in RAPID and REGULAR.
    releaseChannel: "STABLE",
    // n2 for steady CPU; min 2 per zone keeps 6 nodes through a zone loss and a rollout.
    nodePool: {
      name: "default",
      machineType: "n2-standard-4",
      minNodes: 2,
      maxNodes: 10,
      spot: false,
      diskSizeGb: 100,
      labels: {},
    },
    backupAgent: true,
    // A month of daily backups; none can be deleted in its first week, by mistake or by an attacker.
    backups: { ...dailyBackups, retainDays: 30, deleteLockDays: 7 },
    // Only images the project's policy allows run in prod (safer-cluster enforces it always).
    binaryAuthorization: "enforce",
    // Losing prod by a stray `pulumi destroy` or console click is not recoverable.
    deletionProtection: true,
    protect: true,
    maintenance: weekendWindow,
    replicas: 2,
    // The certificate and identity alerts keep their history and pending state through a restart.
    persistentMonitoring: true,
    teamQuota: prodTeamQuota,
  },
};
