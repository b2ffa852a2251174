import type { PlatformConfig } from "../config";
import type { CrdOwners } from "../crds";
import type { MeshIdentity, MeshInstall } from "../meshes";
import { compareVersions, gatewayApi, gkeGatewayApiBundles, releaseChannelMinors } from "../versions";

/**
 * The Gateway API bundle the cluster serves and where that comes from: GKE's, by the cluster's minor
 * (its stated version, else its channel's), or the platform's pinned bundle. Undefined where nothing
 * says (a cluster made elsewhere that names no version, or a pre-installed bundle).
 */
export function servedGatewayApi(
  config: PlatformConfig,
  owners: CrdOwners,
): { bundle: string; because: string; fix: string } | undefined {
  const owner = owners.gatewayApi;
  if (owner?.kind === "platform") {
    return {
      bundle: gatewayApi.version,
      because: `the platform installs Gateway API ${gatewayApi.version}`,
      fix: "pin another bundle",
    };
  }
  if (owner?.kind !== "gke") return undefined;
  const c = config.cluster;
  const existing = c.mode === "existing";
  const minor = c.kubernetesVersion ?? (existing ? undefined : releaseChannelMinors[c.releaseChannel]);
  if (minor === undefined) return undefined;
  const served = gkeGatewayApiBundles[minor];
  const newer = Object.entries(gkeGatewayApiBundles).find(
    ([, b]) => compareVersions(b.bundle, served.bundle) > 0,
  );
  return {
    bundle: served.bundle,
    because: c.kubernetesVersion
      ? `GKE serves Gateway API ${served.bundle} at Kubernetes ${minor} (platform:cluster.kubernetesVersion)`
      : `GKE serves Gateway API ${served.bundle} at Kubernetes ${minor}, the ${c.releaseChannel} channel's version`,
    fix: newer
      ? `set platform:cluster.kubernetesVersion to "${newer[0]}" (GKE ${newer[1].from} or later serves ${newer[1].bundle})${existing ? " once the cluster runs it" : ""}, or a release channel that runs it`
      : "wait for GKE to serve a newer bundle",
  };
}

/** Where the Gateway API the cluster serves is outside what the mesh works with: a warning naming the fix. */
export function gatewayApiWarnings(
  config: PlatformConfig,
  mesh: MeshIdentity & MeshInstall,
  owners: CrdOwners,
): string[] {
  const range = mesh.gatewayApi;
  const served = servedGatewayApi(config, owners);
  if (!range || !served) return [];
  if (compareVersions(served.bundle, range.minimum) < 0) {
    return [
      `${served.because}, older than the ${range.minimum} ${mesh.title} needs (${range.source}): ${range.without}. Fix: ${served.fix}.`,
    ];
  }
  if (range.maximum && compareVersions(served.bundle, range.maximum) > 0) {
    return [
      `${served.because}, newer than the ${range.maximum} ${mesh.title} is tested with (${range.source}): ${range.without}. Fix: ${served.fix}.`,
    ];
  }
  return [];
}
