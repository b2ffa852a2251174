import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";

/**
 * What a node needs to write logs and metrics and nothing more (GKE hardening guide, "Use least
 * privilege Google service accounts"). The Compute Engine default account has Editor on the project.
 */
export const nodeRoles = [
  "roles/logging.logWriter",
  "roles/monitoring.metricWriter",
  "roles/monitoring.viewer",
  "roles/stackdriver.resourceMetadata.writer",
] as const;

export interface NodeServiceAccountArgs {
  readonly project: string;
  /** Service account id, 6 to 30 characters. */
  readonly accountId: string;
  /** Roles beyond logging and monitoring, e.g. roles/artifactregistry.reader. */
  readonly extraRoles: readonly string[];
}

/** A least-privilege service account for GKE nodes. */
export class NodeServiceAccount extends pulumi.ComponentResource {
  readonly email: pulumi.Output<string>;
  /** The role bindings; node pools depend on them so nodes never start without log access. */
  readonly bindings: readonly gcp.projects.IAMMember[];

  constructor(name: string, args: NodeServiceAccountArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:gcp:NodeServiceAccount", name, {}, opts);
    const account = new gcp.serviceaccount.Account(
      name,
      { project: args.project, accountId: args.accountId, displayName: "GKE nodes (least privilege)" },
      { parent: this },
    );
    this.bindings = [...nodeRoles, ...args.extraRoles].map(
      (role) =>
        new gcp.projects.IAMMember(
          `${name}-${role.replace(/^roles\//, "").replace(/[^a-zA-Z0-9]+/g, "-")}`,
          { project: args.project, role, member: account.member },
          { parent: this },
        ),
    );
    this.email = account.email;
    this.registerOutputs({ email: this.email });
  }
}

/** A valid service account id (6-30 chars, lowercase, starts with a letter) from a cluster name. */
export function nodeAccountId(clusterName: string): string {
  const id = `${clusterName}-nodes`
    .replace(/[^a-z0-9-]/g, "-")
    .slice(0, 30)
    .replace(/-+$/, "");
  return id.length >= 6 ? id : `${id}-gke-nodes`.slice(0, 30);
}
