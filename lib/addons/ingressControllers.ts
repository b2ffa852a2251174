import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { sizingProfile, type WorkloadSizing } from "../config";
import { crdChartsOf } from "../crds";
import {
  containerResources,
  crdChart,
  deepMerge,
  deployChart,
  newChart,
  pinnedRelease,
  single,
  standaloneCharts,
  zoneSpread,
  type CertManagerRef,
  type ChartContext,
  type MonitoringRef,
  type Values,
} from "../deploy";
import { PlatformNamespace, WorkloadMonitor } from "../manifests";
import { meshOf, type MeshIngress, type MeshSettings } from "../meshes";
import { ingressControllerIdentities } from "../versions";

export interface IngressControllerArgs {
  /**
   * The mesh the controller joins (its outbound traffic only). Settings left out take the defaults an
   * environment config gets (docs/configuration.md). @default no mesh
   */
  readonly mesh?: MeshSettings;
  /** CRD owners and the user's chart overrides. @default Traefik's CRD chart (traefik-crds) owns Traefik's CRDs */
  readonly charts?: ChartContext;
  /** The cluster's Kubernetes provider. */
  readonly provider: k8s.Provider;
  /** cert-manager: certificates for hosts (and ingress-nginx's webhook) come from it. */
  readonly certManager: CertManagerRef;
  /** Traefik's own router lets cert-manager's ACME HTTP-01 solver answer on port 80. @default false */
  readonly acmeHttp01?: boolean;
  /**
   * What a meshed pod needs before it starts (`MeshControlPlane.podPrerequisites`): the controller's pods
   * are meshed by their own metadata, so the injector must exist first. @default none
   */
  readonly meshReady?: readonly pulumi.Resource[];
  /**
   * Replicas, requests and limits of the controller; with two or more, a disruption budget and a
   * spread across zones (docs/configuration.md, "Sizing"). @default the platform's profile, one replica
   */
  readonly sizing?: WorkloadSizing;
  /** Where the controller's own metrics (requests, latencies, TLS) go. @default not scraped */
  readonly monitoring?: MonitoringRef;
  /**
   * The namespaces whose routes Traefik serves (the exposed apps'), by name, each with the resource that
   * creates it: Traefik's RBAC reaches these and its own namespace only, and its release waits for them.
   * Ignored by ingress-nginx, which watches every namespace. @default none
   */
  readonly routeNamespaces?: ReadonlyMap<string, pulumi.Resource>;
}

/**
 * How long an ingress controller keeps accepting requests after it is told to stop, before it drains: with
 * externalTrafficPolicy Local, Google's load balancer stops sending to a node only after its health check
 * of the node's kube-proxy health port fails three times, 8 s apart, about 24 s (checkIntervalSec 8,
 * unhealthyThreshold 3: cloud.google.com/kubernetes-engine/docs/concepts/service-load-balancer, "Health checks").
 */
export const ingressAcceptGraceSeconds = 30;

const controllerMesh = (args: Pick<IngressControllerArgs, "mesh">): MeshIngress =>
  meshOf(args.mesh ?? { kind: "none" });

/**
 * Traefik values for the mesh. With Linkerd, Traefik is meshed normally (linkerd.io/inject: enabled)
 * and routes to Service cluster IPs (nativeLB), so its proxy resolves each Service and balances per
 * request, with mTLS to the app. This is the integration Linkerd's 2.16 docs describe and its
 * maintainers prefer (linkerd2#6157): no ingress mode, so no l5d-dst-override header that a client
 * could set (the open relay of ingress mode), and no skipped outbound 443.
 */
