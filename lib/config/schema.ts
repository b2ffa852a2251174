/** The choices the config's keys pick from (tiers, kinds, classes), and what each mesh kind gives other defaults. */
import { istioProxySizing, sizingProfile, type ResourceSizing } from "./sizing";

export const tiers = ["dev", "staging", "prod"] as const;
export type Tier = (typeof tiers)[number];

export const clusterModes = ["standard", "autopilot", "existing"] as const;
export const releaseChannels = ["RAPID", "REGULAR", "STABLE", "EXTENDED"] as const;
export const gatewayApiChannels = ["standard", "disabled"] as const;
export const meshKinds = ["linkerd", "istio", "none"] as const;

/**
 * What other sections' defaults read from the chosen mesh (everything else about a mesh is its own, in
 * lib/meshes): whether its proxies redirect traffic (without the mesh's CNI, an init container with
 * NET_ADMIN), whether GKE Dataplane V2 is the default beside it, and its proxy's default sizing.
 */
export const meshDefaults: {
  readonly [K in (typeof meshKinds)[number]]: {
    readonly redirectsTraffic: boolean;
    readonly dataplaneV2: boolean;
    readonly proxy: ResourceSizing;
  };
} = {
  // On with Linkerd too: its one Cilium caveat, socket-level load balancing in pod namespaces (linkerd/website
  // linkerd.io/content/2-edge/reference/cluster-configuration.md "Cilium"), breaks Istio sidecars alike
  // (cilium/cilium#16583); GKE runs those on Dataplane V2 and Autopilot, using Google's pod-namespace bypass (cilium/cilium#17154).
  linkerd: { redirectsTraffic: true, dataplaneV2: true, proxy: sizingProfile.proxy },
  istio: { redirectsTraffic: true, dataplaneV2: true, proxy: istioProxySizing },
  // No proxy runs; the profile's numbers stand in.
  none: { redirectsTraffic: false, dataplaneV2: true, proxy: sizingProfile.proxy },
};
export const istioDataplanes = ["sidecar", "ambient"] as const;
export const ingressKinds = ["gke-gateway", "traefik", "ingress-nginx", "gce-ingress", "none"] as const;
export const monitoringBackends = [
  "prometheus",
  "managed-prometheus",
  "existing-prometheus",
  "none",
] as const;
export const weekdays = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"] as const;

/**
 * Single-cluster GatewayClasses of the Google-hosted controller, and whether each load balancer is
 * regional (docs.cloud.google.com/kubernetes-engine/docs/how-to/gatewayclass-capabilities): a regional
 * one runs its proxies in the region's proxy-only subnet and takes regional SSL certificates and policies.
 * The one table the plan, the config rules and the edge read.
 */
const gatewayClassScope = {
  "gke-l7-global-external-managed": "global",
  "gke-l7-regional-external-managed": "regional",
  "gke-l7-rilb": "regional",
  "gke-l7-gxlb": "global",
} as const;
export type GatewayClass = keyof typeof gatewayClassScope;
export const gatewayClasses = Object.keys(gatewayClassScope) as [GatewayClass, ...GatewayClass[]];

/** A regional (or internal) Gateway class: proxy-only subnet, regional certificates and SSL policy. */
export function isRegionalGatewayClass(gatewayClass: GatewayClass): boolean {
  return gatewayClassScope[gatewayClass] === "regional";
}

export const maintenanceScopes = ["NO_UPGRADES", "NO_MINOR_UPGRADES", "NO_MINOR_OR_NODE_UPGRADES"] as const;

export const crdOwnerDeclarations = ["platform", "pre-installed"] as const;

/** Ways an app can be exposed: the in-cluster controller of ingress.kind, or one of GKE's own load balancers. */
export const exposurePaths = ["gke-gateway", "traefik", "ingress-nginx", "gce-ingress"] as const;
export const httpMethods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
