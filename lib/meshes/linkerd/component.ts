import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { sizingProfile, type ResourceSizing, type Sizing } from "../../config";
import {
  deepMerge,
  deployChart,
  newChart,
  objectKey,
  pinnedRelease,
  single,
  standaloneCharts,
  type CertManagerRef,
  type ChartContext,
  type MonitoringRef,
  type Values,
} from "../../deploy";
import { CertificateAlerts, PlatformNamespace } from "../../manifests";
import { linkerdFacts, privateNetworks } from "../../versions";
import { linkerdIdentityAlertRules } from "./alerts";
import { LinkerdIssuer, LinkerdTrustAnchor } from "./identity";
import { LinkerdMonitors } from "./monitors";
import { RouteCrdsAccess, RouteCrdsWait } from "./routeCrds";
import {
  LinkerdWebhookCertificates,
  webhookCertificateValues,
  type LinkerdWebhook,
} from "./webhookCertificates";
import {
  LinkerdNamespace,
  linkerdCniNamespace,
  linkerdNamespace,
  linkerdPodSecurity,
  linkerdVizNamespace,
} from "./namespace";

export interface LinkerdArgs {
  /** Redirect traffic with linkerd-cni instead of a privileged init container. @default false */
  readonly cni?: boolean;
  /** Run proxies as native sidecars, so meshed Jobs finish. @default true */
  readonly nativeSidecars?: boolean;
  /** Linkerd's values-ha.yaml: replicas, anti-affinity, disruption budgets, a failing injector webhook. @default false */
  readonly highAvailability?: boolean;
  /**
   * Replicas, requests and limits of the control plane, every proxy, linkerd-viz and linkerd-cni
   * (docs/configuration.md, "Sizing"). @default the platform's profile (values-ha.yaml's numbers), one replica each
   */
  readonly sizing?: LinkerdSizing;
  /** Install linkerd-viz, reading metrics from `prometheusUrl`. @default false */
  readonly dashboard?: boolean;
  /** Trust the previous trust anchor too, during an anchor rotation (docs/linkerd.md). @default false */
  readonly previousTrustAnchor?: boolean;
  /** Export traces from every proxy to an OpenTelemetry collector. @default no tracing */
  readonly tracing?: {
    /** The collector's address, host:port. */
    readonly collectorEndpoint: string;
    /** The collector's service account, its mesh identity. */
    readonly serviceAccount?: string;
    /** The collector's namespace. */
    readonly namespace?: string;
  };
  /**
   * The cluster's pod and Service ranges: the proxies resolve and authorize these as in-cluster.
   * @default the chart's: every private IPv4 range and IPv6 ULAs
   */
  readonly clusterNetworks?: readonly string[];
  /**
   * Ranges GKE reports for a cluster made elsewhere, known at deploy: added to the chart's default, since
   * such a cluster may have pod ranges GKE lists elsewhere (additional or per-node-pool ranges).
   * Ignored with `clusterNetworks`.
   * @default none: the chart's default (or `clusterNetworks`) alone
   */
  readonly reportedClusterNetworks?: pulumi.Input<readonly string[]>;
  /**
   * Where kubelet's probes come from: the policy controller authorizes probes from these networks only.
   * @default the chart's: every address
   */
  readonly probeNetworks?: readonly string[];
  /** The Prometheus linkerd-viz queries. @default none (required with `dashboard`) */
  readonly prometheusUrl?: string;
  /** CRD owners and the user's chart overrides. @default Linkerd's charts own Linkerd's and trust-manager's CRDs; GKE the Gateway API */
  readonly charts?: ChartContext;
  /** cert-manager with trust-manager: the trust anchor and issuer come from it. */
  readonly certManager: CertManagerRef;
  /** The cluster's Kubernetes provider. */
  readonly provider: k8s.Provider;
  /** The Gateway API CRDs when the platform installs them; Linkerd's policy controller needs them first. @default none (GKE serves them) */
  readonly gatewayApiCrds?: readonly pulumi.Resource[];
  /**
   * Start the control plane only once the cluster serves the HTTPRoute and GRPCRoute CRDs (a Job waits
   * for them), because its policy controller looks for them once, at start. Turn off on a cluster that
   * serves no Gateway API.
   * @default true unless `gatewayApiCrds` is given (the control plane then waits for those)
   */
  readonly waitForRouteCrds?: boolean;
  /** Where the control plane's and proxies' metrics go. @default no monitors */
  readonly monitoring?: MonitoringRef;
}

