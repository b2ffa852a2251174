/** The platform:ingress section: how traffic enters the cluster, its TLS and its load balancers' logs. */
import { z } from "zod";
import { gatewayClasses, ingressKinds } from "../schema";

export const ingressSchema = z.strictObject({
  /** How traffic enters the cluster. @default gke-gateway */
  kind: z.enum(ingressKinds).optional(),
  /** GatewayClass of the shared Gateway. @default gke-l7-global-external-managed */
  gatewayClass: z.enum(gatewayClasses).optional(),
  /**
   * TLS on Google's load balancers: `managed` has the platform create a Google-managed certificate
   * per exposed host (Certificate Manager for GKE Gateway, ManagedCertificate for GCE Ingress);
   * `pre-shared` names existing Compute SSL certificates. @default managed
   */
  tls: z
    .strictObject({
      mode: z.enum(["managed", "pre-shared"]),
      /** Compute SSL certificate names, with mode pre-shared. */
      certificates: z.array(z.string().min(1)).optional(),
    })
    .optional(),
  /** Reserve a static IP (NamedAddress) for the Gateway or GCE Ingress. @default true */
  staticIp: z.boolean().optional(),
  /** Lowest TLS version the load balancer accepts. @default TLS_1_2 */
  minTlsVersion: z.enum(["TLS_1_2", "TLS_1_3"]).optional(),
  /** Seconds a backend that left the load balancer keeps finishing in-flight requests. @default 30 */
  drainingTimeoutSeconds: z.int().min(0).max(3600).optional(),
  /** Request logs of Google's load balancers (GKE Gateway, GCE Ingress) in Cloud Logging. */
  requestLogging: z
    .strictObject({
      /** @default true in prod */
      enabled: z.boolean().optional(),
      /** Share of requests logged, 0 to 1. @default 1 */
      sampleRate: z.number().min(0).max(1).optional(),
    })
    .optional(),
  /** Health-check logs of GKE Gateway backends (only changes of health are logged). @default true */
  healthCheckLogging: z.boolean().optional(),
  /** Let's Encrypt certificates for Traefik and ingress-nginx, through cert-manager. */
  acme: z
    .strictObject({
      email: z.email("an email address such as ops@example.com"),
      /** http01 through the ingress, or dns01 in Cloud DNS with Workload Identity. @default http01 */
      solver: z.enum(["http01", "dns01"]).optional(),
      /** Let's Encrypt's staging directory, for trying things out. @default false */
      staging: z.boolean().optional(),
    })
    .optional(),
});
