import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { CrdOwners } from "../crds";
import { PlatformNamespace, type MeshSettings } from "../manifests";
import { deployChart, newChart } from "./cdk8sBridge";
import { pinnedRelease } from "./helmRelease";

export const monitoringNamespace = "monitoring";
/** The release name; its Prometheus selects PodMonitors labelled `release: kube-prometheus-stack`. */
export const prometheusReleaseName = "kube-prometheus-stack";

/** The chart's Prometheus Service: `<fullname>-prometheus`, where fullname is the release name (templates/_helpers.tpl). */
export const prometheusUrl = `http://${prometheusReleaseName}-prometheus.${monitoringNamespace}.svc.cluster.local:9090`;

/**
 * kube-prometheus-stack: Prometheus, the Prometheus Operator and, as their owner, its CRDs (kept on
 * delete). PodMonitors the platform emits carry the label its Prometheus selects.
 */
export class Prometheus extends pulumi.ComponentResource {
  readonly release: k8s.helm.v3.Release;
  readonly url = prometheusUrl;

  constructor(
    name: string,
    args: { owners: CrdOwners; mesh: MeshSettings; autopilot: boolean; provider: k8s.Provider },
    opts?: pulumi.ComponentResourceOptions,
  ) {
    super("gke-mesh-platform:addons:Prometheus", name, {}, opts);
    const chart = newChart("monitoring");
    // node-exporter runs with hostNetwork, hostPID and hostPath mounts, which only `privileged` admits.
    new PlatformNamespace(chart, "namespace", {
      name: monitoringNamespace,
      mesh: args.mesh,
      podSecurity: "privileged",
    });
    // Retained like the release that owns the Prometheus Operator CRDs.
    const ns = [
      ...deployChart(name, chart, { provider: args.provider, parent: this, retainOnDelete: true }).values(),
    ];
    this.release = pinnedRelease({
      chart: "kubePrometheusStack",
      name: prometheusReleaseName,
      namespace: monitoringNamespace,
      // Autopilot admits no hostNetwork, hostPID or hostPath pods, which node-exporter needs; GKE reports node metrics itself.
      values: args.autopilot ? { nodeExporter: { enabled: false } } : {},
      owners: args.owners,
      provider: args.provider,
      parent: this,
      dependsOn: ns,
    });
    this.registerOutputs({ url: this.url });
  }
}
