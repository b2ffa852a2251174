import type * as k8s from "@pulumi/kubernetes";
import type * as pulumi from "@pulumi/pulumi";
import { deployChart, newChart } from "../deploy";
import type { Plan } from "../plan";
import { deployWithServers } from "./app";

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
 * Each app namespace's own mesh policy: deny by default, and the fault injectors its apps' routes
 * send to. One chart per namespace, waiting for the mesh's control plane and the namespace; the
 * workloads never wait for them. Apps' routes and authorization are the `App` component's.
 */
export function deployNamespacePolicy(name: string, args: NamespacePolicyArgs): void {
  const { plan } = args;
  const policy = plan.mesh.policy;
  if (!policy) return;
  const deny = new Set(plan.config.mesh.denyByDefault);
  for (const ns of plan.namespaces.map((n) => n.name)) {
    const statuses = new Set(
      plan.apps
        .filter((a) => a.app.namespace === ns)
        .flatMap((a) => a.routes.flatMap((r) => (r.fault ? [r.fault.status] : []))),
    );
    if (statuses.size === 0 && !deny.has(ns)) continue;
    const id = `mesh-policy-${ns}`;
    const policies = newChart(id);
    const servers = newChart(`${id}-servers`);
    if (deny.has(ns))
      policy.denyByDefault(policies, "deny", {
        namespace: ns,
        clusterSources: plan.clusterSources,
        serverScope: servers,
      });
    for (const status of [...statuses].sort()) {
      policy.faultInjector(policies, `fault-${status}`, { namespace: ns, status });
    }
    const namespace = args.namespaces.get(ns);
    deployWithServers(`${name}-${id}`, policies, servers, (prefix, chart, after) => [
      ...deployChart(prefix, chart, {
        provider: args.provider,
        parent: args.parent,
        namespaces: namespace ? new Map([[ns, namespace]]) : undefined,
        dependsOn: [...args.dependsOn, ...after],
      }).values(),
    ]);
  }
}
