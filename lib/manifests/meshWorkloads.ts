import type { MeshSettings } from "./namespaces";

/**
 * Pod metadata for a Job or CronJob in a meshed namespace, so it finishes. With native sidecars
 * Kubernetes stops the proxy when the app exits; without them the proxy would keep the pod running
 * forever, so the Job's pods are taken out of the mesh instead. Istio's webhook selects on the
 * `sidecar.istio.io/inject` label (its objectSelector), so the opt-out is a label there.
 */
export function jobPodMetadata(mesh: MeshSettings): {
  labels: Record<string, string>;
  annotations: Record<string, string>;
} {
  switch (mesh.kind) {
    case "linkerd":
      return mesh.nativeSidecars
        ? { labels: {}, annotations: { "config.linkerd.io/proxy-enable-native-sidecar": "true" } }
        : { labels: {}, annotations: { "linkerd.io/inject": "disabled" } };
    case "istio":
      if (mesh.dataplane === "ambient") return { labels: {}, annotations: {} }; // no sidecar to outlive the Job
      // ENABLE_NATIVE_SIDECARS defaults to "auto" (every node's kubelet >= 1.33); per pod it is forced.
      return mesh.nativeSidecars
        ? { labels: {}, annotations: { "sidecar.istio.io/nativeSidecar": "true" } }
        : { labels: { "sidecar.istio.io/inject": "false" }, annotations: {} };
    case "none":
      return { labels: {}, annotations: {} };
  }
}

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
