import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";

export interface SecretsKeyArgs {
  /** The project of the key ring and key the platform creates. */
  readonly project: string;
  /** KMS location; GKE needs the key in the cluster's region. */
  readonly location: string;
  /** Rotation period of the key the platform creates, in days. */
  readonly rotationDays: number;
  /** Protect the key: destroying it makes every Secret in etcd unreadable. */
  readonly protect: boolean;
  /**
   * An existing key's id (`projects/…/cryptoKeys/…`) to use instead of creating a key ring and key.
   * @default none: a key ring with a random suffix and a key `gke-secrets` in it
   */
  readonly existingKey?: string;
  /**
   * Service agents (`serviceAccount:…` members) that encrypt and decrypt with the key, by a short name
   * for their binding: GKE's, and Backup for GKE's when backups are encrypted with it.
   * @default { "gke-agent": GKE's service agent, from the project number }
   */
  readonly members?: Readonly<Record<string, pulumi.Input<string>>>;
}

/** The role GKE's service agent needs on the key to encrypt and decrypt Secrets in etcd. */
export const encrypterDecrypterRole = "roles/cloudkms.cryptoKeyEncrypterDecrypter";

/** `serviceAccount:service-<PROJECT_NUMBER>@container-engine-robot.iam.gserviceaccount.com` */
export function gkeServiceAgent(projectNumber: pulumi.Input<string>): pulumi.Output<string> {
  return pulumi.interpolate`serviceAccount:service-${projectNumber}@container-engine-robot.iam.gserviceaccount.com`;
}

/** The Pulumi resource name of the key ring, which Pulumi's auto-naming extends with a random suffix. */
export function keyRingResourceName(name: string): string {
  return `${name}-ring`;
}

/**
 * A Cloud KMS key for GKE application-layer secrets encryption (created, or an existing one), and the
 * IAM bindings that let the service agents use it. The cluster must depend on `bindings`: GKE checks
 * access on create.
 *
 * Cloud KMS never deletes key rings or keys, so both are retained on delete, and the key ring takes
 * Pulumi's auto-name (its resource name and a random suffix, kept in state): `pulumi destroy` then
 * `pulumi up` creates a new ring beside the old one instead of colliding with it.
 */
export class SecretsKey extends pulumi.ComponentResource {
  readonly keyId: pulumi.Output<string>;
  /** The IAM bindings; the cluster and backup plans depend on them. */
  readonly bindings: readonly gcp.kms.CryptoKeyIAMMember[];

  constructor(name: string, args: SecretsKeyArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:gcp:SecretsKey", name, {}, opts);
    // Everything here waits for what the component waits for (the project's APIs).
    const parent = { parent: this, dependsOn: opts?.dependsOn };

    let keyId: pulumi.Input<string>;
    if (args.existingKey !== undefined) {
      keyId = args.existingKey;
    } else {
      const keyRing = new gcp.kms.KeyRing(
        keyRingResourceName(name),
        // No name: Pulumi names it `<resource name>-<random suffix>` once and keeps it in state.
        { project: args.project, location: args.location },
        {
          ...parent,
          // Cloud KMS cannot delete key rings; a destroy only forgets this one.
          retainOnDelete: true,
          // Stacks made before the suffix keep their ring's fixed name instead of replacing the key.
          ignoreChanges: ["name"],
        },
      );
      const key = new gcp.kms.CryptoKey(
        `${name}-key`,
        {
          name: "gke-secrets",
          keyRing: keyRing.id,
          purpose: "ENCRYPT_DECRYPT",
          rotationPeriod: `${args.rotationDays * 86400}s`,
        },
        // Deleting a CryptoKey destroys its versions (Cloud KMS keeps the key itself), which would leave
        // the cluster's Secrets and encrypted backups unreadable: a destroy only forgets it.
        { ...parent, protect: args.protect, retainOnDelete: true },
      );
      keyId = key.id;
    }

    const members = args.members ?? {
      "gke-agent": gkeServiceAgent(
        gcp.organizations.getProjectOutput({ projectId: args.project }, { parent: this }).number,
      ),
    };
    this.bindings = Object.entries(members).map(
      ([agent, member]) =>
        new gcp.kms.CryptoKeyIAMMember(
          `${name}-${agent}`,
          { cryptoKeyId: keyId, role: encrypterDecrypterRole, member },
          parent,
        ),
    );

    this.keyId = pulumi.output(keyId);
    this.registerOutputs({ keyId: this.keyId });
  }
}