export function traefikValues(
  args: Pick<IngressControllerArgs, "mesh" | "acmeHttp01" | "sizing" | "routeNamespaces">,
): Values {
  const mesh = controllerMesh(args);
  const namespaces = [...(args.routeNamespaces?.keys() ?? [])].sort();
  const sendToService = mesh.ingressBackend.serviceClusterIp;
  const s = args.sizing ?? single(sizingProfile.ingressController);
  // Keep taking requests while the load balancer notices the pod is leaving, then finish in-flight ones
  // (--entryPoints.<name>.transport.lifeCycle.*, traefik templates/_podtemplate.tpl at v41.3.0).
  const lifeCycle = { requestAcceptGraceTimeout: `${ingressAcceptGraceSeconds}s`, graceTimeOut: "10s" };
  return deepMerge(
    {
      // A Role and RoleBinding in each namespace it routes to and its own, no ClusterRole: Traefik reads
      // the Secrets (TLS keys) of those namespaces only, never a CA key elsewhere (templates/rbac/role.yaml
      // at v41.3.0). Its providers then skip cluster-scoped objects (--providers.*.disableClusterScopeResources):
      // it reads no IngressClass, so it serves an Ingress by the kubernetes.io/ingress.class annotation
      // only, not by spec.ingressClassName (traefik v3.7 pkg/provider/kubernetes/ingress/kubernetes.go,
      // shouldProcessIngress), and the chart's IngressClass would name a class nothing serves. Explicit
      // classes only (providers.kubernetesIngress.ingressClass): a default class would capture GCE
      // Ingresses during a migration.
      rbac: { namespaced: true },
      ingressClass: { enabled: false },
      providers: {
        // Send to the Service's cluster IP, not to pod endpoints, so the mesh (not Traefik) balances.
        // Watched: the apps' namespaces only (the chart watches its own only when given none).
        kubernetesCRD: { nativeLBByDefault: sendToService, namespaces },
        // Only Ingresses annotated kubernetes.io/ingress.class: traefik (cert-manager's HTTP-01 solver's):
        // with no class named, Traefik would also take every Ingress that names none, which GKE serves
        // (values.yaml providers.kubernetesIngress.ingressClass at v41.3.0).
        // Its own namespace too: it copies an Ingress's status from its published Service there, which it
        // reads from watched namespaces only (traefik v3.7 pkg/provider/kubernetes/ingress/client.go GetService).
        kubernetesIngress: {
          nativeLBByDefault: sendToService,
          namespaces: [...new Set([ingressControllerIdentities.traefik.namespace, ...namespaces])].sort(),
          ingressClass: "traefik",
        },
      },
      ports: {
        web: {
          http: { redirections: { entryPoint: { to: "websecure", scheme: "https", permanent: true } } },
          // Lets routers other than Traefik's own ACME resolver (here cert-manager's HTTP-01 solver Ingress)
          // answer /.well-known/acme-challenge; Let's Encrypt follows the HTTPS redirect for the rest.
          ...(args.acmeHttp01 ? { allowACMEByPass: true } : {}),
          transport: { lifeCycle },
        },
        websecure: { transport: { lifeCycle } },
      },
      // Keep the client's IP and skip the extra node hop of the cluster-wide policy.
      service: { spec: { externalTrafficPolicy: "Local" } },
      deployment: {
        replicas: s.replicas,
        // Longer than the accept grace plus the drain (the chart's default 60 s, explicit here).
        terminationGracePeriodSeconds: 60,
      },
      resources: containerResources(s),
    },
    s.replicas > 1
      ? {
          // At most one replica away at a time (templates/poddisruptionbudget.yaml at v41.3.0); its pods carry
          // these labels (templates/_helpers.tpl: instance is <release>-<namespace>).
          podDisruptionBudget: { enabled: true, maxUnavailable: 1 },
          topologySpreadConstraints: zoneSpread({
            "app.kubernetes.io/name": "traefik",
            "app.kubernetes.io/instance": `${ingressControllerIdentities.traefik.serviceAccount}-${ingressControllerIdentities.traefik.namespace}`,
          }),
        }
      : {},
    // Entrypoints (8000, 8443) take client traffic directly, keeping client IPs; outbound is meshed.
    mesh.ingressControllerPod("deployment", "8000,8443"),
  );
}

