/** A Kubernetes object as synthesized, enough to find pod specs. */
export interface ObjectLike {
  readonly kind?: unknown;
  readonly metadata?: { readonly name?: unknown; readonly namespace?: unknown };
  readonly spec?: unknown;
}

interface PodSpecLike {
  readonly hostNetwork?: unknown;
}

function podSpecOf(o: ObjectLike): PodSpecLike | undefined {
  const spec = o.spec as Record<string, unknown> | undefined;
  switch (o.kind) {
    case "Pod":
      return spec;
    case "Deployment":
    case "DaemonSet":
    case "StatefulSet":
    case "ReplicaSet":
    case "Job":
      return (spec?.template as { spec?: PodSpecLike } | undefined)?.spec;
    case "CronJob":
      return (spec?.jobTemplate as { spec?: { template?: { spec?: PodSpecLike } } } | undefined)?.spec
        ?.template?.spec;
    default:
      return undefined;
  }
}

/**
 * Warnings for workloads the mesh cannot cover: a `hostNetwork` pod shares the node's network
 * namespace, so no proxy can be injected into it and its traffic skips mTLS and policy.
 */
export function meshWarnings(
  objects: readonly ObjectLike[],
  meshedNamespaces: ReadonlySet<string>,
): string[] {
  const warnings: string[] = [];
  for (const o of objects) {
    const ns = typeof o.metadata?.namespace === "string" ? o.metadata.namespace : undefined;
    if (!ns || !meshedNamespaces.has(ns)) continue;
    if (podSpecOf(o)?.hostNetwork === true) {
      warnings.push(
        `${String(o.kind)} ${ns}/${String(o.metadata?.name)} uses hostNetwork in meshed namespace ${ns}: the mesh cannot inject it, so its traffic bypasses mTLS and policy; move it to an unmeshed namespace or drop hostNetwork`,
      );
    }
  }
  return warnings;
}
