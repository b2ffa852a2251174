import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  CertManager,
  GatewayApiCrds,
  Istio,
  Linkerd,
  Prometheus,
  deployChart,
  newChart,
  grafanaUrl,
  linkerdVizNamespace,
  objectKey,
  type ChartContext,
} from "../addons";
import { configWarnings, probePathOf, type PlatformConfig } from "../config";
import { crdOwners, needsCertManager, type CrdOwners } from "../crds";
import { Edge, ExistingCluster, GkeCluster, type ClusterAccess } from "../gcp";
import {
  AppMonitor,
  AppService,
  AppWorkload,
  LoadBalancerPort,
  PlatformNamespace,
  denyByDefaultAnnotations,
  gatewayAccessLabel,
  type MeshSettings,
} from "../manifests";
import { Ingress, edgeArgs } from "./ingress";
import { deployMeshPolicy } from "./meshPolicy";
import { chartContext } from "./overrides";
import { linkerdFacts } from "../versions";

export interface PlatformArgs {
  /** The validated environment, from `loadEnvironmentConfig()` or `parseEnvironment()`. */
  readonly config: PlatformConfig;
}

/**
 * The whole platform for one environment: one config in, the stack out, built in the stages of
 * docs/architecture.md, each depending on the last through object references:
 * 1. cloud: network, cluster (or an existing one), the Kubernetes provider;
 * 2. CRD owners: cert-manager, linkerd-crds, kube-prometheus-stack, or the Gateway API bundle;
 * 3. controllers: cert-manager, trust-manager, the Linkerd control plane;
 * 4. custom resources: trust anchor, issuer, trust roots, monitors;
 * 5. workloads: app namespaces, meshed.
 */
export class Platform extends pulumi.ComponentResource {
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
  readonly linkerd?: Linkerd;
  readonly istio?: Istio;
  readonly prometheus?: Prometheus;
  readonly gatewayApiCrds?: GatewayApiCrds;
  readonly edge?: Edge;
  readonly ingress: Ingress;

