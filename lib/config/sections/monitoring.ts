/** The platform:monitoring section: where metrics go. */
import { z } from "zod";
import { monitoringBackends } from "../schema";

export const monitoringSchema = z.strictObject({
  /** Where metrics go. @default prometheus */
  backend: z.enum(monitoringBackends).optional(),
  /**
   * Labels on every PodMonitor, matching the Prometheus's podMonitorSelector.
   * @default { release: kube-prometheus-stack }, what the platform's kube-prometheus-stack selects
   */
  selectorLabels: z.record(z.string(), z.string()).optional(),
  /** Query URL of an existing Prometheus (existing-prometheus), for the mesh dashboard. */
  prometheusUrl: z.url("a URL such as http://prometheus.monitoring.svc:9090").optional(),
  /** The mesh's Grafana dashboards in the platform's Grafana (backend prometheus). @default false */
  meshDashboards: z.boolean().optional(),
});
