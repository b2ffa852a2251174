/** The platform:cluster section: the GKE cluster, its node pools, maintenance, and an existing cluster's reference. */
import { z } from "zod";
import { supportedMinors } from "../../versions";
import { gcpLocationProblem, machineTypeProblem } from "../gcpValues";
import { clusterModes, gatewayApiChannels, maintenanceScopes, releaseChannels, weekdays } from "../schema";
import { showValue } from "../errors";
import { checkedString, valueCheck, type ValueProblem } from "../valueChecks";
import { cidr, resourceName } from "./fields";

// A Cloud KMS key's resource id (cloud.google.com/kms/docs/resource-hierarchy#retrieve_resource_id).
const kmsKeyId = z
  .string()
  .regex(
    /^projects\/[a-z][-a-z0-9]{4,28}[a-z0-9]\/locations\/[a-z0-9-]+\/keyRings\/[a-zA-Z0-9_-]{1,63}\/cryptoKeys\/[a-zA-Z0-9_-]{1,63}$/,
    "a Cloud KMS key id such as projects/acme-sec/locations/europe-west1/keyRings/gke/cryptoKeys/secrets",
  );

// GCP label keys and values (cloud.google.com/resource-manager/docs/labels-overview#requirements).
const labels = z.record(
  z
    .string()
    .regex(
      /^[a-z][a-z0-9_-]{0,62}$/,
      "a GCP label key: lowercase, starting with a letter, at most 63 characters, such as team",
    ),
  z
    .string()
    .regex(
      /^[a-z0-9_-]{0,63}$/,
      "a GCP label value: lowercase letters, digits, '_' and '-', at most 63 characters, such as payments",
    ),
);

export const nodePoolSchema = z.strictObject({
  name: resourceName,
  machineType: checkedString(machineTypeProblem),
  /** Nodes per zone, lower bound of the autoscaler. */
  minNodes: z.int().min(0).max(1000),
  /** Nodes per zone, upper bound of the autoscaler. */
  maxNodes: z.int().min(1).max(1000),
  /**
   * Spot VMs: up to 91% cheaper, preemptible. GKE cannot change it in place: a spot pool is named
   * `<name>-spot`, so changing it creates the new pool beside the old one, then drains and deletes the
   * old one (in prod, set the pool's protect to false for that change). @default true in dev, false elsewhere
   */
  spot: z.boolean().optional(),
  /** Boot disk size. @default 50 in dev, 100 elsewhere */
  diskSizeGb: z.int().min(10).max(65536).optional(),
  /** Kubernetes labels on the nodes. */
  labels: z.record(z.string(), z.string()).optional(),
  /** Pulumi `protect` on this pool: replacing or removing it needs this off first. @default cluster.protect */
  protect: z.boolean().optional(),
});

const utcTimestamp = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/, "a UTC time in RFC 3339 such as 2026-12-20T00:00:00Z");

export const maintenanceSchema = z.strictObject({
  /** Days of the weekly window. */
  days: z.array(z.enum(weekdays)).min(1),
  /** Start time, UTC, HH:MM. */
  start: z.string().regex(/^([01][0-9]|2[0-3]):[0-5][0-9]$/, "a UTC time HH:MM such as 02:00"),
  /** Length of each window in hours. */
  hours: z.int().min(1).max(24),
  /**
   * Periods when GKE must not upgrade automatically (a release freeze, a sale). GKE allows up to 20.
   * @default none
   */
  exclusions: z
    .array(
      z.strictObject({
        /** Names the exclusion in GKE. */
        name: resourceName,
        /** UTC, RFC 3339. */
        start: utcTimestamp,
        /** UTC, RFC 3339; at most 30 days after start for NO_UPGRADES. */
        end: utcTimestamp,
        /** What is held back. @default NO_UPGRADES (nothing changes) */
        scope: z.enum(maintenanceScopes).optional(),
      }),
    )
    .max(20)
    .optional(),
});

/**
 * Google Groups for RBAC's security group (cloud.google.com/kubernetes-engine/docs/how-to/google-groups-rbac):
 * `gke-security-groups@` and the Google Workspace or Cloud Identity domain. The groups RBAC names must
 * be its members; GKE takes no other local part.
 */
export function securityGroupProblem(value: string): ValueProblem | undefined {
  const match = /^([^@\s]+)@([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})$/.exec(value);
  if (match && match[1] === "gke-security-groups") return undefined;
  const domain = match?.[2] ?? "example.com";
  return {
    problem: match
      ? `${showValue(value)} is not GKE's security group: its local part is ${showValue(match[1])}`
      : `${showValue(value)} is not an email address`,
    allowed:
      "gke-security-groups@ and your Google Workspace or Cloud Identity domain, such as gke-security-groups@example.com",
    fix: (path) => `set ${path} to gke-security-groups@${domain}`,
  };
}

