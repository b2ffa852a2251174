/**
 * The namespaces the platform's own components run in, whatever the environment: one name each, read by
 * the components that make them and by the rule that keeps teams out of them (lib/plan/teams.ts).
 */

/** cert-manager and trust-manager. */
export const certManagerNamespace = "cert-manager";

/** The in-cluster Prometheus stack (kube-prometheus-stack, Grafana). */
export const monitoringNamespace = "monitoring";

/** The shared Gateway of GKE Gateway ingress. */
export const gatewayNamespace = "gateway";
