import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import type { Chart } from "cdk8s";
import { deployChart, ingressControllerIdentities, newChart } from "../addons";
import {
  isGuarded,
  probePathOf,
  restRouteSuffix,
  type App,
  type ExposurePath,
  type PlatformConfig,
} from "../config";
import { needsProxyOnlySubnet } from "../gcp";
import {
  AppAccess,
  DenyByDefault,
  FaultInjector,
  MeshRoutes,
  anyNetwork,
  type AccessGrant,
  type Caller,
  type PolicyMesh,
} from "../manifests";
import { googleLoadBalancerRanges } from "../versions";

export interface MeshPolicyArgs {
  readonly config: PlatformConfig;
  readonly provider: k8s.Provider;
  readonly parent: pulumi.Resource;
  /** The mesh's control plane (its CRDs and admission webhooks) and the Gateway API CRDs when the platform owns them. */
  readonly dependsOn: readonly pulumi.Resource[];
  /** App namespaces by name. */
  readonly namespaces: ReadonlyMap<string, pulumi.Resource>;
}

/**
 * Apps' mesh routes and authorization, deny-by-default namespaces and the fault injectors routes use:
 * one chart per app and one per namespace, each waiting for the mesh's control plane and its
 * namespace. The workloads never wait for them.
 */
export function deployMeshPolicy(name: string, args: MeshPolicyArgs): void {
  const { config } = args;
  if (config.mesh.kind === "none") return;
  const mesh: PolicyMesh = config.mesh.kind;
  const deploy = (id: string, chart: Chart, ns: string, after: readonly pulumi.Resource[] = []) => {
    const namespace = args.namespaces.get(ns);
    return [
      ...deployChart(`${name}-${id}`, chart, {
        provider: args.provider,
        parent: args.parent,
        namespaces: namespace ? new Map([[ns, namespace]]) : undefined,
        dependsOn: [...args.dependsOn, ...after],
      }).values(),
    ];
  };
  // Linkerd's Servers go last: from the moment one exists, what no policy authorizes (probes
  // included) is refused, so its routes and policies must be there first.
  const withServers = (id: string, ns: string, build: (policies: Chart, servers: Chart) => void) => {
    const policies = newChart(id);
    const servers = newChart(`${id}-servers`);
    build(policies, servers);
    const deployed = deploy(id, policies, ns);
    deploy(`${id}-servers`, servers, ns, deployed);
  };

  const deny = new Set(config.mesh.denyByDefault);
  for (const app of config.apps) {
    const guarded = isGuarded(config, app);
    if (app.mesh.routes.length === 0 && !guarded) continue;
    withServers(`mesh-policy-${app.namespace}-${app.name}`, app.namespace, (chart, servers) => {
      new MeshRoutes(chart, "routes", {
        mesh,
        namespace: app.namespace,
        service: app.name,
        port: app.port,
        restRouteName: `${app.name}-${restRouteSuffix}`,
        routes: app.mesh.routes.map((r) => ({
          ...r,
          backends: r.backends.map((b) => ({
            service: b.app,
            port: b.port ?? portOf(config, app.namespace, b.app),
            weight: b.weight,
          })),
        })),
      });
      if (guarded) {
        new AppAccess(chart, "access", {
          mesh,
          name: app.name,
          namespace: app.namespace,
          podSelector: { "app.kubernetes.io/name": app.name },
          port: app.port,
          grants: accessGrants(config, app),
          serverScope: servers,
        });
      }
    });
  }

  const namespaces = [...new Set(config.apps.map((a) => a.namespace))].sort();
  for (const ns of namespaces) {
    const statuses = new Set(
      config.apps
        .filter((a) => a.namespace === ns)
        .flatMap((a) => a.mesh.routes.flatMap((r) => (r.fault ? [r.fault.status] : []))),
    );
    if (statuses.size === 0 && !deny.has(ns)) continue;
    withServers(`mesh-policy-${ns}`, ns, (chart, servers) => {
      if (deny.has(ns)) new DenyByDefault(chart, "deny", { mesh, namespace: ns, serverScope: servers });
      for (const status of [...statuses].sort()) {
        new FaultInjector(chart, `fault-${status}`, { mesh, namespace: ns, status });
      }
    });
  }
}

function portOf(config: PlatformConfig, namespace: string, app: string): number {
  const target = config.apps.find((a) => a.namespace === namespace && a.name === app);
  // The config rules refuse a backend that names no app of the namespace.
  if (!target) throw new Error(`defect: mesh route backend ${namespace}/${app} is not an app`);
  return target.port;
}

/** A path and everything under it, in the form routes and rules match prefixes. */
function underPath(path: string): string {
  return `${path.replace(/\/+$/, "")}/*`;
}

/**
 * Everything that may call an app once it has authorization rules or its namespace denies by
 * default: the rules' callers, plus what comes from outside the mesh and must keep working whatever
 * is denied: kubelet's probes (and load balancers' health checks) on the probe path, Prometheus on
 * the metrics path, and the app's ingress on its exposed path.
 */
export function accessGrants(config: PlatformConfig, app: App): AccessGrant[] {
  const grants: AccessGrant[] = (app.mesh.authorization?.rules ?? []).map((rule) => ({
    callers: rule.from.map((from): Caller => {
      const [namespace, serviceAccount] = from.includes("/") ? from.split("/") : [app.namespace, from];
      return { kind: "identity", namespace, serviceAccount };
    }),
    methods: rule.methods,
    paths: rule.paths,
  }));
  grants.push({ callers: [anyNetwork], methods: ["GET"], paths: [probePathOf(app)] });
  if (app.metrics) grants.push({ callers: [anyNetwork], methods: ["GET"], paths: [app.metrics.path] });
  if (app.expose) {
    const callers = app.expose.via.map((via) => ingressCaller(config, via));
    // With stripPrefix, the controller forwards the path without its prefix: any path may arrive.
    const path = app.expose.stripPrefix ? "/*" : underPath(app.expose.path);
    grants.push({ callers, methods: app.expose.methods, paths: [path] });
  }
  return grants;
}

/** Who an exposed app's requests come from, by the way it is exposed. */
function ingressCaller(config: PlatformConfig, via: ExposurePath): Caller {
  if (via === "traefik" || via === "ingress-nginx")
    return { kind: "identity", ...ingressControllerIdentities[via] };
  // Google's load balancers reach pods straight from their own ranges, outside the mesh; regional and
  // internal Gateway classes proxy from the proxy-only subnet.
  const proxyOnly =
    via === "gke-gateway" && needsProxyOnlySubnet(config) ? [config.network.proxyOnlyCidr] : [];
  return { kind: "network", name: via, cidrs: [...googleLoadBalancerRanges, ...proxyOnly] };
}