export const existingClusterSchema = z.strictObject({
  /** Name of a GKE cluster made elsewhere; the platform reads its endpoint and CA. */
  name: resourceName.optional(),
  /** Zone or region of that cluster. */
  location: checkedString(gcpLocationProblem).optional(),
  /** Path of a kubeconfig file to use instead of name and location (any conformant cluster). */
  kubeconfigPath: z.string().min(1).optional(),
  /** Context inside that kubeconfig. @default its current-context */
  context: z.string().min(1).optional(),
});

export const clusterSchema = z.strictObject({
  /** standard, autopilot, or existing (install onto a cluster made elsewhere). @default standard */
  mode: z.enum(clusterModes).optional(),
  /** Cluster name. @default `gke-<stack>` */
  name: resourceName.optional(),
  /** Zone (zonal cluster) or region (regional). @default `<region>-b` in dev, the region elsewhere and on Autopilot */
  location: checkedString(gcpLocationProblem).optional(),
  /** GKE release channel. @default REGULAR, STABLE in prod */
  releaseChannel: z.enum(releaseChannels).optional(),
  /**
   * The Kubernetes minor the cluster runs at least: GKE's minimum control-plane version for a cluster the
   * platform creates (GKE upgrades further within the channel); for an existing cluster, the minor it
   * runs. It decides the Gateway API version GKE serves. @default the release channel's auto-upgrade
   * target (lib/versions/kubernetes.ts releaseChannelMinors)
   */
  kubernetesVersion: z.enum(supportedMinors).optional(),
  /** GKE's Gateway API channel. @default standard */
  gatewayApi: z.enum(gatewayApiChannels).optional(),
  /** Nodes without public IPs. @default true */
  privateNodes: z.boolean().optional(),
  /** The control plane's IP endpoint reachable only from inside the VPC (needs ipEndpoints). @default false */
  privateEndpoint: z.boolean().optional(),
  /**
   * CIDRs allowed to reach the control plane's IP endpoints (needs ipEndpoints). @default none (any
   * address, IAM still required; warned)
   */
  authorizedNetworks: z.array(z.strictObject({ name: z.string().min(1), cidr })).optional(),
  /**
   * The DNS-based control-plane endpoint: reachable from any network, every request authenticated and
   * authorized by IAM; the kubeconfig uses it. @default true
   */
  dnsEndpoint: z.boolean().optional(),
  /**
   * The control plane's IP endpoints (public and private). @default true when authorizedNetworks or
   * privateEndpoint is set, false otherwise
   */
  ipEndpoints: z.boolean().optional(),
  /**
   * Dataplane V2 (eBPF, network policy enforcement). Chosen when the cluster is created: GKE cannot
   * change it, so later changes are ignored. @default true
   */
  dataplaneV2: z.boolean().optional(),
  /** Managed Service for Prometheus collection. @default true when monitoring.backend is managed-prometheus */
  managedPrometheus: z.boolean().optional(),
  /** NodeLocal DNSCache. @default true */
  nodeLocalDns: z.boolean().optional(),
  /** Backup for GKE agent. @default true in staging and prod, and wherever backups is set */
  backupAgent: z.boolean().optional(),
  /**
   * A Backup for GKE plan: every namespace on a schedule, Secrets and volume data included, encrypted
   * with the platform's KMS key; null for none. Needs backupAgent. @default staging: daily, kept 7 days;
   * prod: daily, kept 30 days and undeletable for 7; dev: none
   */
  backups: z
    .strictObject({
      /** When backups are taken: a cron schedule in UTC. @default "0 22 * * *" */
      schedule: z
        .string()
        .regex(/^\S+( \S+){4}$/, 'a cron schedule of five fields, in UTC, such as "0 22 * * *"')
        .optional(),
      /** Days a backup is kept, then deleted. @default 7, 30 in prod */
      retainDays: z.int().min(1).max(365).optional(),
      /** Days a backup cannot be deleted by anyone. @default 0, 7 in prod */
      deleteLockDays: z.int().min(0).max(90).optional(),
      /** Back up Secrets (encrypted with the platform's key). @default true */
      includeSecrets: z.boolean().optional(),
      /** Back up persistent volumes' data, not only the objects. @default true */
      includeVolumeData: z.boolean().optional(),
    })
    .nullable()
    .optional(),
  /** Application-layer secrets encryption with a Cloud KMS key the platform creates, or one it adopts. */
  secretsEncryption: z
    .strictObject({
      /** @default true */
      enabled: z.boolean().optional(),
      /** Key rotation period in days, for the key the platform creates. @default 90 */
      rotationDays: z.int().min(1).max(36500).optional(),
      /**
       * An existing Cloud KMS key to use instead of creating one (its key ring is never touched); the
       * platform only grants GKE's service agent access. @default none: the platform creates a key ring
       * with a random suffix and a key in it
       */
      key: kmsKeyId.optional(),
    })
    .optional(),
  /** GKE deletion protection. @default true in prod */
  deletionProtection: z.boolean().optional(),
  /**
   * Pulumi `protect` on the cluster, the KMS key the platform creates, the node pools (unless a pool's
   * own `protect` says otherwise) and the backup plan; not on the network. @default true in prod
   */
  protect: z.boolean().optional(),
  /** Weekly maintenance window; null for "any time". @default SA,SU 02:00 UTC for 6h in staging and prod */
  maintenance: maintenanceSchema.nullable().optional(),
  /** GCP labels on the cluster, beside environment (the tier), stack and managed-by. */
  labels: labels
    // `environment` comes from the tier: the prod-protected safety check and the policy pack read it.
    .check(
      valueCheck((l) =>
        "environment" in l
          ? {
              problem: `sets "environment", which the platform sets from platform:tier`,
              allowed: "GCP labels other than environment, such as team: payments",
              fix: (path) => `remove environment from ${path}; platform:tier sets it`,
            }
          : undefined,
      ),
    )
    .optional(),
  /** Node pools (Standard mode). @default one autoscaled pool sized per tier */
  nodePools: z.array(nodePoolSchema).min(1).optional(),
  /**
   * Artifact Registry repositories nodes pull images from, `<location>/<repository>` or
   * `projects/<project>/locations/<location>/repositories/<repository>`: read access on each alone.
   * @default none: read access to every repository of the project
   */
  imageRepositories: z
    .array(
      z
        .string()
        .regex(
          /^(projects\/[a-z][-a-z0-9]{4,28}[a-z0-9]\/locations\/[a-z0-9-]+\/repositories\/[a-z][-a-z0-9]{0,62}|[a-z0-9-]+\/[a-z][-a-z0-9]{0,62})$/,
          "an Artifact Registry repository such as europe-west1/images or projects/acme-shared/locations/europe/repositories/images",
        ),
    )
    .min(1)
    .optional(),
  /** Roles for the node service account beyond GKE's node role and image pulls, e.g. roles/secretmanager.secretAccessor. */
  nodeServiceAccountRoles: z
    .array(z.string().regex(/^roles\/[a-zA-Z0-9_.]+$/, "a role such as roles/artifactregistry.reader"))
    .optional(),
  /**
   * Enable the Google Cloud APIs the cluster and its load balancers use (never disabled on destroy), and
   * create GKE's service agent, before anything that needs them: a fresh project works on the first
   * `pulumi up`. @default true for the clusters the platform creates
   */
  enableApis: z.boolean().optional(),
  /** GKE cost allocation: namespace and label costs in the billing export. @default true */
  costAllocation: z.boolean().optional(),
  /** GKE security posture: workload configuration auditing (basic) in the console. @default basic */
  securityPosture: z.enum(["basic", "disabled"]).optional(),
  /**
   * Binary Authorization: `enforce` admits only images the project's policy allows (its default policy
   * allows all, until the security team narrows it). @default enforce in staging and prod, disabled in dev
   */
  binaryAuthorization: z.enum(["enforce", "disabled"]).optional(),
  /**
   * Google Groups for RBAC: Kubernetes RBAC matches a Group subject named by a Google group's email only
   * when the group is a member of this security group (teams' group access needs it).
   */
  googleGroups: z
    .strictObject({
      /**
       * `gke-security-groups@<your domain>`. @default none: the cluster's setting is left as it is (a new
       * cluster has none, so Group subjects match no one)
       */
      securityGroup: checkedString(securityGroupProblem).optional(),
    })
    .optional(),
  /**
   * Let the Kubernetes provider drop from Pulumi state the objects of a cluster it cannot reach, e.g.
   * one deleted or recreated outside Pulumi (docs/gke.md); turn it on for that one `pulumi refresh`.
   * @default false
   */
  deleteUnreachable: z.boolean().optional(),
  /** Autopilot settings. */
  autopilot: z
    .strictObject({
      /** Allow NET_ADMIN for mesh init containers. @default true when a sidecar mesh without CNI is chosen */
      allowNetAdmin: z.boolean().optional(),
    })
    .optional(),
  /** Existing-cluster mode: which cluster. */
  existing: existingClusterSchema.optional(),
});
