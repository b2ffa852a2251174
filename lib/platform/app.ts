import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { Chart } from "cdk8s";
import { deployChart, inTurn, newChart, zoneSpread, type MonitoringRef } from "../deploy";
import {
  AppMonitor,
  AppService,
  AppWorkload,
  MeshRoutes,
  type AccessGrant,
  type Exposure,
  type MeshRouteSpec,
} from "../manifests";
import {
  meshOf,
  type MeshEnforcement,
  type MeshIngress,
  type MeshPodContract,
  type MeshSettings,
} from "../meshes";
import { restRouteSuffix } from "../plan";
import { googleLoadBalancerRanges } from "../versions";

export interface AppArgs {
  /** The app's name: its Deployment, Service, ServiceAccount and every object derived for it. */
  readonly name: string;
  /** The namespace it runs in; it must exist (see `namespace`). */
  readonly namespace: string;
  /** The container image, by tag or digest. */
  readonly image: string;
  /** The container port, also the Service's port. */
  readonly port: number;
  /** Replicas of the Deployment. @default 2 */
  readonly replicas?: number;
  /** The path of its readiness and startup probes, which load balancers health-check too. @default "/" */
  readonly probePath?: string;
  /**
   * A path that answers while the process itself works, for a liveness probe. @default none: no
   * liveness probe, so a dependency's outage takes replicas out of the load balancer, never restarts them
   */
  readonly livenessPath?: string;
  /**
   * Spread the replicas across zones and nodes, preferred, never required. @default true with more
   * than one replica
   */
  readonly spread?: boolean;
  /** Metrics path on the app's port: a monitor scrapes it where `monitoring` is given. @default no metrics */
  readonly metricsPath?: string;
  /** How the app is exposed: its Service gets the one NEG annotation every way needs. @default reachable in the cluster only */
  readonly exposure?: Pick<Exposure, "via">;
  /**
   * Where Google's load balancers reach the app from, when it is exposed through one: under a mesh that
   * would refuse them, plain traffic from these sources only is let in. @default Google's front-end and health-check ranges
   */
  readonly loadBalancerSources?: readonly string[];
  /**
   * A Google service account (its email) the app's ServiceAccount acts as through Workload Identity;
   * the account must let it (roles/iam.workloadIdentityUser, as a `Team` does). @default none
   */
  readonly googleServiceAccount?: string;
  /**
   * What the app's pods wait for: the Workload Identity binding that lets them act as
   * `googleServiceAccount` (a `Team`'s `workloadIdentityBindings`), so their first token requests are
   * not refused. @default none
   */
  readonly identityReady?: readonly pulumi.Resource[];
  /** Seconds the load balancers drain a terminating pod: the pod's preStop and grace period cover it. @default 30 */
  readonly drainingTimeoutSeconds?: number;
  /**
   * The mesh the app's namespace is enrolled in: its routes and authorization compile to that mesh's
   * objects. Settings left out take the defaults an environment config gets (docs/configuration.md).
   * @default no mesh
   */
  readonly mesh?: MeshSettings;
  /** Mesh routes on the app's Service (canaries, timeouts, retries, faults). @default none */
  readonly routes?: readonly MeshRouteSpec[];
  /**
   * Who may call the app, when calls need authorization; everything else is refused. Include what
   * must always get through (probes, scrapes, the app's ingress): `Plan.apps[].grants` does.
   * @default no authorization
   */
  readonly grants?: readonly AccessGrant[];
  /** Where the app's metrics go. @default no monitor */
  readonly monitoring?: MonitoringRef;
  /** The cluster's Kubernetes provider. */
  readonly provider: k8s.Provider;
  /** The app's Namespace object: every object waits for it. @default none */
  readonly namespaceResource?: pulumi.Resource;
  /** What the app's own objects wait for (the mesh's CRD owner, for objects of the mesh's kinds). @default none */
  readonly meshCrds?: pulumi.Resource;
  /** What the app's routes and policies wait for: the mesh's control plane (and Gateway API CRDs the platform installs). @default none */
  readonly policyDependsOn?: readonly pulumi.Resource[];
  /** The first part of the Pulumi names of the app's objects. @default the component's name */
  readonly resourcePrefix?: string;
}

/**
 * One app: its Deployment (probes, drain, disruption budget, restricted security), Service (annotated
 * for every way it is exposed), ServiceAccount (its mesh identity), its monitor, and its mesh routes
 * and authorization. The workload never waits for its routes, policies or monitor; policies wait for
 * the mesh's control plane, and Linkerd's Server waits for the routes and policies that let traffic in.
 */
export class App extends pulumi.ComponentResource {
  readonly name: string;
  readonly namespace: string;

  constructor(name: string, args: AppArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:platform:App", name, {}, opts);
    this.name = args.name;
    this.namespace = args.namespace;
    // Its objects are registered on a turn of their own, so 1,000 apps never hold every object's in-flight copies at once.
    inTurn(() => this.build(name, args, opts?.parent));
    this.registerOutputs({});
  }