/**
 * The name of ingress-nginx's metrics port, on its container and its metrics Service: `http-` names its
 * protocol for Istio, which sniffs a port that names none when a meshed client calls it (IST0118). The
 * chart's Service template takes the name from controller.metrics.portName and has no appProtocol
 * (templates/controller-service-metrics.yaml, controller-deployment.yaml at 4.15.1; the chart's default is
 * `metrics`).
 */
export const ingressNginxMetricsPort = "http-metrics";

/**
 * ingress-nginx values for the mesh. The controller pod is meshed through its own annotations, not
 * the namespace, so nothing else in the namespace is; the admission webhook's certificate comes from
 * cert-manager, so the chart renders no hook Jobs that a mesh could keep from finishing.
 */
export function ingressNginxValues(args: Pick<IngressControllerArgs, "mesh" | "sizing">): Values {
  const s = args.sizing ?? single(sizingProfile.ingressController);
  return deepMerge(
    {
      controller: {
        ingressClassResource: { name: "nginx" },
        // One upstream per Service (its cluster IP): the mesh balances requests, not NGINX.
        config: { "service-upstream": "true" },
        service: { externalTrafficPolicy: "Local" },
        admissionWebhooks: { certManager: { enabled: true } },
        // With two or more, the chart renders a PodDisruptionBudget (controller.minAvailable 1,
        // templates/controller-poddisruptionbudget.yaml at 4.15.1). Its preStop /wait-shutdown stops NGINX
        // at once, while the load balancer keeps sending for about 24 s (externalTrafficPolicy Local): NGINX
        // keeps serving for the same grace as Traefik (--shutdown-grace-period, pkg/flags/flags.go), well
        // within the chart's 300 s termination grace.
        extraArgs: { "shutdown-grace-period": String(ingressAcceptGraceSeconds) },
        replicaCount: s.replicas,
        resources: containerResources(s),
        // Declares the metrics port (10254) the platform's monitor scrapes; no chart ServiceMonitor.
        metrics: { enabled: true, portName: ingressNginxMetricsPort },
        ...(s.replicas > 1
          ? {
              topologySpreadConstraints: zoneSpread({
                "app.kubernetes.io/name": "ingress-nginx",
                "app.kubernetes.io/instance": ingressControllerIdentities["ingress-nginx"].serviceAccount,
                "app.kubernetes.io/component": "controller",
              }),
            }
          : {}),
      },
    },
    // Client traffic (80, 443) and the API server's webhook calls (8443) are not mesh traffic.
    controllerMesh(args).ingressControllerPod("controller", "80,443,8443"),
  );
}

function controllerNamespace(
  name: string,
  chartId: string,
  args: IngressControllerArgs,
  parent: pulumi.Resource,
  retainOnDelete: boolean,
) {
  const chart = newChart(chartId);
  new PlatformNamespace(chart, "namespace", {
    name,
    // The controller pod is meshed by its own metadata; its init container needs what the mesh needs.
    podSecurity: controllerMesh(args).ingressControllerPodSecurity,
  });
  return [...deployChart(chartId, chart, { provider: args.provider, parent, retainOnDelete }).values()];
}

/**
 * The controller's own metrics: Traefik's `metrics` entrypoint (9100, Prometheus on by default,
 * values.yaml metrics.prometheus) or ingress-nginx's metrics port (10254, controller.metrics.enabled);
 * selected by the pods' labels (each chart's templates/_helpers.tpl).
 */
function controllerMonitor(
  name: string,
  namespace: string,
  podLabels: Readonly<Record<string, string>>,
  port: string,
  args: IngressControllerArgs,
  parent: pulumi.Resource,
  release: pulumi.Resource,
): void {
  if (!args.monitoring) return;
  const chart = newChart(`${name}-monitor`);
  new WorkloadMonitor(chart, "monitor", {
    name,
    namespace,
    podLabels,
    port,
    backend: args.monitoring.backend,
    selectorLabels: args.monitoring.selectorLabels,
  });
  // Waits for the monitors' CRD owner and the release (its namespace), never the other way round.
  deployChart(`${name}-monitor`, chart, {
    provider: args.provider,
    parent,
    dependsOn: [release, ...(args.monitoring.crdOwner ? [args.monitoring.crdOwner] : [])],
  });
}

