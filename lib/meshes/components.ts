import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import type { Sizing } from "../config";
import type { CertManagerRef, ChartContext, MonitoringRef } from "../deploy";
import { Istio } from "./istio/component";
import { Linkerd } from "./linkerd/component";
import type { MeshIdentity, MeshKind } from "./mesh";

export { Istio, istioCsrValues, istiodValues, type IstioArgs, type IstioSizing } from "./istio/component";
export { Linkerd, controlPlaneValues, type LinkerdArgs, type LinkerdSizing } from "./linkerd/component";

/** What the rest of the platform needs from an installed mesh. */
export interface MeshControlPlane {
  /** The control plane: the mesh's admission webhooks, which policy objects wait for. */
  readonly injector: pulumi.Resource;
  /**
   * What a meshed pod needs ready before it starts: the injector, and with Istio ambient the ztunnel
   * that carries its traffic. App namespaces and meshed ingress controllers wait for them.
   */
  readonly podPrerequisites: readonly pulumi.Resource[];
  /** The release that owns the mesh's CRDs: objects of the mesh's kinds wait for it. */
  readonly crds: pulumi.Resource;
}

/** What every mesh's control plane is installed with. */
export interface MeshInstallArgs {
  readonly mesh: MeshIdentity;
  readonly charts: ChartContext;
  readonly certManager: CertManagerRef;
  readonly provider: k8s.Provider;
  readonly monitoring?: MonitoringRef;
  /** The Gateway API CRDs when the platform installs them. */
  readonly gatewayApiCrds?: readonly pulumi.Resource[];
  /** The Prometheus the mesh's dashboard queries. */
  readonly prometheusUrl?: string;
  /** The cluster's pod and Service ranges, where the platform knows them (it made the network). */
  readonly clusterNetworks?: readonly string[];
  /**
   * Ranges GKE reports for a cluster made elsewhere (its default pod range and its Service range), known
   * at deploy: added to the mesh's defaults, since such a cluster may have more pod ranges than these.
   */
  readonly reportedClusterNetworks?: pulumi.Input<readonly string[]>;
  /** Where kubelet's probes and other in-cluster clients outside the mesh come from (`Plan.clusterSources`). */
  readonly clusterSources?: readonly string[];
  /** Replicas, requests and limits of every workload. @default the profile, one replica each */
  readonly sizing?: Sizing;
  /** An in-cluster ingress controller joins the mesh with its own proxy (Traefik, ingress-nginx). @default false */
  readonly meshedIngress?: boolean;
}

type Installer = (
  name: string,
  args: MeshInstallArgs,
  opts: pulumi.ComponentResourceOptions,
) => MeshControlPlane;

/** Each mesh's component, made from the mesh's resolved settings: the one place a mesh is installed. */
const installers: { readonly [K in MeshKind]: Installer | undefined } = {
  linkerd: (name, a, opts) =>
    new Linkerd(
      name,
      {
        cni: a.mesh.config.cni,
        nativeSidecars: a.mesh.config.nativeSidecars,
        highAvailability: a.mesh.config.highAvailability,
        sizing: a.sizing,
        dashboard: a.mesh.config.dashboard,
        previousTrustAnchor: a.mesh.config.previousTrustAnchor,
        tracing: a.mesh.config.tracing,
        prometheusUrl: a.prometheusUrl,
        clusterNetworks: a.clusterNetworks,
        reportedClusterNetworks: a.reportedClusterNetworks,
        probeNetworks: a.clusterSources,
        charts: a.charts,
        certManager: a.certManager,
        provider: a.provider,
        gatewayApiCrds: a.gatewayApiCrds,
        monitoring: a.monitoring,
      },
      opts,
    ),
  istio: (name, a, opts) =>
    new Istio(
      name,
      {
        dataplane: a.mesh.config.dataplane,
        cni: a.mesh.config.cni,
        nativeSidecars: a.mesh.config.nativeSidecars,
        revisions: a.mesh.config.istio.revisions,
        defaultRevision: a.mesh.config.istio.defaultRevision,
        mtls: a.mesh.config.istio.mtls,
        highAvailability: a.mesh.config.highAvailability,
        previousTrustAnchor: a.mesh.config.previousTrustAnchor,
        sizing: a.sizing,
        sidecarIngress: a.meshedIngress,
        charts: a.charts,
        certManager: a.certManager,
        provider: a.provider,
        monitoring: a.monitoring,
      },
      opts,
    ),
  none: undefined,
};

/** Installs the environment's mesh; nothing for no mesh. */
export function installMesh(
  name: string,
  args: MeshInstallArgs,
  opts: pulumi.ComponentResourceOptions,
): MeshControlPlane | undefined {
  return installers[args.mesh.kind]?.(name, args, opts);
}
