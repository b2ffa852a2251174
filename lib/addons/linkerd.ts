import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { PlatformConfig } from "../config";
import type { ChartContext } from "./helmRelease";
import {
  LinkerdIssuer,
  LinkerdMonitors,
  LinkerdNamespace,
  LinkerdTrustAnchor,
  PlatformNamespace,
  meshedPodSecurity,
  type MeshSettings,
} from "../manifests";
import { deployChart, newChart, objectKey } from "./cdk8sBridge";
import type { CertManager } from "./certManager";
import { deepMerge, pinnedRelease, type Values } from "./helmRelease";

export const linkerdNamespace = "linkerd";
export const linkerdVizNamespace = "linkerd-viz";
export const linkerdCniNamespace = "linkerd-cni";

/** The mesh options Linkerd reads, as the environment config resolves them. */
type LinkerdOptions = Pick<
  PlatformConfig["mesh"],
  "highAvailability" | "dashboard" | "previousTrustAnchor" | "tracing"
>;

export interface LinkerdArgs extends LinkerdOptions {
  readonly mesh: MeshSettings;
  readonly prometheusUrl?: string;
  readonly charts: ChartContext;
  readonly certManager: CertManager;
  readonly provider: k8s.Provider;
  /** The Gateway API CRDs when the platform installs them; Linkerd's policy controller needs them first. */
  readonly gatewayApiCrds?: readonly pulumi.Resource[];
  /** Where the control plane's and proxies' metrics go; absent for no monitoring. */
  readonly monitoring?: {
    readonly backend: "prometheus-operator" | "managed-prometheus";
    readonly selectorLabels: Record<string, string>;
    /** The owner of the PodMonitor CRD, when the platform installs it. */
    readonly crdOwner?: pulumi.Resource;
  };
}

/** linkerd-control-plane values for cert-manager-issued identity, plus HA and tracing when asked. */
export function controlPlaneValues(args: Pick<LinkerdArgs, "mesh" | "highAvailability" | "tracing">): Values {
  const t = args.tracing;
  return deepMerge(
    {
      identity: {
        // The trust roots ConfigMap comes from trust-manager, not from identityTrustAnchorsPEM.
        externalCA: true,
        // Read the issuer from cert-manager's kubernetes.io/tls Secret (tls.crt, tls.key, ca.crt).
        issuer: { scheme: "kubernetes.io/tls" },
      },
      // Native sidecars: Kubernetes stops the proxy when a Job's app exits, so Jobs finish (2.20 default; explicit here).
      proxy: { nativeSidecar: args.mesh.nativeSidecars },
      cniEnabled: args.mesh.cni,
    },
    args.highAvailability
      ? {
          // The replica and spreading part of Linkerd's values-ha.yaml: survive a node loss without losing identity, destination or injection.
          controllerReplicas: 3,
          enablePodAntiAffinity: true,
          enablePodDisruptionBudget: true,
          // With three injector replicas, never let a pod start unmeshed because the webhook was unreachable.
          webhookFailurePolicy: "Fail",
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
                ...(t.serviceAccount || t.namespace
                  ? {
                      meshIdentity: {
                        serviceAccountName: t.serviceAccount ?? "default",
                        namespace: t.namespace ?? "",
                      },
                    }
                  : {}),
              },
            },
          },
          controller: { tracing: { enabled: true } },
        }
      : {},
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
  readonly crds: k8s.helm.v3.Release;
  readonly controlPlane: k8s.helm.v3.Release;
  readonly viz?: k8s.helm.v3.Release;

  constructor(name: string, args: LinkerdArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:addons:Linkerd", name, {}, opts);
    const base = { provider: args.provider, parent: this };
    const cm = args.certManager;
    if (!cm.trustManager)
      throw new Error("Linkerd needs trust-manager: create CertManager with trustManager: true");

    // Stage 2: namespaces and CRDs.
    // The linkerd namespace holds the retained linkerd-crds release, so it is retained with it.
    const controlPlaneNs = newChart("linkerd-namespace");
    new LinkerdNamespace(controlPlaneNs, "linkerd", { name: linkerdNamespace, cni: args.mesh.cni });
    const retained = deployChart(`${name}-ns`, controlPlaneNs, { ...base, retainOnDelete: true });
    const nsChart = newChart("linkerd-namespaces");
    if (args.mesh.cni) {
      // The CNI DaemonSet writes to the node (hostPath, hostNetwork), so its namespace is privileged and unmeshed.
      new PlatformNamespace(nsChart, "cni", {
        name: linkerdCniNamespace,
        mesh: args.mesh,
        podSecurity: "privileged",
        labels: { "config.linkerd.io/admission-webhooks": "disabled" },
        annotations: { "linkerd.io/inject": "disabled" },
      });
    }
    if (args.dashboard) {
      new PlatformNamespace(nsChart, "viz", {
        name: linkerdVizNamespace,
        mesh: args.mesh,
        podSecurity: meshedPodSecurity(args.mesh),
        labels: { "linkerd.io/extension": "viz" },
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
      charts: args.charts,
      dependsOn: [ns(linkerdNamespace), ...(args.gatewayApiCrds ?? [])],
    });

    const cni = args.mesh.cni
      ? pinnedRelease({
          ...base,
          chart: "linkerdCni",
          name: "linkerd-cni",
          namespace: linkerdCniNamespace,
          // GKE's Container-Optimized OS keeps CNI binaries in /home/kubernetes/bin, not /opt/cni/bin
          // (linkerd2 #2174); the chart's default would install a plugin the kubelet never runs.
          values: { destCNIBinDir: "/home/kubernetes/bin", destCNINetDir: "/etc/cni/net.d" },
          charts: args.charts,
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

    // Stage 3: the control plane starts only with its CRDs, the issuer Secret and the trust roots in place:
    // the policy controller reads at start which route CRDs exist, and identity mounts the trust roots.
    this.controlPlane = pinnedRelease({
      ...base,
      chart: "linkerdControlPlane",
      name: "linkerd-control-plane",
      namespace: linkerdNamespace,
      values: controlPlaneValues(args),
      charts: args.charts,
      dependsOn: [this.crds, ...issuer.values(), ...(cni ? [cni] : [])],
    });

    if (args.dashboard) {
      this.viz = pinnedRelease({
        ...base,
        chart: "linkerdViz",
        name: "linkerd-viz",
        namespace: linkerdVizNamespace,
        values: {
          linkerdNamespace,
          // The stack's Prometheus, not viz's own (2-edge/tasks/external-prometheus.md).
          prometheus: { enabled: false },
          prometheusUrl: args.prometheusUrl ?? "",
          // The platform creates the namespace with its labels; no Job needs to patch them.
          createNamespaceMetadataJob: false,
        },
        charts: args.charts,
        dependsOn: [this.controlPlane, ns(linkerdVizNamespace)],
      });
    }

    if (args.monitoring) {
      const monitorChart = newChart("linkerd-monitors");
      new LinkerdMonitors(monitorChart, "monitors", {
        namespace: linkerdNamespace,
        backend: args.monitoring.backend,
        selectorLabels: args.monitoring.selectorLabels,
        extensionNamespaces: args.dashboard ? [linkerdVizNamespace] : [],
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