/** The sizing Linkerd's charts read. */
export type LinkerdSizing = Pick<Sizing, "proxy" | "linkerdControlPlane" | "linkerdViz" | "linkerdCni">;

const standaloneSizing: LinkerdSizing = {
  proxy: sizingProfile.proxy,
  linkerdControlPlane: single(sizingProfile.linkerdControlPlane),
  linkerdViz: single(sizingProfile.linkerdViz),
  linkerdCni: sizingProfile.linkerdCni,
};

/** Resources in Linkerd's shape (charts/partials/templates/_resources.tpl): an empty limit is no limit. */
export function linkerdResources(s: ResourceSizing): Values {
  return {
    cpu: { request: s.cpu, limit: s.cpuLimit ?? "" },
    memory: { request: s.memory, limit: s.memoryLimit },
  };
}

/** linkerd-control-plane values for cert-manager-issued identity, its sizing, plus HA and tracing when asked. */
export function controlPlaneValues(
  args: Pick<
    LinkerdArgs,
    | "cni"
    | "nativeSidecars"
    | "highAvailability"
    | "tracing"
    | "clusterNetworks"
    | "reportedClusterNetworks"
    | "probeNetworks"
    | "sizing"
  >,
): Values {
  const t = args.tracing;
  const s = args.sizing ?? standaloneSizing;
  const controller = linkerdResources(s.linkerdControlPlane);
  return deepMerge(
    {
      identity: {
        // The trust roots ConfigMap comes from trust-manager, not from identityTrustAnchorsPEM.
        externalCA: true,
        // Read the issuer from cert-manager's kubernetes.io/tls Secret (tls.crt, tls.key, ca.crt).
        issuer: { scheme: "kubernetes.io/tls" },
      },
      // Native sidecars: Kubernetes stops the proxy when a Job's app exits, so Jobs finish (2.20 default; explicit here).
      proxy: { nativeSidecar: args.nativeSidecars ?? true },
      cniEnabled: args.cni ?? false,
      // Off: a daily CronJob reporting the cluster's usage to versioncheck.linkerd.io, unasked and without
      // startingDeadlineSeconds (edge-26.8.3 controller/heartbeat/heartbeat.go, templates/heartbeat.yaml).
      disableHeartBeat: true,
      // Service discovery and the in-cluster network policy cover the cluster's ranges: the chart's
      // default, every private range, misses pods and Services outside it, such as GKE's own Service range
      // 34.118.224.0/20 (LINKERD2_PROXY_DESTINATION_PROFILE_NETWORKS, LINKERD2_PROXY_POLICY_CLUSTER_NETWORKS
      // in charts/partials/templates/_proxy.tpl; the policy controller's --cluster-networks in
      // templates/destination.yaml).
      ...clusterNetworksValue(args),
      // The probe route the policy controller authorizes by itself takes probes from these networks only
      // (templates/destination.yaml --probe-networks; policy-controller/k8s/index/src/inbound/index.rs).
      ...(args.probeNetworks ? { policyController: { probeNetworks: [...args.probeNetworks] } } : {}),
      // The webhooks' serving certificates come from cert-manager, which renews them; the chart's own
      // are generated at template time for 365 days and renewed only by a chart upgrade.
      ...webhookCertificateValues(linkerdNamespace, linkerdFacts.webhooks.controlPlane),
    },
    {
      // Every proxy, and its init container (charts/partials/templates/_proxy.tpl, _proxy-init.tpl,
      // _network-validator.tpl all read proxy.resources); values-ha.yaml's numbers by default.
      proxy: { resources: linkerdResources(s.proxy) },
      // Each controller container reads its own key (templates/destination.yaml: destinationResources,
      // spValidatorResources, policyController.resources; identity.yaml, proxy-injector.yaml,
      // heartbeat.yaml, rendered only when the heartbeat is turned back on); values-ha.yaml gives them all
      // controllerResources.
      destinationResources: controller,
      spValidatorResources: controller,
      policyController: { resources: controller },
      identityResources: controller,
      proxyInjectorResources: controller,
      heartbeatResources: controller,
      controllerReplicas: args.highAvailability
        ? Math.max(2, s.linkerdControlPlane.replicas)
        : s.linkerdControlPlane.replicas,
    },
    args.highAvailability
      ? {
          // The rest of Linkerd's values-ha.yaml: survive a node loss without losing identity, destination or injection.
          enablePodAntiAffinity: true,
          enablePodDisruptionBudget: true,
          controller: { podDisruptionBudget: { maxUnavailable: 1 } },
          deploymentStrategy: { rollingUpdate: { maxUnavailable: 1, maxSurge: "25%" } },
          // With several injector replicas, never let a pod start unmeshed because the webhook was unreachable.
          webhookFailurePolicy: "Fail",
          // `linkerd check` runs its HA checks when linkerd-config says so (pkg/healthcheck/healthcheck.go isHA).
          highAvailability: true,
        }
      : {},
    t
      ? {
          // OpenTelemetry export from every proxy, and from the controllers, which reuse the proxy's endpoint.
          proxy: {
            tracing: {
              enabled: true,
              collector: {
                endpoint: t.collectorEndpoint,
                // Required by the chart (charts/partials/templates/_proxy.tpl); the plan refuses tracing without it.
                meshIdentity: { serviceAccountName: t.serviceAccount, namespace: t.namespace },
              },
            },
          },
          controller: { tracing: { enabled: true } },
        }
      : {},
  );
}

