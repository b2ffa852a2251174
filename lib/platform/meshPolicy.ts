import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import { deployChart, inTurn, newChart } from "../deploy";
import { NamespaceNetworkPolicy } from "../manifests";
import { meshClosure, meshOfPlan, type Plan } from "../plan";
import { deployWithServers } from "./app";
import { namespaceNetworkPolicies } from "./networkPolicy";

export interface NamespacePolicyArgs {
  readonly plan: Plan;
  readonly provider: k8s.Provider;
  readonly parent: pulumi.Resource;
  /** The mesh's control plane (its CRDs and admission webhooks) and the Gateway API CRDs when the platform owns them. */
  readonly dependsOn: readonly pulumi.Resource[];
  /** App namespaces by name. */
  readonly namespaces: ReadonlyMap<string, pulumi.Resource>;
}

/**
 * Each app namespace's own policy: the NetworkPolicy of an isolated namespace, and in the mesh deny by
 * default (for `mesh.denyByDefault` and isolated namespaces) and the fault injectors its apps' routes
 * send to. The NetworkPolicy waits only for its namespace; the mesh's objects, one chart per namespace,
 * for the mesh's control plane too. The workloads never wait for them. Apps' routes and authorization
 * are the `App` component's.
 */
export function deployNamespacePolicy(name: string, args: NamespacePolicyArgs): void {
  const { plan } = args;
  const mesh = meshOfPlan(plan);
  const policy = mesh.policy;
  const isolation = new Map(namespaceNetworkPolicies(plan).map((n) => [n.namespace, n]));
  // Each namespace's policy on a turn of its own, as each App's objects are.
  for (const ns of plan.namespaces.map((n) => n.name)) inTurn(() => namespacePolicy(ns));
  function namespacePolicy(ns: string): void {
    const namespace = args.namespaces.get(ns);
    const namespaces = namespace ? new Map([[ns, namespace]]) : undefined;
    const network = isolation.get(ns);
    if (network) {
      const chart = newChart(`network-policy-${ns}`);
      new NamespaceNetworkPolicy(chart, "isolation", network);
      deployChart(`${name}-network-policy-${ns}`, chart, {
        provider: args.provider,
        parent: args.parent,
        namespaces,
      });
    }
    if (!policy) return;
    const closed = meshClosure(plan.config, mesh, ns) !== "open";
    const statuses = new Set(
      plan.apps
        .filter((a) => a.app.namespace === ns)
        .flatMap((a) => a.routes.flatMap((r) => (r.fault ? [r.fault.status] : []))),
    );
    if (statuses.size === 0 && !closed) return;
    const id = `mesh-policy-${ns}`;
    const policies = newChart(id);
    const servers = newChart(`${id}-servers`);
    if (closed)
      policy.denyByDefault(policies, "deny", {
        namespace: ns,
        clusterSources: plan.clusterSources,
        serverScope: servers,
      });
    for (const status of [...statuses].sort()) {
      policy.faultInjector(policies, `fault-${status}`, { namespace: ns, status });
    }
    deployWithServers(`${name}-${id}`, policies, servers, (prefix, chart, after) => [
      ...deployChart(prefix, chart, {
        provider: args.provider,
        parent: args.parent,
        namespaces,
        dependsOn: [...args.dependsOn, ...after],
      }).values(),
    ]);
  }
}
