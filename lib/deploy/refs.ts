import type * as pulumi from "@pulumi/pulumi";

/**
 * cert-manager as every component that depends on it sees it: the `CertManager` component is one, and
 * so is a cert-manager installed some other way (give its release, or any resource that is ready once
 * its webhook answers).
 */
export interface CertManagerRef {
  /** cert-manager's namespace, also trust-manager's trust namespace. */
  readonly namespace: string;
  /** Ready once cert-manager's webhook answers: everything that creates Certificates or Issuers waits for it. */
  readonly certManager: pulumi.Resource;
  /** Ready once trust-manager's webhook answers: Bundles wait for it. Absent when trust-manager is not installed. */
  readonly trustManager?: pulumi.Resource;
}

/** Where a component's monitors go. */
export interface MonitoringRef {
  /** prometheus-operator PodMonitors and ServiceMonitors, or Managed Prometheus PodMonitorings. */
  readonly backend: "prometheus-operator" | "managed-prometheus";
  /** Labels the Prometheus selects monitors by (prometheus-operator only). */
  readonly selectorLabels: Readonly<Record<string, string>>;
  /** The owner of the monitors' CRDs when the platform installs them: the monitors wait for it. */
  readonly crdOwner?: pulumi.Resource;
}
