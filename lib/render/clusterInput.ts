import type { ClusterInput, KubeObject } from "../cluster";
import type { Tier } from "../config";
import { helmCharts, helmReleases, isCrdChart, kubernetesObjects } from "./files";
import type { RenderResult } from "./run";

/** A render, as the cluster tier reads it: the platform's objects, its releases, what GKE serves. */
export function clusterInputOf(label: string, tier: Tier, result: RenderResult): ClusterInput {
  const cluster = result.resources.find((r) => r.type === "gcp:container/cluster:Cluster")?.inputs as
    | {
        gatewayApiConfig?: { channel?: string };
        monitoringConfig?: { managedPrometheus?: { enabled?: boolean } };
      }
    | undefined;
  // Helm releases, and the charts the provider applies object by object (the CRD charts), in apply order.
  const templated = new Set([...helmReleases(result), ...helmCharts(result)]);
  return {
    label,
    tier,
    objects: kubernetesObjects(result).map((r) => r.inputs as unknown as KubeObject),
    releases: result.order
      .filter((r) => templated.has(r))
      .map((r) => ({
        name: String(r.inputs.name),
        namespace: String(r.inputs.namespace),
        chart: String(r.inputs.chart),
        version: String(r.inputs.version),
        repo: String((r.inputs.repositoryOpts as { repo?: string } | undefined)?.repo ?? ""),
        values: (r.inputs.values ?? {}) as Record<string, unknown>,
        skipCrds: r.inputs.skipCrds === true,
        ...(isCrdChart(r) ? { crdsOnly: true } : {}),
      })),
    gke: {
      // A cluster made elsewhere says its channel through the stack's output.
      gatewayApi:
        (cluster?.gatewayApiConfig?.channel ?? result.outputs.gatewayApiChannel) === "CHANNEL_STANDARD",
      managedPrometheus: cluster?.monitoringConfig?.managedPrometheus?.enabled === true,
    },
  };
}
