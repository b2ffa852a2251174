import type { ConfigProblem, PlatformConfig } from "../config";

/**
 * Autopilot and a proxy that redirects traffic: Autopilot admits no CNI plugin that writes the node's
 * CNI config, so the proxy's init container needs NET_ADMIN, which Autopilot grants only when asked.
 */
export function autopilotProxyProblems(
  config: PlatformConfig,
  title: string,
  cniChart: string,
): ConfigProblem[] {
  if (config.cluster.mode !== "autopilot") return [];
  if (config.mesh.cni) {
    return [
      {
        path: "platform:mesh.cni",
        problem: `is true, but Autopilot does not admit ${cniChart}: it writes to the node's CNI config`,
        allowed: "false on Autopilot (the mesh uses an init container with NET_ADMIN)",
        fix: 'set platform:mesh.cni to false, or platform:cluster.mode to "standard"',
      },
    ];
  }
  if (!config.cluster.autopilot.allowNetAdmin) {
    return [
      {
        path: "platform:cluster.autopilot.allowNetAdmin",
        problem: `is false, but the ${title} proxy's init container needs NET_ADMIN to redirect traffic`,
        allowed: `true with mesh.kind "${config.mesh.kind}" on Autopilot`,
        fix: "remove platform:cluster.autopilot.allowNetAdmin (it defaults to true here), or set mesh.kind to none",
      },
    ];
  }
  return [];
}