  constructor(name: string, args: PlatformArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:platform:Platform", name, {}, opts);
    const config = args.config;
    this.config = config;
    // Ownership and overrides are decided before any resource exists: a conflict never half-applies.
    this.crdOwners = crdOwners(config);
    this.charts = chartContext(config, this.crdOwners);
    for (const warning of configWarnings(config)) {
      void pulumi.log.warn(warning, this);
    }

    this.cluster =
      config.cluster.mode === "existing"
        ? new ExistingCluster(`${name}-cluster`, { config }, { parent: this })
        : new GkeCluster(config.cluster.name, { config }, { parent: this });
    this.provider = this.cluster.provider;
    this.kubeconfig = this.cluster.kubeconfig;
    this.clusterName = this.cluster.clusterName;
    this.clusterLocation = this.cluster.location;
    this.gatewayApiChannel = this.cluster.gatewayApiChannel;

    const provider = this.provider;
    const mesh: MeshSettings = {
      ...config.mesh,
      revision: config.mesh.kind === "istio" ? config.mesh.istio.defaultRevision : undefined,
    };
    const child = { parent: this };

    const edge = edgeArgs(config, this.cluster instanceof GkeCluster ? this.cluster.subnetId : undefined);
    if (edge) this.edge = new Edge(`${name}-edge`, edge, child);

    if (this.crdOwners.gatewayApi?.kind === "platform" && config.crds.gatewayApiBundleFile) {
      this.gatewayApiCrds = new GatewayApiCrds(
        `${name}-gateway-api-crds`,
        { bundleFile: config.crds.gatewayApiBundleFile, provider },
        child,
      );
    }
    if (config.monitoring.backend === "prometheus") {
      this.prometheus = new Prometheus(
        `${name}-prometheus`,
        {
          charts: this.charts,
          mesh,
          autopilot: config.cluster.mode === "autopilot",
          dashboards: config.monitoring.meshDashboards ? linkerdFacts.grafanaDashboards : undefined,
          provider,
        },
        child,
      );
    }
    if (needsCertManager(config)) {
      this.certManager = new CertManager(
        `${name}-cert-manager`,
        {
          charts: this.charts,
          mesh,
          autopilot: config.cluster.mode === "autopilot",
          trustManager: config.mesh.kind === "linkerd",
          dns01ServiceAccount: this.edge?.dns01ServiceAccount,
          provider,
        },
        child,
      );
    }
    const monitors = monitorsFor(config);
    // The mesh's monitors wait for the Prometheus Operator CRDs when the platform's Prometheus owns them.
    const meshMonitoring = monitors && {
      ...monitors,
      crdOwner: monitors.backend === "prometheus-operator" ? this.prometheus?.release : undefined,
    };
    if (config.mesh.kind === "linkerd" && this.certManager) {
      this.linkerd = new Linkerd(
        `${name}-linkerd`,
        {
          mesh,
          highAvailability: config.mesh.highAvailability,
          dashboard: config.mesh.dashboard,
          previousTrustAnchor: config.mesh.previousTrustAnchor,
          tracing: config.mesh.tracing,
          prometheusUrl: this.prometheus?.url ?? config.monitoring.prometheusUrl,
          charts: this.charts,
          certManager: this.certManager,
          provider,
          gatewayApiCrds: this.gatewayApiCrds?.resources,
          monitoring: meshMonitoring,
        },
        child,
      );
    }

    if (config.mesh.kind === "istio" && this.certManager) {
      this.istio = new Istio(
        `${name}-istio`,
        {
          mesh,
          istio: config.mesh.istio,
          highAvailability: config.mesh.highAvailability,
          charts: this.charts,
          certManager: this.certManager,
          provider,
          monitoring: meshMonitoring,
        },
        child,
      );
    }
    const injector = this.linkerd?.controlPlane ?? this.istio?.injector;

    // Stage 5: app namespaces, meshed, labelled for the shared Gateway when an app there uses it. They
    // wait only for the mesh's injector, not for dashboards or monitors.
    const appNamespaces = [...new Set(config.apps.map((a) => a.namespace))].sort();
    let namespaces = new Map<string, pulumi.Resource>();
    if (appNamespaces.length > 0) {
      const chart = newChart("app-namespaces");
      for (const ns of appNamespaces) {
        const onGateway = config.apps.some(
          (a) => a.namespace === ns && a.expose?.via.includes("gke-gateway"),
        );
        new PlatformNamespace(chart, ns, {
          name: ns,
          mesh,
          meshed: true,
          labels: onGateway ? { [gatewayAccessLabel]: "true" } : undefined,
          annotations:
            config.mesh.kind !== "none" && config.mesh.denyByDefault.includes(ns)
              ? denyByDefaultAnnotations(config.mesh.kind)
              : undefined,
        });
      }
      const deployed = deployChart(`${name}-apps`, chart, {
        provider,
        parent: this,
        dependsOn: injector ? [injector] : [],
      });
      namespaces = new Map(
        appNamespaces.map((ns) => [
          ns,
          deployed.get(objectKey({ kind: "Namespace", metadata: { name: ns } })) as pulumi.Resource,
        ]),
      );
    }
    this.ingress = new Ingress(
      `${name}-ingress`,
      {
        config,
        charts: this.charts,
        provider,
        certManager: this.certManager,
        edge: this.edge,
        injector,
        namespaces,
      },
      child,
    );
    for (const app of config.apps) {
      const ns = namespaces.get(app.namespace);
      const inNamespace = ns ? new Map([[app.namespace, ns]]) : undefined;
      const workload = newChart(`app-${app.namespace}-${app.name}`);
      // Every app has a Service, annotated for every way it is exposed (none: reachable in the cluster only).
      new AppService(workload, "service", {
        name: app.name,
        namespace: app.namespace,
        port: app.port,
        via: app.expose?.via ?? [],
      });
      new AppWorkload(workload, "workload", {
        name: app.name,
        namespace: app.namespace,
        image: app.image,
        port: app.port,
        replicas: app.replicas,
        readinessPath: probePathOf(app),
        drainingTimeoutSeconds: config.ingress.drainingTimeoutSeconds,
      });
      // Under STRICT mTLS a Google load balancer, outside the mesh, reaches the pod's port directly.
      const fromGoogleLb = app.expose?.via.some((v) => v === "gke-gateway" || v === "gce-ingress") ?? false;
      if (this.istio && config.mesh.istio.mtls === "STRICT" && fromGoogleLb) {
        new LoadBalancerPort(workload, "load-balancer-port", {
          app: app.name,
          namespace: app.namespace,
          port: app.port,
        });
      }
      deployChart(`${name}-app-${app.namespace}-${app.name}`, workload, {
        provider,
        parent: this,
        namespaces: inNamespace,
        // PeerAuthentication lives in Istio's CRDs.
        dependsOn: this.istio && fromGoogleLb ? [this.istio.base] : [],
      });
      if (app.metrics && monitors) {
        const monitor = newChart(`monitor-${app.namespace}-${app.name}`);
        new AppMonitor(monitor, "monitor", {
          name: app.name,
          namespace: app.namespace,
          path: app.metrics.path,
          ...monitors,
        });
        // The monitor waits for its CRD's owner; the app never does.
        deployChart(`${name}-monitor-${app.namespace}-${app.name}`, monitor, {
          provider,
          parent: this,
          namespaces: inNamespace,
          dependsOn:
            monitors.backend === "prometheus-operator" && this.prometheus ? [this.prometheus.release] : [],
        });
      }
    }

    // Stage 4 for apps: their mesh routes and authorization, after the mesh's control plane.
    deployMeshPolicy(name, {
      config,
      provider,
      parent: this,
      dependsOn: [...(injector ? [injector] : []), ...(this.gatewayApiCrds?.resources ?? [])],
      namespaces,
    });

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
      ...(this.linkerd?.viz
        ? { dashboardUrl: pulumi.output(`http://web.${linkerdVizNamespace}.svc.cluster.local:8084`) }
        : {}),
    };
  }
}

/** Which kind of monitor the environment's monitoring reads, and the labels its Prometheus selects. */
export function monitorsFor(
  config: PlatformConfig,
):
  | { backend: "prometheus-operator" | "managed-prometheus"; selectorLabels: Record<string, string> }
  | undefined {
  switch (config.monitoring.backend) {
    case "none":
      return undefined;
    case "managed-prometheus":
      return { backend: "managed-prometheus", selectorLabels: {} };
    default:
      return { backend: "prometheus-operator", selectorLabels: config.monitoring.selectorLabels };
  }
}
