import { Construct } from "constructs";
import { PodMonitor, PodMonitoring } from "./customResources";

export interface WorkloadMonitorProps {
  /** The monitor's name; Managed Prometheus makes it the `job` label. */
  readonly name: string;
  readonly namespace: string;
  /** Labels that select the workload's pods. */
  readonly podLabels: Readonly<Record<string, string>>;
  /** The named container port that serves metrics. */
  readonly port: string;
  /** @default /metrics */
  readonly path?: string;
  readonly backend: "prometheus-operator" | "managed-prometheus";
  /** Labels the Prometheus selects PodMonitors by. */
  readonly selectorLabels: Readonly<Record<string, string>>;
  /** @default 30s */
  readonly interval?: string;
}

/**
 * A workload's own metrics: a PodMonitor whose `job` is the monitor's name (the Prometheus Operator would
 * make it `<namespace>/<name>`, pkg/prometheus/promcfg.go at v0.93.0), or a PodMonitoring, whose `job`
 * is its name already (prometheus-engine pod_config.go at v0.17.2): one job name on both backends.
 */
export class WorkloadMonitor extends Construct {
  constructor(scope: Construct, id: string, props: WorkloadMonitorProps) {
    super(scope, id);
    const path = props.path ?? "/metrics";
    const interval = props.interval ?? "30s";
    const selector = { matchLabels: { ...props.podLabels } };
    if (props.backend === "prometheus-operator") {
      new PodMonitor(this, "monitor", {
        metadata: { name: props.name, namespace: props.namespace, labels: { ...props.selectorLabels } },
        spec: {
          selector,
          podMetricsEndpoints: [
            {
              port: props.port,
              path,
              interval,
              relabelings: [{ action: "replace", targetLabel: "job", replacement: props.name }],
            },
          ],
        },
      });
      return;
    }
    new PodMonitoring(this, "monitor", {
      metadata: { name: props.name, namespace: props.namespace },
      spec: { selector, endpoints: [{ port: props.port, path, interval }] },
    });
  }
}