/**
 * linkerd-viz values: the stack's Prometheus instead of viz's own, its sizing, and values-ha.yaml's
 * replicas, anti-affinity and disruption budgets with highAvailability.
 */
export function vizValues(args: Pick<LinkerdArgs, "prometheusUrl" | "highAvailability" | "sizing">): Values {
  const s = args.sizing ?? standaloneSizing;
  const resources = linkerdResources(s.linkerdViz);
  return deepMerge(
    {
      linkerdNamespace,
      // The stack's Prometheus, not viz's own (2-edge/tasks/external-prometheus.md).
      prometheus: { enabled: false },
      prometheusUrl: args.prometheusUrl ?? "",
      // The platform creates the namespace with its labels; no Job needs to patch them.
      createNamespaceMetadataJob: false,
      // viz/charts/linkerd-viz/values-ha.yaml: every component's resources; tap (the aggregated API
      // `kubectl` discovery calls) three replicas; the others serve the dashboard and run once.
      metricsAPI: { resources },
      tap: {
        resources,
        replicas: args.highAvailability ? Math.max(2, s.linkerdViz.replicas) : s.linkerdViz.replicas,
      },
      tapInjector: { resources },
      dashboard: { resources },
      ...(args.highAvailability ? { enablePodAntiAffinity: true, enablePodDisruptionBudget: true } : {}),
    },
    // tap's and tap-injector's serving certificates from cert-manager, as the control plane's.
    webhookCertificateValues(linkerdVizNamespace, linkerdFacts.webhooks.viz),
  );
}

/**
 * Linkerd from its edge-channel charts, with identity from cert-manager:
 * the `linkerd` namespace (labelled as the chart expects; Helm does not create it), the trust
 * anchor and identity issuer (cert-manager), the trust roots ConfigMap (trust-manager), linkerd-crds
 * with every Gateway API flag off, the control plane once its CRDs, issuer Secret and trust roots
 * exist, and optionally linkerd-cni, linkerd-viz and the monitors.
 */
export class Linkerd extends pulumi.ComponentResource {
  readonly namespace = linkerdNamespace;
  /** The control plane with its proxy injector and policy validator. */
  readonly injector: k8s.helm.v3.Release;
  /** What meshed pods wait for: the control plane (which itself waits for linkerd-cni). */
  readonly podPrerequisites: readonly pulumi.Resource[];
  readonly crds: k8s.helm.v3.Release;
  readonly controlPlane: k8s.helm.v3.Release;
  readonly viz?: k8s.helm.v3.Release;

