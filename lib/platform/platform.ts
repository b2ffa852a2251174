import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  CertManager,
  GatewayApiCrds,
  Prometheus,
  grafanaUrl,
  monitoringNamespace,
  prometheusPodLabels,
} from "../addons";
import type { EnvironmentInput, PlatformConfig } from "../config";
import type { CrdOwners } from "../crds";
import {
  deployChart,
  newChart,
  objectKey,
  rememberTopLevelUrn,
  type ChartContext,
  type MonitoringRef,
} from "../deploy";
import { Edge, ExistingCluster, GkeCluster, edgeApis, type ClusterAccess } from "../gcp";
import { PlatformNamespace } from "../manifests";
import type { MeshIdentity, MeshPodContract } from "../meshes";
import { installMesh, type MeshControlPlane } from "../meshes/components";
import { meshOfPlan, resolvePlan, type Plan } from "../plan";
import { App } from "./app";
import { Ingress, edgeArgs } from "./ingress";
import { deployNamespacePolicy } from "./meshPolicy";
import { Team } from "./team";

/** The environment: a plan, or a config written in code, which the Platform resolves as `resolvePlan` does. */
export type PlatformArgs =
  | {
      /** The resolved environment, from `loadPlan()` (a stack's config) or `resolvePlan()`. */
      readonly plan: Plan;
    }
  | {
      /**
       * The environment as a stack file's `platform:*` keys would hold it, `gcp` included: resolved with
       * `resolvePlan(config, pulumi.getStack())`, so every rule `loadPlan` runs refuses it the same way.
       */
      readonly config: EnvironmentInput;
    };

/**
 * The whole platform for one environment: one plan in, the stack out, built in the stages of
 * docs/architecture.md, each depending on the last through object references:
 * 1. cloud: network, cluster (or an existing one), the Kubernetes provider;
 * 2. CRD owners: cert-manager, the mesh's CRD chart, kube-prometheus-stack, or the Gateway API bundle;
 * 3. controllers: cert-manager, trust-manager, the mesh's control plane, the ingress controller;
 * 4. custom resources: identity, issuers, monitors, routes and policies;
 * 5. workloads: app and team namespaces, enrolled in the mesh, each team's quota and access, and the apps.
 * Every decision is the plan's (lib/plan); the Platform only wires components together.
 */
export class Platform extends pulumi.ComponentResource {
  readonly plan: Plan;
  readonly config: PlatformConfig;
  readonly cluster: ClusterAccess;
  readonly provider: k8s.Provider;
  /** Secret. */
  readonly kubeconfig: pulumi.Output<string>;
  readonly clusterName: pulumi.Output<string>;
  readonly clusterLocation: pulumi.Output<string>;
  readonly gatewayApiChannel: pulumi.Output<string>;
  /** One owner per CRD family. */
  readonly crdOwners: CrdOwners;
  /** CRD owners and the user's chart overrides, checked before anything is registered. */
  readonly charts: ChartContext;
  readonly certManager?: CertManager;
  /** The mesh's control plane (`Linkerd` or `Istio`); absent without a mesh. */
  readonly mesh?: MeshControlPlane;
  readonly prometheus?: Prometheus;
  readonly gatewayApiCrds?: GatewayApiCrds;
  readonly edge?: Edge;
  readonly ingress: Ingress;
  readonly apps: readonly App[];
  /** One per configured team (`platform:teams`). */
  readonly teams: readonly Team[];