  private build(name: string, args: AppArgs, formerParent: pulumi.Resource | undefined): void {
    const mesh: MeshPodContract & MeshIngress & MeshEnforcement = meshOf(args.mesh ?? { kind: "none" });
    const id = `${args.namespace}-${args.name}`;
    const namespaces = args.namespaceResource
      ? new Map([[args.namespace, args.namespaceResource]])
      : undefined;
    // Before the App component, these objects were the Platform's children (formerParent): the alias keeps them.
    const deploy = (prefix: string, chart: Chart, dependsOn: readonly pulumi.Resource[] = []) => [
      ...deployChart(prefix, chart, {
        provider: args.provider,
        parent: this,
        namespaces,
        dependsOn,
        formerParent,
      }).values(),
    ];
    const platformName = args.resourcePrefix ?? name;

    // How a scrape reaches the app's metrics through its mesh (Istio: merged by the sidecar's agent).
    const scrape = args.metricsPath ? mesh.appScrape({ port: args.port, path: args.metricsPath }) : undefined;
    const workload = newChart(`app-${id}`);
    // Every app has a Service, annotated for every way it is exposed (none: reachable in the cluster only).
    new AppService(workload, "service", {
      name: args.name,
      namespace: args.namespace,
      port: args.port,
      via: args.exposure?.via ?? [],
    });
    new AppWorkload(workload, "workload", {
      name: args.name,
      namespace: args.namespace,
      image: args.image,
      port: args.port,
      replicas: args.replicas ?? 2,
      // GKE's metadata server hands the pod that account's tokens (cloud.google.com/kubernetes-engine/docs/how-to/workload-identity).
      serviceAccountAnnotations: args.googleServiceAccount
        ? { "iam.gke.io/gcp-service-account": args.googleServiceAccount }
        : undefined,
      readinessPath: args.probePath ?? "/",
      livenessPath: args.livenessPath,
      topologySpread:
        (args.spread ?? (args.replicas ?? 2) > 1)
          ? zoneSpread({ "app.kubernetes.io/name": args.name })
          : undefined,
      drainingTimeoutSeconds: args.drainingTimeoutSeconds ?? 30,
      podMetadata: args.monitoring ? scrape?.pod : undefined,
    });
    const fromGoogleLb = args.exposure?.via.some((v) => v === "gke-gateway" || v === "gce-ingress") ?? false;
    const lbPort = fromGoogleLb ? mesh.loadBalancerPort : undefined;
    lbPort?.(workload, "load-balancer-port", {
      app: args.name,
      namespace: args.namespace,
      port: args.port,
      sources: args.loadBalancerSources ?? googleLoadBalancerRanges,
    });
    deploy(`${platformName}-app-${id}`, workload, [
      ...(lbPort && args.meshCrds ? [args.meshCrds] : []),
      ...(args.identityReady ?? []),
    ]);

    if (scrape && args.monitoring) {
      const monitor = newChart(`monitor-${id}`);
      new AppMonitor(monitor, "monitor", {
        name: args.name,
        namespace: args.namespace,
        path: scrape.endpoint.path,
        port: scrape.endpoint.port,
        rewriteAddress: scrape.endpoint.rewriteAddress,
        backend: args.monitoring.backend,
        selectorLabels: { ...args.monitoring.selectorLabels },
      });
      // The monitor waits for its CRD's owner; the app never does.
      deploy(
        `${platformName}-monitor-${id}`,
        monitor,
        args.monitoring.crdOwner ? [args.monitoring.crdOwner] : [],
      );
    }

    // Stage 4 for the app: its mesh routes and authorization, after the mesh's control plane.
    const routes = args.routes ?? [];
    const grants = args.grants ?? [];
    if (mesh.policy && (routes.length > 0 || grants.length > 0)) {
      const policy = mesh.policy;
      const policies = newChart(`mesh-policy-${id}`);
      const servers = newChart(`mesh-policy-${id}-servers`);
      new MeshRoutes(policies, "routes", {
        retryAnnotations: (r) => policy.retryAnnotations(r),
        namespace: args.namespace,
        service: args.name,
        port: args.port,
        restRouteName: `${args.name}-${restRouteSuffix}`,
        routes,
      });
      if (grants.length > 0) {
        policy.access(policies, "access", {
          name: args.name,
          namespace: args.namespace,
          podSelector: { "app.kubernetes.io/name": args.name },
          port: args.port,
          grants,
          serverScope: servers,
        });
      }
      deployWithServers(`${platformName}-mesh-policy-${id}`, policies, servers, (p, c, after) =>
        deploy(p, c, [...(args.policyDependsOn ?? []), ...after]),
      );
    }
  }
}

/**
 * Deploys policies, then the objects that refuse traffic from the moment they exist (Linkerd's
 * Servers, probes included), after them.
 */
export function deployWithServers(
  prefix: string,
  policies: Chart,
  servers: Chart,
  deploy: (prefix: string, chart: Chart, after: readonly pulumi.Resource[]) => pulumi.Resource[],
): void {
  const deployed = deploy(prefix, policies, []);
  deploy(`${prefix}-servers`, servers, deployed);
}
