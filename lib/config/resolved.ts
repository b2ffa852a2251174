/** The resolved environment's types: PlatformConfig and its parts (node pools, apps, routes, maintenance). */
import type { z } from "zod";
import type { Filled, Frozen, Section } from "./frozen";
import type { Tier, exposurePaths, httpMethods } from "./schema";
import type { appSchema } from "./sections/apps";
import type { accessRuleSchema, meshRouteSchema } from "./sections/appMesh";
import type { existingClusterSchema, maintenanceSchema, nodePoolSchema } from "./sections/cluster";
import type { Sizing } from "./sizing";

export type NodePool = Required<Omit<z.infer<typeof nodePoolSchema>, "labels">> & {
  readonly labels: Record<string, string>;
};
type MaintenanceInput = z.infer<typeof maintenanceSchema>;
/** A weekly maintenance window and its exclusions, each exclusion's scope set. */
export type Maintenance = Frozen<
  Omit<MaintenanceInput, "exclusions"> & {
    exclusions: Required<NonNullable<MaintenanceInput["exclusions"]>[number]>[];
  }
>;

export type ExistingClusterRef = z.infer<typeof existingClusterSchema>;
export type ExposurePath = (typeof exposurePaths)[number];

export interface AppExposure {
  readonly host: string;
  readonly path: string;
  readonly via: readonly ExposurePath[];
  readonly timeoutSeconds: number;
  readonly healthCheckPath: string;
  readonly stripPrefix: boolean;
  readonly methods?: readonly (typeof httpMethods)[number][];
  /** A Cloud Armor security policy name, on Google's load balancers. */
  readonly securityPolicy?: string;
}

type RouteInput = z.infer<typeof meshRouteSchema>;
export type RouteMatch = NonNullable<RouteInput["matches"]>[number];
export type AccessRule = z.infer<typeof accessRuleSchema>;

/** A mesh route with its defaults: no matches means every request. */
export interface MeshRoute {
  readonly name: string;
  readonly matches: readonly RouteMatch[];
  readonly backends: readonly { readonly app: string; readonly port?: number; readonly weight: number }[];
  readonly timeouts?: { readonly request?: string; readonly backendRequest?: string };
  readonly retry?: { readonly on: readonly string[]; readonly attempts: number; readonly timeout?: string };
  readonly fault?: { readonly percent: number; readonly status: number };
}

/** An app's east-west policy: its Service's mesh routes and who may call it. */
export interface AppMeshPolicy {
  readonly routes: readonly MeshRoute[];
  readonly authorization?: { readonly rules: readonly AccessRule[] };
}

export type App = Required<
  Omit<z.infer<typeof appSchema>, "expose" | "metrics" | "mesh" | "livenessPath" | "team">
> & {
  readonly livenessPath?: string;
  /** The team the app belongs to, when it has one. */
  readonly team?: string;
  readonly expose?: AppExposure;
  readonly metrics?: { readonly path: string };
  readonly mesh: AppMeshPolicy;
};

/** A team's ResourceQuota, per namespace. */
export interface TeamQuota {
  readonly requests: { readonly cpu: string; readonly memory: string };
  readonly limits: { readonly memory: string };
  readonly pods: number;
}

/** A team, its defaults applied (docs/teams.md). */
export interface Team {
  readonly name: string;
  /** Its namespaces, the first where its apps land by default. */
  readonly namespaces: readonly string[];
  /** Google groups (emails) or users (`user:<email>`) bound to the aggregated roles view, edit and admin. */
  readonly access: {
    readonly view: readonly string[];
    readonly edit: readonly string[];
    readonly admin: readonly string[];
  };
  readonly quota: TeamQuota;
  /** The team's Google service account and its project roles, where it has one. */
  readonly workloadIdentity?: { readonly roles: readonly string[] };
  /** Teams whose namespaces may call this team's. */
  readonly allowFrom: readonly string[];
}

type Cluster = Section<"cluster">;
type Mesh = Section<"mesh">;
type Ingress = Section<"ingress">;

/**
 * The fully resolved environment: every default applied, every cross-field rule checked. Derived from
 * the schema (`environmentInputSchema`), so a key added there is a key here; what the defaults add is
 * `stack`, `cluster.regional`, and the resolved shapes of node pools and apps.
 */
export interface PlatformConfig {
  /** The Pulumi stack name. */
  readonly stack: string;
  readonly tier: Tier;
  readonly gcp: Section<"gcp">;
  readonly network: Filled<Section<"network">>;
  readonly cluster: Filled<
    Omit<
      Cluster,
      "secretsEncryption" | "nodePools" | "autopilot" | "backups" | "maintenance" | "googleGroups"
    >,
    "existing" | "kubernetesVersion"
  > & {
    /** The weekly maintenance window; null for "any time". */
    readonly maintenance: Maintenance | null;
    /** The Backup for GKE plan; null for none. */
    readonly backups: Filled<NonNullable<Cluster["backups"]>> | null;
    /** True when `location` is a region (control plane and nodes in three zones). */
    readonly regional: boolean;
    /** Absent `key`: the platform creates the key ring and key. */
    readonly secretsEncryption: Filled<NonNullable<Cluster["secretsEncryption"]>, "key">;
    readonly nodePools: readonly NodePool[];
    readonly autopilot: Filled<NonNullable<Cluster["autopilot"]>>;
    /** Absent `securityGroup`: the platform leaves the cluster's Google Groups for RBAC as it is. */
    readonly googleGroups: Filled<NonNullable<Cluster["googleGroups"]>, "securityGroup">;
  };
  readonly mesh: Filled<Omit<Mesh, "istio">, "tracing"> & {
    /** Absent revisions: one istiod without a revision. */
    readonly istio: Filled<NonNullable<Mesh["istio"]>, "revisions" | "defaultRevision">;
  };
  /** Which app namespaces are isolated from the others (`isolatedNamespaces` lists them). */
  readonly isolation: Filled<Section<"isolation">>;
  readonly ingress: Filled<Omit<Ingress, "tls" | "acme" | "requestLogging">> & {
    readonly requestLogging: Filled<NonNullable<Ingress["requestLogging"]>>;
    readonly tls: Filled<NonNullable<Ingress["tls"]>>;
    readonly acme?: Filled<NonNullable<Ingress["acme"]>>;
  };
  readonly monitoring: Filled<Section<"monitoring">, "prometheusUrl" | "scraperNamespace">;
  /** CRD owners the user declared; lib/crds derives the rest. */
  readonly crds: Section<"crds">;
  /** Where the charts come from: absent mirror and folder means each chart's upstream repository. */
  readonly chartSource: Filled<Section<"chartSource">, "mirror" | "folder">;
  /** Teams, in the config's order; their namespaces are always isolated (docs/teams.md). */
  readonly teams: readonly Team[];
  readonly apps: readonly App[];
  /** Replicas, requests and limits of every workload the platform installs. */
  readonly sizing: Sizing;
  /** Chart value overrides by release name. */
  readonly overrides: {
    readonly charts: Readonly<Record<string, Filled<NonNullable<Section<"overrides">["charts"]>[string]>>>;
  };
}