  constructor(name: string, args: PlatformArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:platform:Platform", name, {}, opts);
    // Directly under the stack, its URN is known now: its apps' objects are aliased to their URNs under
    // it (from before the App component) as plain strings, not Outputs the SDK computes per object.
    if (!opts?.parent) rememberTopLevelUrn(this, "gke-mesh-platform:platform:Platform", name);
    // Every problem is found before any resource exists: a bad config never half-applies.
    const plan = "plan" in args ? args.plan : resolvePlan(args.config, pulumi.getStack());
    const config = plan.config;
    const mesh: MeshIdentity & MeshPodContract = meshOfPlan(plan);
    this.plan = plan;
    this.config = config;
    this.crdOwners = plan.crdOwners;
    this.charts = plan.charts;
    for (const warning of plan.warnings) {
      void pulumi.log.warn(warning, this);
    }

    // The edge's APIs are enabled with the cluster's, so they are on before the edge is built.
    const edgeNeeds = edgeArgs(plan);
    this.cluster =
      config.cluster.mode === "existing"
        ? new ExistingCluster(
            `${name}-cluster`,
            {
              project: config.gcp.project,
              existing: config.cluster.existing,
              gatewayApi: config.cluster.gatewayApi,
              deleteUnreachable: config.cluster.deleteUnreachable,
            },
            { parent: this },
          )
        : new GkeCluster(
            config.cluster.name,
            {
              project: config.gcp.project,
              region: config.gcp.region,
              settings: { cluster: config.cluster, network: config.network },
              webhookPorts: plan.webhookPorts,
              proxyOnlySubnet: plan.proxyOnlySubnet,
              apis: edgeNeeds ? edgeApis(edgeNeeds) : [],
            },
            { parent: this },
          );
    this.provider = this.cluster.provider;
    this.kubeconfig = this.cluster.kubeconfig;
    this.clusterName = this.cluster.clusterName;
    this.clusterLocation = this.cluster.location;
    this.gatewayApiChannel = this.cluster.gatewayApiChannel;

    const provider = this.provider;
    const child = { parent: this };

    // A cluster this stack builds: its APIs and Workload Identity pool are what GCP resources beside it wait for.
    const built = this.cluster instanceof GkeCluster ? this.cluster : undefined;
    const edge = edgeArgs(plan, built?.subnetId);
    if (edge) {
      this.edge = new Edge(
        `${name}-edge`,
        {
          ...edge,
          // The APIs the edge calls, no service agent: each of a host's certificate and map entry waits for these only.
          apis: built?.apisFor(edgeApis(edge)) ?? [],
          // A cluster this stack builds makes the project's Workload Identity pool the DNS-01 binding names.
          dns01: edge.dns01 && { ...edge.dns01, poolReady: built ? [built] : [] },
        },
        child,
      );
    }

    if (plan.gatewayApiBundleFile) {
      this.gatewayApiCrds = new GatewayApiCrds(
        `${name}-gateway-api-crds`,
        { bundleFile: plan.gatewayApiBundleFile, provider },
        child,
      );
    }
    const autopilot = config.cluster.mode === "autopilot";
    // cert-manager first: the platform's kube-prometheus-stack release waits for it (the operator's webhook
    // certificate is cert-manager's), so cert-manager's own monitors, which need that release's CRDs, are
    // deployed after it below rather than by CertManager itself.
    if (plan.certManager) {
      this.certManager = new CertManager(
        `${name}-cert-manager`,
        {
          charts: plan.charts,
          autopilot,
          trustManager: plan.certManager.trustManager,
          dns01ServiceAccount: this.edge?.dns01ServiceAccount,
          sizing: config.sizing,
          namespaceLabels: mesh.unmanagedNamespaceLabels,
          provider,
          monitoring: plan.prometheus ? undefined : plan.monitoring,
        },
        child,
      );
    }
    if (plan.prometheus) {
      this.prometheus = new Prometheus(
        `${name}-prometheus`,
        {
          charts: plan.charts,
          autopilot,
          dashboards: plan.grafanaDashboards,
          podMetadata: mesh.scraper?.pod,
          sizing: config.sizing,
          namespaceLabels: mesh.unmanagedNamespaceLabels,
          certManager: this.certManager,
          provider,
        },
        child,
      );
    }
    // Monitors wait for the Prometheus Operator CRDs when the platform's Prometheus owns them.
    const monitoring: MonitoringRef | undefined = plan.monitoring && {
      ...plan.monitoring,
      crdOwner: plan.monitoring.backend === "prometheus-operator" ? this.prometheus?.release : undefined,
    };
    // cert-manager's monitors, now that their Prometheus exists (it was made after cert-manager).
    if (this.certManager && this.prometheus && monitoring) this.certManager.monitorWith(monitoring);
    if (this.certManager) {
      this.mesh = installMesh(
        `${name}-${mesh.kind}`,
        {
          mesh,
          charts: plan.charts,
          certManager: this.certManager,
          provider,
          monitoring,
          gatewayApiCrds: this.gatewayApiCrds?.resources,
          prometheusUrl: this.prometheus?.url ?? config.monitoring.prometheusUrl,
          clusterNetworks: plan.clusterNetworks,
          // A cluster made elsewhere says its ranges (its Service range may lie outside every private one).
          reportedClusterNetworks:
            this.cluster instanceof ExistingCluster ? this.cluster.clusterNetworks : undefined,
          clusterSources: plan.clusterSources,
          sizing: config.sizing,
          meshedIngress: config.ingress.kind === "traefik" || config.ingress.kind === "ingress-nginx",
        },
        child,
      );
    }
    // What the platform's Prometheus needs beside it to scrape meshed pods (Istio ambient under STRICT).
    if (this.prometheus && this.mesh && mesh.scraper) {
      const chart = newChart("prometheus-scraper");
      mesh.scraper.objects(chart, "scraper", {
        namespace: monitoringNamespace,
        podSelector: { ...prometheusPodLabels },
      });
      deployChart(`${name}-prometheus-scraper`, chart, {
        provider,
        parent: this,
        dependsOn: [this.prometheus.release, this.mesh.crds],
      });
    }
    const injector = this.mesh?.injector;
    const meshReady = this.mesh?.podPrerequisites ?? [];

    // Stage 5: app namespaces, enrolled in the mesh, labelled for the shared Gateway when an app there
    // uses it. They wait only for what meshed pods need (the injector, ztunnel), not for dashboards or monitors.
    let namespaces = new Map<string, pulumi.Resource>();
    if (plan.namespaces.length > 0) {
      const chart = newChart("app-namespaces");
      for (const ns of plan.namespaces) {
        new PlatformNamespace(chart, ns.name, {
          name: ns.name,
          podSecurity: mesh.meshedPodSecurity,
          labels: ns.labels,
          annotations: ns.annotations,
        });
      }
      const deployed = deployChart(`${name}-apps`, chart, {
        provider,
        parent: this,
        dependsOn: meshReady,
      });
      namespaces = new Map(
        plan.namespaces.map((ns) => [
          ns.name,
          deployed.get(objectKey({ kind: "Namespace", metadata: { name: ns.name } })) as pulumi.Resource,
        ]),
      );
    }
    // Each team's quota, limits and access in its namespaces, made above with the app namespaces.
    this.teams = plan.teams.map(
      (t) =>
        new Team(
          `${name}-team-${t.team.name}`,
          {
            name: t.team.name,
            namespaces: t.team.namespaces,
            existingNamespaces: namespaces,
            access: t.team.access,
            quota: t.team.quota,
            routes: t.routes,
            workloadIdentity: t.googleServiceAccount && {
              project: config.gcp.project,
              ...t.googleServiceAccount,
              // A cluster the platform makes creates the project's pool; an existing one has it already.
              poolReady: built ? [built] : [],
              // The account is IAM's, its project roles Resource Manager's.
              apis: built?.apisFor(["iam.googleapis.com", "cloudresourcemanager.googleapis.com"]) ?? [],
            },
            provider,
            resourcePrefix: name,
          },
          child,
        ),
    );
    this.ingress = new Ingress(
      `${name}-ingress`,
      {
        plan,
        provider,
        certManager: this.certManager,
        edge: this.edge,
        meshReady,
        namespaces,
        monitoring,
      },
      child,
    );
    // An app's routes and policies wait for the mesh's control plane and the Gateway API CRDs the platform installs.
    const policyDependsOn = [...(injector ? [injector] : []), ...(this.gatewayApiCrds?.resources ?? [])];
    this.apps = plan.apps.map(
      (a) =>
        new App(
          `${name}-app-${a.app.namespace}-${a.app.name}`,
          {
            name: a.app.name,
            namespace: a.app.namespace,
            image: a.app.image,
            port: a.app.port,
            replicas: a.app.replicas,
            probePath: a.probePath,
            livenessPath: a.livenessPath,
            spread: a.spread,
            metricsPath: a.app.metrics?.path,
            exposure: a.exposure,
            loadBalancerSources: a.loadBalancerSources,
            googleServiceAccount: a.googleServiceAccount,
            identityReady: this.teams.find((t) => t.name === a.app.team)?.workloadIdentityBindings,
            drainingTimeoutSeconds: config.ingress.drainingTimeoutSeconds,
            mesh: config.mesh,
            routes: a.routes,
            grants: a.grants,
            monitoring,
            provider,
            namespaceResource: namespaces.get(a.app.namespace),
            meshCrds: this.mesh?.crds,
            policyDependsOn,
            resourcePrefix: name,
          },
          child,
        ),
    );
    // Stage 4 for namespaces: deny by default and the fault injectors routes use.
    deployNamespacePolicy(name, { plan, provider, parent: this, dependsOn: policyDependsOn, namespaces });

    this.registerOutputs({
      kubeconfig: this.kubeconfig,
      clusterName: this.clusterName,
      clusterLocation: this.clusterLocation,
      gatewayApiChannel: this.gatewayApiChannel,
    });
  }

  /** What a stack program usually exports. */
  outputs(): Record<string, pulumi.Output<string>> {
    const built: Record<string, pulumi.Output<string>> = this.cluster instanceof GkeCluster
      ? {
          networkId: this.cluster.networkId,
          subnetId: this.cluster.subnetId,
          workloadIdentityPool: this.cluster.workloadIdentityPool,
        }
      : {};
    return {
      kubeconfig: this.kubeconfig,
      clusterName: this.clusterName,
      clusterLocation: this.clusterLocation,
      endpoint: this.cluster.endpoint,
      gatewayApiChannel: this.gatewayApiChannel,
      ...built,
      ...(this.ingress.gatewayAddress ? { gatewayAddress: this.ingress.gatewayAddress } : {}),
      ...(this.ingress.controllerAddress ? { ingressAddress: this.ingress.controllerAddress } : {}),
      ...(this.prometheus ? { grafanaUrl: pulumi.output(grafanaUrl) } : {}),
      ...(this.mesh && this.plan.mesh.dashboardUrl
        ? { dashboardUrl: pulumi.output(this.plan.mesh.dashboardUrl) }
        : {}),
    };
  }
}