  constructor(name: string, args: LinkerdArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:addons:Linkerd", name, {}, opts);
    const base = { provider: args.provider, parent: this };
    const charts = args.charts ?? standaloneCharts({ linkerd: "linkerdCrds", trustManager: "trustManager" });
    const cni = args.cni ?? false;
    const cm = args.certManager;
    if (!cm.trustManager)
      throw new Error("Linkerd needs trust-manager: create CertManager with trustManager: true");

    // Stage 2: namespaces and CRDs.
    // The linkerd namespace holds the retained linkerd-crds release, so it is retained with it.
    const controlPlaneNs = newChart("linkerd-namespace");
    new LinkerdNamespace(controlPlaneNs, "linkerd", { name: linkerdNamespace, cni });
    const retained = deployChart(`${name}-ns`, controlPlaneNs, { ...base, retainOnDelete: true });
    const nsChart = newChart("linkerd-namespaces");
    if (cni) {
      // The CNI DaemonSet writes to the node (hostPath, hostNetwork), so its namespace is privileged and unmeshed.
      new PlatformNamespace(nsChart, "cni", {
        name: linkerdCniNamespace,
        podSecurity: "privileged",
        labels: { "config.linkerd.io/admission-webhooks": "disabled" },
        annotations: { "linkerd.io/inject": "disabled" },
      });
    }
    if (args.dashboard) {
      new PlatformNamespace(nsChart, "viz", {
        name: linkerdVizNamespace,
        podSecurity: linkerdPodSecurity(cni),
        labels: { "linkerd.io/extension": "viz" },
        // The namespace viz's CLI install makes (viz/charts/linkerd-viz/templates/namespace.yaml): `linkerd viz
        // check` and the viz commands read the external Prometheus from it (viz/pkg/labels/labels.go).
        annotations: args.prometheusUrl ? { "viz.linkerd.io/external-prometheus": args.prometheusUrl } : {},
      });
    }
    const namespaces = new Map([...retained, ...deployChart(`${name}-ns`, nsChart, base)]);
    const ns = (n: string) =>
      namespaces.get(objectKey({ kind: "Namespace", metadata: { name: n } })) as pulumi.Resource;

    this.crds = pinnedRelease({
      ...base,
      chart: "linkerdCrds",
      name: "linkerd-crds",
      namespace: linkerdNamespace,
      values: {},
      charts,
      dependsOn: [ns(linkerdNamespace), ...(args.gatewayApiCrds ?? [])],
    });

    const cniRelease = cni
      ? pinnedRelease({
          ...base,
          chart: "linkerdCni",
          name: "linkerd-cni",
          namespace: linkerdCniNamespace,
          // GKE's Container-Optimized OS keeps CNI binaries in /home/kubernetes/bin, not /opt/cni/bin
          // (linkerd2 #2174); the chart's default would install a plugin the kubelet never runs.
          values: {
            destCNIBinDir: "/home/kubernetes/bin",
            destCNINetDir: "/etc/cni/net.d",
            // The installer and, when on, the repair controller (templates/cni-plugin.yaml).
            resources: linkerdResources((args.sizing ?? standaloneSizing).linkerdCni),
            repairController: { resources: linkerdResources((args.sizing ?? standaloneSizing).linkerdCni) },
          },
          charts,
          dependsOn: [ns(linkerdCniNamespace)],
        })
      : undefined;

    // Stage 4: identity, issued in the cluster by cert-manager.
    const anchorChart = newChart("linkerd-trust-anchor");
    new LinkerdTrustAnchor(anchorChart, "anchor", { trustNamespace: cm.namespace });
    const anchor = deployChart(`${name}-anchor`, anchorChart, { ...base, dependsOn: [cm.certManager] });

    const issuerChart = newChart("linkerd-issuer");
    new LinkerdIssuer(issuerChart, "issuer", {
      namespace: linkerdNamespace,
      previousTrustAnchor: args.previousTrustAnchor,
    });
    const issuer = deployChart(`${name}-identity`, issuerChart, {
      ...base,
      // The Bundle is cluster-scoped but writes into the linkerd namespace, so it waits for it too.
      dependsOn: [...anchor.values(), cm.trustManager, ns(linkerdNamespace)],
      namespaces: new Map([[linkerdNamespace, ns(linkerdNamespace)]]),
    });

    // The policy controller looks for the route CRDs once, at start: where GKE installs them, possibly
    // after the cluster is up, the control plane waits until they are served.
    const routeCrds: pulumi.Resource[] = [];
    if (args.waitForRouteCrds ?? !args.gatewayApiCrds) {
      const inNamespace = new Map([[linkerdNamespace, ns(linkerdNamespace)]]);
      const accessChart = newChart("linkerd-route-crds-access");
      new RouteCrdsAccess(accessChart, "access", { namespace: linkerdNamespace });
      const access = [
        ...deployChart(`${name}-route-crds-access`, accessChart, {
          ...base,
          namespaces: inNamespace,
        }).values(),
      ];
      const waitChart = newChart("linkerd-route-crds");
      new RouteCrdsWait(waitChart, "wait", { namespace: linkerdNamespace });
      routeCrds.push(
        ...deployChart(`${name}-route-crds`, waitChart, {
          ...base,
          namespaces: inNamespace,
          // Its rights first: a forbidden `kubectl wait` would count against the Job's retries.
          dependsOn: access,
        }).values(),
      );
    }

    // The webhooks' serving certificates, which their pods mount: issued before the charts install.
    const webhookCertificates = (namespace: string, webhooks: readonly LinkerdWebhook[], id: string) => {
      const chart = newChart(`${id}-webhook-certificates`);
      new LinkerdWebhookCertificates(chart, "webhooks", { namespace, webhooks });
      return [
        ...deployChart(`${name}-${id}-webhooks`, chart, {
          ...base,
          dependsOn: [cm.certManager],
          namespaces: new Map([[namespace, ns(namespace)]]),
        }).values(),
      ];
    };
    const controlPlaneWebhooks = webhookCertificates(
      linkerdNamespace,
      linkerdFacts.webhooks.controlPlane,
      "linkerd",
    );

    // Stage 3: the control plane starts only with its CRDs, the issuer Secret, the trust roots and its
    // webhooks' certificates in place: the policy controller reads at start which route CRDs exist, and
    // identity mounts the trust roots.
    this.controlPlane = pinnedRelease({
      ...base,
      chart: "linkerdControlPlane",
      name: "linkerd-control-plane",
      namespace: linkerdNamespace,
      values: controlPlaneValues(args),
      charts,
      dependsOn: [
        this.crds,
        ...issuer.values(),
        ...controlPlaneWebhooks,
        ...routeCrds,
        ...(cniRelease ? [cniRelease] : []),
      ],
    });

    if (args.dashboard) {
      this.viz = pinnedRelease({
        ...base,
        chart: "linkerdViz",
        name: "linkerd-viz",
        namespace: linkerdVizNamespace,
        values: vizValues(args),
        charts,
        dependsOn: [
          this.controlPlane,
          ns(linkerdVizNamespace),
          ...webhookCertificates(linkerdVizNamespace, linkerdFacts.webhooks.viz, "linkerd-viz"),
        ],
      });
    }

    this.injector = this.controlPlane;
    this.podPrerequisites = [this.controlPlane];

    if (args.monitoring) {
      const monitorChart = newChart("linkerd-monitors");
      new LinkerdMonitors(monitorChart, "monitors", {
        namespace: linkerdNamespace,
        backend: args.monitoring.backend,
        selectorLabels: args.monitoring.selectorLabels,
        extensionNamespaces: args.dashboard ? [linkerdVizNamespace] : [],
      });
      new CertificateAlerts(monitorChart, "identity-alerts", {
        ...args.monitoring,
        name: "linkerd-identity",
        namespace: linkerdNamespace,
        rules: linkerdIdentityAlertRules(cm.namespace),
      });
      // Monitors wait only for their CRD's owner and the namespace, never for the control plane.
      deployChart(`${name}-monitors`, monitorChart, {
        ...base,
        dependsOn: args.monitoring.crdOwner ? [args.monitoring.crdOwner] : [],
        namespaces: new Map(
          [linkerdNamespace, ...(args.dashboard ? [linkerdVizNamespace] : [])].map(
            (n) => [n, ns(n)] as const,
          ),
        ),
      });
    }
    this.registerOutputs({});
  }
}

/**
 * `clusterNetworks` as the chart takes it, one comma-separated string: exactly the ranges the platform
 * made, or the chart's default with the ranges GKE reports added (a plain string when known now).
 */
function clusterNetworksValue(args: Pick<LinkerdArgs, "clusterNetworks" | "reportedClusterNetworks">): {
  clusterNetworks?: pulumi.Input<string>;
} {
  if (args.clusterNetworks) return { clusterNetworks: args.clusterNetworks.join(",") };
  if (!args.reportedClusterNetworks) return {};
  const withDefault = (reported: readonly string[]) =>
    [...new Set([...privateNetworks, ...reported])].join(",");
  const reported = args.reportedClusterNetworks;
  return {
    clusterNetworks: Array.isArray(reported)
      ? withDefault(reported)
      : pulumi.output(reported).apply(withDefault),
  };
}
