/**
 * The Kubernetes minor versions the platform supports on GKE: the lowest and highest minor GKE offers
 * new clusters in its release channels as of 2026-11 (docs.cloud.google.com/kubernetes-engine/docs/release-schedule;
 * 1.34 stays in the Extended channel), within every pinned chart's `kubeVersion` (Linkerd's charts
 * need >=1.31.0-0). The cluster tier renders every release at both.
 */
export const supportedKubernetes = { lowest: "1.34.0", highest: "1.36.0" } as const;

/**
 * API versions every GKE cluster serves beyond Kubernetes' own, which charts may gate templates on:
 * BackendConfig (cloud.google.com), the GKE networking policies and managed certificates
 * (networking.gke.io), as `kubectl api-versions` lists them on a GKE cluster.
 */
export const gkeApis = ["cloud.google.com/v1", "networking.gke.io/v1", "networking.gke.io/v1beta1"] as const;

/** What GKE serves when its Gateway API is on (gatewayApiConfig.channel CHANNEL_STANDARD). */
export const gkeGatewayApis = ["gateway.networking.k8s.io/v1", "gateway.networking.k8s.io/v1beta1"] as const;

/** What GKE serves with Managed Service for Prometheus (monitoringConfig.managedPrometheus). */
export const gkeManagedPrometheusApis = ["monitoring.googleapis.com/v1"] as const;
