import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";

/**
 * What a node needs and nothing more: GKE's role for node service accounts, which holds the logging,
 * monitoring and metadata permissions nodes use (cloud.google.com/kubernetes-engine/docs/how-to/hardening-your-cluster#use_least_privilege_sa,
 * CIS GKE Benchmark 5.2.1; safer-cluster's beta-private-cluster/sa.tf grants it too). The Compute
 * Engine default account has Editor on the project.
 */
export const nodeRoles = ["roles/container.defaultNodeServiceAccount"] as const;

/** Read access to Artifact Registry images, so nodes pull from the project's private repositories. */
export const imagePullRole = "roles/artifactregistry.reader";

/** An Artifact Registry repository, as `imageRepositories` names it. */
export interface ImageRepository {
  /** @default the cluster's project */
  readonly project?: string;
  readonly location: string;
  readonly repository: string;
}

/** `europe-west1/images` or `projects/p/locations/europe-west1/repositories/images`. */
export function parseImageRepository(ref: string): ImageRepository {
  const full = /^projects\/([^/]+)\/locations\/([^/]+)\/repositories\/([^/]+)$/.exec(ref);
  if (full) return { project: full[1], location: full[2], repository: full[3] };
  const [location, repository] = ref.split("/");
  return { location, repository };
}

export interface NodeServiceAccountArgs {
  /** The project of the account and of its project-level role bindings. */
  readonly project: string;
  /** Service account id, 6 to 30 characters. */
  readonly accountId: string;
  /** Roles beyond GKE's node role and image pulls, e.g. roles/secretmanager.secretAccessor. */
  readonly extraRoles: readonly string[];
  /**
   * Artifact Registry repositories nodes pull images from (`<location>/<repository>`, or
   * `projects/<project>/locations/<location>/repositories/<repository>`); read access on each alone.
   * @default [] (read access to every repository of the project)
   */
  readonly imageRepositories?: readonly string[];
}

/** A least-privilege service account for GKE nodes. */
export class NodeServiceAccount extends pulumi.ComponentResource {
  readonly email: pulumi.Output<string>;
  /** The role bindings; node pools depend on them so nodes never start without log access or images. */
  readonly bindings: readonly pulumi.CustomResource[];

  constructor(name: string, args: NodeServiceAccountArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:gcp:NodeServiceAccount", name, {}, opts);
    // Everything here waits for what the component waits for (the project's APIs).
    const child = { parent: this, dependsOn: opts?.dependsOn };
    const account = new gcp.serviceaccount.Account(
      name,
      { project: args.project, accountId: args.accountId, displayName: "GKE nodes (least privilege)" },
      child,
    );
    const repositories = (args.imageRepositories ?? []).map(parseImageRepository);
    // Without named repositories, nodes may pull from any repository of the project: images of dev and
    // staging live there too, and a node that cannot pull them leaves pods in ImagePullBackOff.
    const roles = [
      ...new Set([...nodeRoles, ...(repositories.length === 0 ? [imagePullRole] : []), ...args.extraRoles]),
    ];
    const projectBindings = roles.map(
      (role) =>
        new gcp.projects.IAMMember(
          `${name}-${role.replace(/^roles\//, "").replace(/[^a-zA-Z0-9]+/g, "-")}`,
          { project: args.project, role, member: account.member },
          child,
        ),
    );
    const repositoryBindings = repositories.map(
      (r) =>
        new gcp.artifactregistry.RepositoryIamMember(
          `${name}-pull-${[r.project, r.location, r.repository].filter(Boolean).join("-")}`,
          {
            project: r.project ?? args.project,
            location: r.location,
            repository: r.repository,
            role: imagePullRole,
            member: account.member,
          },
          child,
        ),
    );
    this.bindings = [...projectBindings, ...repositoryBindings];
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
