import type { Construct } from "constructs";
import type { ConfigProblem, EnvironmentInput, PlatformConfig, SizingComponent } from "../config";
import type { CrdFamily } from "../crds";
import type { ChartFrom } from "../deploy";
import type { AccessGrant, IngressBackend, NetworkPeer, NetworkPort, PodSecurityLevel } from "../manifests";
import type { ChartName } from "../versions";

/** The meshes the platform builds. */
export type MeshKind = PlatformConfig["mesh"]["kind"];

/** The environment's mesh section, every default applied. */
export type MeshConfig = PlatformConfig["mesh"];

/** Keys of `platform:mesh` as users write them. */
export type MeshKey = keyof NonNullable<EnvironmentInput["mesh"]>;

/** Labels and annotations for a namespace or a pod template. */
export interface PodMetadata {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

/** A Grafana dashboard to load: a grafana.com id and revision, or a URL at a pinned tag. */
export type GrafanaDashboard =
  { readonly gnetId: number; readonly revision: number } | { readonly url: string };

/** One Helm release a mesh installs. */
export interface MeshRelease {
  /** The Helm release name, which `platform:overrides.charts.<release>` names. */
  readonly release: string;
  readonly chart: ChartName;
  /** Another version than the chart's pin (an Istio canary revision). @default the pin */
  readonly version?: string;
  /** That version's repository and digest, where this package does not pin it. @default the pin's */
  readonly from?: ChartFrom;
  /**
   * Chart values the mesh's behaviour in the platform rests on, at the chart's own default: an override
   * that changes one is refused, naming what would break.
   */
  readonly reliedOn?: readonly ReliedOnValue[];
}

/** A chart value the platform relies on, and why. */
export interface ReliedOnValue {
  /** The value's path, dot-separated as in the chart's values.yaml. */
  readonly path: string;
  readonly value: string | number | boolean;
  /** What breaks without it. */
  readonly reason: string;
}

/** An app's metrics endpoint on its own port. */
export interface AppMetrics {
  /** The app's container port. */
  readonly port: number;
  /** Its metrics path. */
  readonly path: string;
}

/** How Prometheus, outside the mesh, scrapes a meshed app. */
export interface AppScrape {
  /** Pod template metadata the scrape relies on. */
  readonly pod: PodMetadata;
  /**
   * Where the monitor scrapes: the app's own named port and path, or a port the proxy serves (a
   * number, maybe undeclared), with the relabelling a Prometheus Operator needs to reach it.
   */
  readonly endpoint: {
    readonly port: "http" | number;
    readonly path: string;
    /** For a Prometheus Operator PodMonitor, which keeps only declared ports: rewrite the target to `port`. */
    readonly rewriteAddress?: { readonly container: string };
  };
  /** The scrape passes the proxy's authorization, so an app guarded by policy must grant it. */
  readonly throughPolicy: boolean;
}

/** A scrape of the app's own port and path, in plain text. */
export function plainScrape(m: AppMetrics, throughPolicy: boolean): AppScrape {
  return { pod: { labels: {}, annotations: {} }, endpoint: { port: "http", path: m.path }, throughPolicy };
}

/** A CRD family a mesh's chart owns. */
export interface MeshCrdOwner {
  readonly family: CrdFamily;
  readonly chart: ChartName;
  readonly reason: string;
}

/** What an app's authorization compiles to for one mesh. */
export interface AccessProps {
  /** Names the policy objects. */
  readonly name: string;
  readonly namespace: string;
  /** Pods the policy protects. Empty: every pod in the namespace. */
  readonly podSelector: Readonly<Record<string, string>>;
  /** The port protected (Linkerd Servers select one port; Istio policies apply to the workload). */
  readonly port: number | string;
  /** Everything allowed; anything else is refused. */
  readonly grants: readonly AccessGrant[];
  /**
   * Where objects that start refusing traffic the moment they exist go (Linkerd's Server), so they
   * can be deployed after the routes and policies that let traffic in.
   * @default the scope itself
   */
  readonly serverScope?: Construct;
}

/** Route retries, as the config writes them. */
export interface RouteRetry {
  readonly on: readonly string[];
  readonly attempts: number;
  readonly timeout?: string;
}

/** What a NetworkPolicy in front of a mesh's pods must let in for the mesh itself. */
export interface MeshNetwork {
  /** Ports meshed calls arrive on instead of the port called (Linkerd's inbound port, ztunnel's HBONE port). */
  readonly meshedCallPorts: readonly NetworkPort[];
  /** Ports of the injected proxy that the mesh's proxy monitors scrape on every meshed pod. */
  readonly proxyScrapePorts: readonly NetworkPort[];
  /** Where kubelet's probes come from when not from the node itself, which a NetworkPolicy always lets in. */
  readonly probeSources: readonly string[];
  /** The mesh's own components that connect to meshed pods, with the ports they reach. */
  readonly controlPlane: readonly NetworkPeer[];
}

/** Pods no proxy fronts: calls and scrapes arrive on the ports they are made to, probes from the node. */
export const unmeshedNetwork: MeshNetwork = {
  meshedCallPorts: [],
  proxyScrapePorts: [],
  probeSources: [],
  controlPlane: [],
};

/** How a mesh enforces east-west policy: routes, authorization, deny by default. */
export interface MeshPolicy {
  /** What a NetworkPolicy must let in for the mesh (the environment's mesh section says what is installed). */
  network(config: MeshConfig): MeshNetwork;
  /** Why routes and authorization cannot be built on this mesh's data plane; absent when they can. */
  readonly unsupported?: string;
  /** Why route retries cannot be built, and what to do; absent when they can. */
  readonly retriesUnsupported?: { readonly reason: string; readonly fix: string };
  /**
   * Why `timeouts.backendRequest` would not mean a per-try timeout on this mesh, and what to do;
   * absent when it does.
   */
  readonly backendRequestUnsupported?: { readonly reason: string; readonly fix: string };
  /** HTTPRoute annotations that carry a route's retries (Linkerd reads retries from annotations). */
  retryAnnotations(retry: RouteRetry): Record<string, string>;
  /** The objects that let exactly `props.grants` reach the pods, and nothing else. */
  access(scope: Construct, id: string, props: AccessProps): void;
  /** Namespace annotations that make a namespace refuse what no policy allows. */
  readonly denyByDefaultAnnotations: Readonly<Record<string, string>>;
  /** The objects a deny-by-default namespace needs besides its annotations. */
  denyByDefault(
    scope: Construct,
    id: string,
    props: {
      namespace: string;
      /** Where kubelet's probes and Prometheus's scrapes come from (`Plan.clusterSources`). */
      clusterSources: readonly string[];
      serverScope?: Construct;
    },
  ): void;
  /**
   * A fault injector (`FaultInjector`) that any meshed caller reaches, even where the namespace denies
   * by default, so callers see the injected status and not a policy refusal.
   */
  faultInjector(scope: Construct, id: string, props: { namespace: string; status: number }): void;
}

/**
 * What a mesh is, for messages and for the config it was made from. Every capability below is asked of
 * one `Mesh`; a layer that needs only some of them takes those, so its signature says what it depends on.
 */
export interface MeshIdentity {
  readonly kind: MeshKind;
  /** For messages: "Linkerd", "Istio", "no mesh". */
  readonly title: string;
  /** The mesh section it was made from. */
  readonly config: MeshConfig;
}

/** The mesh's own config rules: its keys of `platform:mesh`, its problems and its warnings. */
export interface MeshConfigRules {
  /** Keys of `platform:mesh` that only this mesh reads; setting them for another mesh is an error. */
  readonly ownKeys: readonly MeshKey[];
  /**
   * The mesh's own rules. Those on the resolved config always run; those that judge keys as the user
   * wrote them only with the user's `input` (absent for a config built in code).
   */
  configProblems(input: EnvironmentInput | undefined, config: PlatformConfig): ConfigProblem[];
  /** Valid but risky choices this mesh sees, said at render and at `pulumi up`. */
  configWarnings(config: PlatformConfig): string[];
}

/** What the mesh installs: its Helm releases, the CRDs they own, what they need and what they serve. */
export interface MeshInstall {
  /** The Helm releases the mesh installs, in install order. */
  readonly releases: readonly MeshRelease[];
  /** CRD families the mesh's charts own. */
  readonly crdOwners: readonly MeshCrdOwner[];
  /** The Gateway API CRD versions the mesh works with, and what goes wrong outside them. */
  readonly gatewayApi?: {
    readonly minimum: string;
    readonly maximum?: string;
    readonly without: string;
    readonly source: string;
  };
  /**
   * The charts that run each of the mesh's workloads `platform:sizing` sizes (the proxy among them):
   * sizing one whose charts are not installed has no effect.
   */
  readonly sizedCharts: { readonly [K in SizingComponent]?: readonly ChartName[] };
  /** Workload identity is issued by cert-manager. */
  readonly needsCertManager: boolean;
  /** trust-manager distributes the trust anchor. */
  readonly needsTrustManager: boolean;
  /** Ports GKE's control plane must reach on nodes for the mesh's admission webhooks. */
  readonly webhookPorts: readonly number[];
  /** The in-cluster address of the mesh's own dashboard, when one is installed. */
  readonly dashboardUrl?: string;
  /** Grafana dashboards the platform's Grafana loads for this mesh (grafana.com ids or pinned URLs), by name. */
  readonly grafanaDashboards?: Readonly<Record<string, GrafanaDashboard>>;
}

/**
 * What the mesh asks of namespaces and pods: enrolment, Pod Security, Jobs, ACME solvers, and how
 * kubelet's probes and Prometheus's scrapes reach a meshed pod.
 */
export interface MeshPodContract {
  /** Metadata that puts an app namespace's pods in the mesh. */
  readonly namespaceEnrolment: PodMetadata;
  /** The Pod Security level a meshed namespace must allow. */
  readonly meshedPodSecurity: PodSecurityLevel;
  /**
   * Labels that take a namespace with no meshed pod (monitoring, cert-manager, the Gateway's) out of the
   * mesh's admission webhooks, where its charts allow it: with a failing webhook, an outage of the mesh
   * would otherwise block pods and writes there too. Empty where the webhooks select by opt-in only.
   */
  readonly unmanagedNamespaceLabels: Readonly<Record<string, string>>;
  /** Pod template metadata that lets a Job or CronJob in a meshed namespace finish. */
  readonly jobPodMetadata: PodMetadata;
  /**
   * Metadata for cert-manager's ACME HTTP-01 solver pods, which run in the Certificate's (meshed)
   * namespace: they stay out of the mesh, so the ingress controller reaches the challenge even where
   * the namespace denies by default or demands mTLS.
   */
  readonly acmeSolverPod: PodMetadata;

