/** The platform:monitoring section: where metrics go. */
import { z } from "zod";
import { monitoringBackends } from "../schema";
import { resourceName } from "./fields";

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
  /**
   * The namespace an existing Prometheus (existing-prometheus) runs in: isolated namespaces, a team's
   * included, let only its pods in on the ports they scrape. @default the namespace of `prometheusUrl`
   * where its host is a Service's cluster name (`<service>.<namespace>.svc`); else none, and every pod
   * may reach the scraped ports
   */
  scraperNamespace: resourceName.optional(),
  /** The mesh's Grafana dashboards in the platform's Grafana (backend prometheus). @default false */
  meshDashboards: z.boolean().optional(),
});
