import type { PlatformConfig } from "./resolved";

/**
 * Valid but risky choices. The platform builds them and says so at render and at `pulumi up`
 * (`pulumi.log.warn`), so the risk is a decision, not a surprise.
 */
export function configWarnings(config: PlatformConfig): string[] {
  const warnings: string[] = [];
  const c = config.cluster;
  // In every tier: a dev control plane open to the internet is as attackable as prod's.
  if (c.mode !== "existing" && c.ipEndpoints && !c.privateEndpoint && c.authorizedNetworks.length === 0) {
    warnings.push(
      `platform:cluster.authorizedNetworks is empty in ${config.tier}: the control plane's public IP endpoint accepts connections from any address (IAM still applies); list your CI and office ranges, or set platform:cluster.ipEndpoints to false and use the DNS endpoint`,
    );
  }
  if (config.ingress.kind === "ingress-nginx") {
    warnings.push(
      "platform:ingress.kind is ingress-nginx, retired upstream in March 2026 (no more releases or security fixes); plan the move to gke-gateway (docs/migrate-ingress-to-gateway.md)",
    );
  }
  return warnings;
}
