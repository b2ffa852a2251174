import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";

export interface SecretsKeyArgs {
  readonly project: string;
  /** KMS location; GKE needs the key in the cluster's region. */
  readonly location: string;
  readonly keyRingName: string;
  readonly rotationDays: number;
  /** Protect the key: destroying it makes every Secret in etcd unreadable. */
  readonly protect: boolean;
}

/** The role GKE's service agent needs on the key to encrypt and decrypt Secrets in etcd. */
export const encrypterDecrypterRole = "roles/cloudkms.cryptoKeyEncrypterDecrypter";

/** `serviceAccount:service-<PROJECT_NUMBER>@container-engine-robot.iam.gserviceaccount.com` */
export function gkeServiceAgent(projectNumber: pulumi.Input<string>): pulumi.Output<string> {
  return pulumi.interpolate`serviceAccount:service-${projectNumber}@container-engine-robot.iam.gserviceaccount.com`;
}

/**
 * A Cloud KMS key ring and key for GKE application-layer secrets encryption, and the IAM binding that
 * lets GKE's service agent use it. The cluster must depend on `binding`: GKE checks access on create.
 */
export class SecretsKey extends pulumi.ComponentResource {
  readonly keyId: pulumi.Output<string>;
  /** The IAM binding; the cluster depends on it. */
  readonly binding: gcp.kms.CryptoKeyIAMMember;

  constructor(name: string, args: SecretsKeyArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:gcp:SecretsKey", name, {}, opts);
    const parent = { parent: this };

    const keyRing = new gcp.kms.KeyRing(
      `${name}-ring`,
      { name: args.keyRingName, project: args.project, location: args.location },
      // Key rings cannot be deleted in Cloud KMS; a destroy would only forget it.
      { ...parent, retainOnDelete: true },
    );
    const key = new gcp.kms.CryptoKey(
      `${name}-key`,
      {
        name: "gke-secrets",
        keyRing: keyRing.id,
        purpose: "ENCRYPT_DECRYPT",
        rotationPeriod: `${args.rotationDays * 86400}s`,
      },
      { ...parent, protect: args.protect },
    );
    const project = gcp.organizations.getProjectOutput({ projectId: args.project }, parent);
    this.binding = new gcp.kms.CryptoKeyIAMMember(
      `${name}-gke-agent`,
      {
        cryptoKeyId: key.id,
        role: encrypterDecrypterRole,
        member: gkeServiceAgent(project.number),
      },
      parent,
    );

    this.keyId = key.id;
    this.registerOutputs({ keyId: this.keyId });
  }
}
