import type { PlatformConfig } from "./defaults";

/**
 * Valid but risky choices. The platform builds them and says so at render and at `pulumi up`
 * (`pulumi.log.warn`), so the risk is a decision, not a surprise.
 */
export function configWarnings(config: PlatformConfig): string[] {
  const warnings: string[] = [];
  const c = config.cluster;
  if (
    c.mode !== "existing" &&
    config.tier !== "dev" &&
    !c.privateEndpoint &&
    c.authorizedNetworks.length === 0
  ) {
    warnings.push(
      `platform:cluster.authorizedNetworks is empty in ${config.tier}: the control plane endpoint accepts connections from any address (IAM still applies); list your CI and office ranges`,
    );
  }
  if (config.ingress.kind === "ingress-nginx") {
    warnings.push(
      "platform:ingress.kind is ingress-nginx, retired upstream in March 2026 (no more releases or security fixes); plan the move to gke-gateway (docs/migrate-ingress-to-gateway.md)",
    );
  }
  return warnings;
}