  /**
   * Kubelet's HTTP probes reach the app through the proxy's authorization, so an app guarded by policy
   * must grant them (false where the injector rewrites probes past the proxy).
   */
  readonly probesThroughPolicy: boolean;
  /** How a monitor's scrape of an app's metrics reaches a meshed pod. */
  appScrape(metrics: AppMetrics): AppScrape;
  /**
   * What the Prometheus the platform installs needs to scrape meshed pods at all, where the mesh
   * refuses scrapers outside it (Istio ambient under STRICT mTLS): its pods' metadata, and objects
   * beside it. Absent where any scraper gets through.
   */
  readonly scraper?: {
    readonly pod: PodMetadata;
    objects(
      scope: Construct,
      id: string,
      props: { namespace: string; podSelector: Record<string, string> },
    ): void;
  };
}

/** How an ingress controller and Google's load balancers reach meshed apps. */
export interface MeshIngress {
  /**
   * Chart values, under the chart's pod key, that mesh an ingress controller's outbound traffic only:
   * its inbound ports (`inboundPorts`, comma-separated) take clients from outside the mesh.
   */
  ingressControllerPod(podKey: string, inboundPorts: string): Record<string, unknown>;
  /** The Pod Security level of an ingress controller's namespace. */
  readonly ingressControllerPodSecurity: PodSecurityLevel;
  readonly ingressBackend: IngressBackend;
  /**
   * Google's load balancers reach pods from outside the mesh: where the mesh would refuse them (Istio
   * under STRICT mTLS), the objects that let them reach an app's port. Absent where nothing is needed.
   */
  readonly loadBalancerPort?: (
    scope: Construct,
    id: string,
    props: {
      readonly app: string;
      readonly namespace: string;
      readonly port: number;
      /** Where the load balancers' traffic and health checks come from; nothing else gets in without mTLS. */
      readonly sources: readonly string[];
    },
  ) => void;
}

/** East-west policy: routes, authorization and deny by default (`MeshPolicy`). */
export interface MeshEnforcement {
  /** Routes, authorization and deny by default; absent where the mesh enforces none (no mesh). */
  readonly policy?: MeshPolicy;
}

/**
 * Everything that differs by mesh, answered once: the composition of the capabilities above.
 * `Platform`, the ingress controllers, the exposure objects and the config rules ask a mesh, each the
 * capabilities it uses; none of them compares the mesh's kind. Each mesh is one folder under
 * `lib/meshes/` (`linkerd`, `istio`, `none`); `meshFor` picks it.
 */
export interface Mesh
  extends MeshIdentity, MeshConfigRules, MeshInstall, MeshPodContract, MeshIngress, MeshEnforcement {}
