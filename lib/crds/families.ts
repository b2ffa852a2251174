/** CRD families the platform knows, each by the API groups its CRDs serve. */
export const crdFamilies = {
  gatewayApi: { title: "Gateway API", groups: ["gateway.networking.k8s.io"] },
  certManager: { title: "cert-manager", groups: ["cert-manager.io", "acme.cert-manager.io"] },
  trustManager: { title: "trust-manager", groups: ["trust.cert-manager.io"] },
  linkerd: { title: "Linkerd", groups: ["linkerd.io", "policy.linkerd.io", "workload.linkerd.io"] },
  istio: {
    title: "Istio",
    groups: ["networking.istio.io", "security.istio.io", "telemetry.istio.io", "extensions.istio.io"],
  },
  // Traefik Hub's CRDs come in the same chart's crds/ (traefik v41.3.0 crds/hub.traefik.io_*.yaml).
  traefik: { title: "Traefik", groups: ["traefik.io", "hub.traefik.io"] },
  prometheusOperator: { title: "Prometheus Operator", groups: ["monitoring.coreos.com"] },
  gke: {
    title: "GKE's own",
    groups: ["networking.gke.io", "cloud.google.com", "monitoring.googleapis.com"],
  },
} as const;

export type CrdFamily = keyof typeof crdFamilies;
