/** What may call an app: its rules' callers, and what comes from outside the mesh (probes, scrapes, ingress). */
import {
  isRegionalGatewayClass,
  probePathOf,
  type App,
  type ExposurePath,
  type PlatformConfig,
} from "../config";
import type { AccessGrant, Caller } from "../manifests";
import type { MeshPodContract } from "../meshes";
import { googleLoadBalancerRanges, ingressControllerIdentities, privateNetworks } from "../versions";

/** A path and everything under it, in the form routes and rules match prefixes. */
function underPath(path: string): string {
  return `${path.replace(/\/+$/, "")}/*`;
}

/** The addresses in-cluster clients outside the mesh come from (`Plan.clusterSources`). */
export function clusterSourcesOf(config: Pick<PlatformConfig, "cluster" | "network">): string[] {
  return config.cluster.mode === "existing"
    ? [...privateNetworks]
    : [config.network.nodesCidr, config.network.podsCidr];
}

/**
 * Everything that may call an app once it has authorization rules or its namespace denies by
 * default: the rules' callers, plus what comes from outside the mesh and must keep working whatever
 * is denied, each from where it really comes: kubelet's probes from the cluster's own addresses and
 * Google's health checks from Google's ranges, on the probe path; Prometheus from the cluster, on the
 * metrics path; the app's ingress on its exposed path. Where the mesh takes probes or scrapes past its
 * proxy's authorization (Istio), none is granted. Nothing is granted to every address.
 */
export function accessGrants(config: PlatformConfig, mesh: MeshPodContract, app: App): AccessGrant[] {
  const grants: AccessGrant[] = (app.mesh.authorization?.rules ?? []).map((rule) => ({
    callers: rule.from.map((from): Caller => {
      const [namespace, serviceAccount] = from.includes("/") ? from.split("/") : [app.namespace, from];
      return { kind: "identity", namespace, serviceAccount };
    }),
    methods: rule.methods,
    paths: rule.paths,
  }));
  const cluster: Caller = { kind: "network", name: "cluster", cidrs: clusterSourcesOf(config) };
  const healthChecks = (app.expose?.via ?? [])
    .filter((via) => via === "gke-gateway" || via === "gce-ingress")
    .map((via) => ingressCaller(config, via));
  const probeCallers = [...(mesh.probesThroughPolicy ? [cluster] : []), ...healthChecks];
  if (probeCallers.length > 0)
    grants.push({ callers: probeCallers, methods: ["GET"], paths: [probePathOf(app)] });
  // kubelet alone probes liveness; load balancers health-check the readiness path only.
  if (app.livenessPath && mesh.probesThroughPolicy)
    grants.push({ callers: [cluster], methods: ["GET"], paths: [app.livenessPath] });
  if (app.metrics && mesh.appScrape({ port: app.port, path: app.metrics.path }).throughPolicy)
    grants.push({ callers: [cluster], methods: ["GET"], paths: [app.metrics.path] });
  if (app.expose) {
    const callers = app.expose.via.map((via) => ingressCaller(config, via));
    // With stripPrefix, the controller forwards the path without its prefix: any path may arrive.
    const path = app.expose.stripPrefix ? "/*" : underPath(app.expose.path);
    grants.push({ callers, methods: app.expose.methods, paths: [path] });
  }
  return grants;
}

/** Who an exposed app's requests come from, by the way it is exposed. */
export function ingressCaller(config: PlatformConfig, via: ExposurePath): Caller {
  if (via === "traefik" || via === "ingress-nginx")
    return { kind: "identity", ...ingressControllerIdentities[via] };
  // Google's load balancers reach pods straight from their own ranges, outside the mesh; regional and
  // internal Gateway classes proxy from the proxy-only subnet.
  const proxyOnly =
    via === "gke-gateway" && isRegionalGatewayClass(config.ingress.gatewayClass)
      ? [config.network.proxyOnlyCidr]
      : [];
  return { kind: "network", name: via, cidrs: [...googleLoadBalancerRanges, ...proxyOnly] };
}