/**
 * Traefik (pinned 41.3.0: its crds/ holds only Traefik's own CRDs, no Gateway API since 40.2.0). Its CRDs come
 * from its CRD chart (each its own resource, retained on delete, upgraded with the pin); the release skips
 * its crds/, which Helm would never upgrade.
 */
export class Traefik extends pulumi.ComponentResource {
  readonly release: k8s.helm.v3.Release;
  /** Traefik's CRDs (traefik-crds), where this component owns them. */
  readonly crds?: k8s.helm.v4.Chart;
  readonly namespace = ingressControllerIdentities.traefik.namespace;

  constructor(name: string, args: IngressControllerArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:addons:Traefik", name, {}, opts);
    const charts = args.charts ?? standaloneCharts({ traefik: "traefik-crds" });
    // Retained like Traefik's CRDs, which this component owns.
    const ns = controllerNamespace(this.namespace, `${name}-ns`, args, this, true);
    // Cluster-scoped, so they wait for nothing; Traefik's CRD provider needs them when it starts.
    this.crds = crdChartsOf(charts.owners).includes("traefik-crds")
      ? crdChart({
          crdChart: "traefik-crds",
          name: `${name}-crds`,
          namespace: this.namespace,
          charts,
          provider: args.provider,
          parent: this,
        })
      : undefined;
    this.release = pinnedRelease({
      chart: "traefik",
      name: ingressControllerIdentities.traefik.serviceAccount,
      namespace: this.namespace,
      values: traefikValues(args),
      charts,
      provider: args.provider,
      parent: this,
      // Its Roles are in the namespaces it routes to, which exist first.
      dependsOn: [
        ...ns,
        ...(this.crds ? [this.crds] : []),
        ...(args.meshReady ?? []),
        ...(args.routeNamespaces?.values() ?? []),
      ],
    });
    const ids = ingressControllerIdentities.traefik;
    controllerMonitor(
      "traefik",
      this.namespace,
      {
        "app.kubernetes.io/name": "traefik",
        "app.kubernetes.io/instance": `${ids.serviceAccount}-${ids.namespace}`,
      },
      // The entrypoint's name (values.yaml ports.metrics at 41.3.0).
      "metrics",
      args,
      this,
      this.release,
    );
    this.registerOutputs({});
  }
}

/** ingress-nginx, retired upstream in March 2026: for existing users, never the default. */
export class IngressNginx extends pulumi.ComponentResource {
  readonly release: k8s.helm.v3.Release;
  readonly namespace = ingressControllerIdentities["ingress-nginx"].namespace;

  constructor(name: string, args: IngressControllerArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:addons:IngressNginx", name, {}, opts);
    const ns = controllerNamespace(this.namespace, `${name}-ns`, args, this, false);
    this.release = pinnedRelease({
      chart: "ingressNginx",
      name: ingressControllerIdentities["ingress-nginx"].serviceAccount,
      namespace: this.namespace,
      values: ingressNginxValues(args),
      charts: args.charts ?? standaloneCharts({}),
      provider: args.provider,
      parent: this,
      // Its webhook certificate is a cert-manager Certificate; its pod is meshed by the injector.
      dependsOn: [...ns, args.certManager.certManager, ...(args.meshReady ?? [])],
    });
    controllerMonitor(
      "ingress-nginx-controller",
      this.namespace,
      {
        "app.kubernetes.io/name": "ingress-nginx",
        "app.kubernetes.io/instance": ingressControllerIdentities["ingress-nginx"].serviceAccount,
        "app.kubernetes.io/component": "controller",
      },
      ingressNginxMetricsPort,
      args,
      this,
      this.release,
    );
    this.registerOutputs({});
  }
}
