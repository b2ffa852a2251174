/** The cross-field rules of platform:ingress: its kind against the cluster, TLS modes and certificates, ACME. */
import type { EnvironmentInput } from "../environment";
import type { ConfigProblem } from "../errors";
import type { PlatformConfig } from "../resolved";
import { isRegionalGatewayClass } from "../schema";
import { inCluster } from "./exposure";
import { cfg } from "./key";

export function ingressRules(input: EnvironmentInput, config: PlatformConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (config.ingress.kind === "gke-gateway" && config.cluster.gatewayApi === "disabled") {
    problems.push({
      path: cfg("cluster.gatewayApi"),
      problem:
        'is "disabled", but ingress.kind "gke-gateway" needs GKE\'s Gateway controller, which runs only with the Gateway API enabled',
      allowed: '"standard" with GKE Gateway',
      fix: 'set platform:cluster.gatewayApi to "standard", or choose another ingress.kind',
    });
  }
  const usesGateway =
    config.ingress.kind === "gke-gateway" || config.apps.some((a) => a.expose?.via.includes("gke-gateway"));
  const inClusterTls = config.apps.some((a) => a.expose?.via.some((v) => inCluster.has(v)));
  const regional = isRegionalGatewayClass(config.ingress.gatewayClass);
  const t = config.ingress.tls;
  if (t.mode === "pre-shared" && t.certificates.length === 0) {
    problems.push({
      path: cfg("ingress.tls.certificates"),
      problem: 'is empty, but tls.mode is "pre-shared"',
      fix: "list the Compute SSL certificate names, or set platform:ingress.tls.mode to managed",
    });
  }
  if (t.mode === "managed" && t.certificates.length > 0) {
    problems.push({
      path: cfg("ingress.tls.certificates"),
      problem: 'is set, but tls.mode is "managed"; the platform creates the certificates',
      fix: 'remove platform:ingress.tls.certificates, or set platform:ingress.tls.mode to "pre-shared"',
    });
  }
  if (usesGateway && regional && t.mode === "managed") {
    problems.push({
      path: cfg("ingress.tls.mode"),
      problem: `is "managed", but a regional Gateway (${config.ingress.gatewayClass}) cannot use load-balancer-authorized Google-managed certificates`,
      allowed:
        '"pre-shared" with regional SSL certificates, or the global class gke-l7-global-external-managed',
      fix: 'set platform:ingress.tls.mode to "pre-shared" with platform:ingress.tls.certificates',
    });
  }
  const usesGce =
    config.ingress.kind === "gce-ingress" || config.apps.some((a) => a.expose?.via.includes("gce-ingress"));
  // Load-balancer-authorized Google-managed certificates (Certificate Manager and ManagedCertificate)
  // cover only exact host names; a wildcard needs DNS authorization, which the platform does not create.
  if (t.mode === "managed") {
    config.apps.forEach((a, i) => {
      const viaGoogle = a.expose?.via.some((v) => v === "gke-gateway" || v === "gce-ingress");
      if (viaGoogle && a.expose?.host.startsWith("*.")) {
        problems.push({
          path: cfg(`apps[${i}].expose.host`),
          problem: `"${a.expose.host}" is a wildcard, but Google-managed certificates on a Google load balancer cover exact host names only`,
          allowed: "an exact host name, such as shop.example.com",
          fix: 'name the host exactly, or set platform:ingress.tls.mode to "pre-shared" with a wildcard certificate',
        });
      }
    });
  }
  if (usesGateway && regional && usesGce && t.mode === "pre-shared") {
    problems.push({
      path: cfg("ingress.tls.certificates"),
      problem: `names certificates for both a regional Gateway (${config.ingress.gatewayClass}), which needs regional SSL certificates, and GCE Ingress, which needs global ones`,
      fix: "use the global class gke-l7-global-external-managed during the migration, or move every app off GCE Ingress first",
    });
  }
  if (
    usesGateway &&
    config.ingress.gatewayClass === "gke-l7-rilb" &&
    config.ingress.staticIp &&
    config.cluster.mode === "existing"
  ) {
    problems.push({
      path: cfg("ingress.staticIp"),
      problem:
        "is true, but an internal address is reserved in the cluster's subnet, which the platform does not know for an existing cluster",
      fix: "set platform:ingress.staticIp to false (GKE assigns an internal address)",
    });
  }
  if (config.ingress.acme && !inClusterTls) {
    problems.push({
      path: cfg("ingress.acme"),
      problem: "is set, but no app is exposed through Traefik or ingress-nginx, which are what use it",
      fix: "remove platform:ingress.acme",
    });
  }
  if (input.ingress?.gatewayClass !== undefined && !usesGateway) {
    problems.push({
      path: cfg("ingress.gatewayClass"),
      problem: `is set, but ingress.kind is "${config.ingress.kind}"; the class applies to GKE Gateway only`,
      fix: 'remove platform:ingress.gatewayClass, or set platform:ingress.kind to "gke-gateway"',
    });
  }
  return problems;
}
