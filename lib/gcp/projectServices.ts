import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import type { PlatformConfig } from "../config";

/** APIs whose service agent the platform grants access to, and must therefore exist first. */
export const serviceAgentApis = ["container.googleapis.com", "gkebackup.googleapis.com"] as const;

/** Where Google creates each of those service agents (cloud.google.com/iam/docs/service-agents). */
const serviceAgentDomains: Record<(typeof serviceAgentApis)[number], string> = {
  "container.googleapis.com": "container-engine-robot.iam.gserviceaccount.com",
  "gkebackup.googleapis.com": "gcp-sa-gkebackup.iam.gserviceaccount.com",
};

/** `serviceAccount:service-<PROJECT_NUMBER>@<agent domain>`, for a project whose APIs the platform does not enable. */
export function serviceAgentMember(
  api: (typeof serviceAgentApis)[number],
  projectNumber: pulumi.Input<string>,
): pulumi.Output<string> {
  return pulumi.interpolate`serviceAccount:service-${projectNumber}@${serviceAgentDomains[api]}`;
}

export interface ProjectServicesArgs {
  /** The project the APIs are enabled in. */
  readonly project: string;
  /** APIs to enable, e.g. `container.googleapis.com`; duplicates are enabled once. */
  readonly services: readonly string[];
}

/**
 * The project's APIs, enabled and never disabled by the platform (other stacks and people use them
 * too), and the service agents the platform grants access to (GKE's and Backup for GKE's), created
 * before anything grants them a role: on a fresh project the first `pulumi up` then succeeds.
 */
export class ProjectServices extends pulumi.ComponentResource {
  /** Enabled APIs, by name. */
  readonly services: ReadonlyMap<string, gcp.projects.Service>;
  /** Service agents, by API: their `member` is what IAM bindings name. */
  readonly agents: ReadonlyMap<string, gcp.projects.ServiceIdentity>;
  /** What every resource that uses one of the APIs waits for. */
  readonly ready: readonly pulumi.Resource[];

  constructor(name: string, args: ProjectServicesArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:gcp:ProjectServices", name, {}, opts);
    const services = new Map<string, gcp.projects.Service>();
    for (const service of [...new Set(args.services)].sort()) {
      services.set(
        service,
        new gcp.projects.Service(
          `${name}-${service.replace(/\.googleapis\.com$/, "")}`,
          {
            project: args.project,
            service,
            // Disabling an API on destroy would break whatever else in the project uses it, and
            // enabling an enabled API is a no-op, so destroy then up needs nothing from the last run.
            disableOnDestroy: false,
            disableDependentServices: false,
          },
          { parent: this },
        ),
      );
    }
    const agents = new Map<string, gcp.projects.ServiceIdentity>();
    for (const api of serviceAgentApis) {
      const service = services.get(api);
      if (!service) continue;
      // GKE creates its service agents lazily; an IAM binding to one that does not exist yet fails
      // (terraform-google-kubernetes-engine examples/confidential_safer_cluster/kms.tf creates it the same way).
      agents.set(
        api,
        new gcp.projects.ServiceIdentity(
          `${name}-${api.replace(/\.googleapis\.com$/, "")}-agent`,
          { project: args.project, service: api },
          { parent: this, dependsOn: [service] },
        ),
      );
    }
    this.services = services;
    this.agents = agents;
    this.ready = [...services.values(), ...agents.values()];
    this.registerOutputs({});
  }
}

/** A cluster section with every default applied (`platform:cluster`, resolved). */
type ClusterSettings = PlatformConfig["cluster"];

/** The APIs a cluster the platform creates needs, for the features its config turns on. */
export function clusterApis(c: ClusterSettings): string[] {
  return [
    "cloudresourcemanager.googleapis.com",
    "compute.googleapis.com",
    "container.googleapis.com",
    "iam.googleapis.com",
    ...(c.secretsEncryption.enabled ? ["cloudkms.googleapis.com"] : []),
    ...(c.backupAgent ? ["gkebackup.googleapis.com"] : []),
    ...(c.binaryAuthorization === "enforce" ? ["binaryauthorization.googleapis.com"] : []),
    ...(c.securityPosture === "basic" ? ["containersecurity.googleapis.com"] : []),
    ...(c.imageRepositories.length > 0 ? ["artifactregistry.googleapis.com"] : []),
  ];
}
