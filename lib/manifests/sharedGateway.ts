import { Construct } from "constructs";
import { gkeAnnotations } from "../versions";
import { gateway, gcpGatewayPolicy, httpRoute } from "./ingressResources";

/** Namespaces with this label may attach routes to the shared Gateway's HTTPS listener. */
export const gatewayAccessLabel = "gke-mesh-platform/gateway-access";

export interface SharedGatewayProps {
  readonly name: string;
  readonly namespace: string;
  readonly gatewayClass: string;
  /** Reserved address name (NamedAddress); absent for an ephemeral address. */
  readonly addressName?: string;
  /** A Certificate Manager map of Google-managed certificates, or Compute SSL certificate names (pre-shared). */
  readonly tls:
    | { readonly mode: "managed"; readonly certificateMap: string }
    | { readonly mode: "pre-shared"; readonly certificates: readonly string[] };
  /** Compute SSL policy name. */
  readonly sslPolicy: string;
}

/**
 * One Gateway per environment: an HTTPS listener that only labelled namespaces may attach to, an
 * HTTP listener that only the Gateway's own namespace may use (for the 301 redirect below), a static
 * address, and the SSL policy through a GCPGatewayPolicy.
 */
export class SharedGateway extends Construct {
  constructor(scope: Construct, id: string, props: SharedGatewayProps) {
    super(scope, id);
    gateway(this, "gateway", {
      metadata: {
        name: props.name,
        namespace: props.namespace,
        ...(props.tls.mode === "managed"
          ? { annotations: { [gkeAnnotations.gatewayCertMap]: props.tls.certificateMap } }
          : {}),
      },
      spec: {
        gatewayClassName: props.gatewayClass,
        ...(props.addressName ? { addresses: [{ type: "NamedAddress", value: props.addressName }] } : {}),
        listeners: [
          {
            name: "https",
            protocol: "HTTPS",
            port: 443,
            // With a certificate map the listener names no certificate (the CRD requires tls only for TLS).
            ...(props.tls.mode === "pre-shared"
              ? {
                  tls: {
                    mode: "Terminate" as const,
                    options: { [gkeAnnotations.gatewayPreSharedCerts]: props.tls.certificates.join(",") },
                  },
                }
              : {}),
            // Only namespaces the platform labels (those of exposed apps) may publish routes on the shared address.
            allowedRoutes: {
              namespaces: { from: "Selector", selector: { matchLabels: { [gatewayAccessLabel]: "true" } } },
            },
          },
          { name: "http", protocol: "HTTP", port: 80, allowedRoutes: { namespaces: { from: "Same" } } },
        ],
      },
    });
    httpRoute(this, "https-redirect", {
      metadata: { name: `${props.name}-https-redirect`, namespace: props.namespace },
      spec: {
        parentRefs: [{ name: props.name, sectionName: "http" }],
        // 301 is the redirect code GKE implements (303, 307 and 308 are unsupported in its conformance reports).
        rules: [
          { filters: [{ type: "RequestRedirect", requestRedirect: { scheme: "https", statusCode: 301 } }] },
        ],
      },
    });
    gcpGatewayPolicy(this, "policy", {
      metadata: { name: props.name, namespace: props.namespace },
      spec: {
        targetRef: { group: "gateway.networking.k8s.io", kind: "Gateway", name: props.name },
        default: { sslPolicy: props.sslPolicy },
      },
    });
  }
}
