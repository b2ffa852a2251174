/** The cross-field rules of an app's expose: ways in that exist, what each can route, no two apps on one route. */
import type { ConfigProblem } from "../errors";
import type { AppExposure, PlatformConfig } from "../resolved";
import { gkeGatewayUnsupported } from "../../versions";
import { cfg } from "./key";

/**
 * Two apps exposed on one host and path through one way in: two routes for one listener, of which the
 * controller serves one (Gateway API: the oldest route wins) and the other app gets no traffic.
 * Methods both apps restrict to, without one in common, keep them apart.
 */
export function exposureCollisions(config: PlatformConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const claimed = new Map<string, { index: number; name: string; methods?: AppExposure["methods"] }[]>();
  config.apps.forEach((app, i) => {
    const e = app.expose;
    if (!e) return;
    // A trailing slash matches the same requests as none (Gateway API PathPrefix matches whole segments).
    const path = e.path.length > 1 ? e.path.replace(/\/+$/, "") : e.path;
    for (const via of e.via) {
      const key = `${via} ${e.host} ${path}`;
      const earlier = (claimed.get(key) ?? []).find(
        (other) => !other.methods || !e.methods || other.methods.some((m) => e.methods?.includes(m)),
      );
      if (earlier) {
        problems.push({
          path: cfg(`apps[${i}].expose`),
          problem: `exposes host "${e.host}" and path "${e.path}" through ${via}, as app "${earlier.name}" (platform:apps[${earlier.index}]) already does; one of the two routes would get no traffic`,
          allowed: `one app per host and path on each way in, such as path "/api" for one and "/" for the other`,
          fix: `give platform:apps[${i}].expose another path or host, or expose the two apps as one`,
        });
        break;
      }
      claimed.set(key, [...(claimed.get(key) ?? []), { index: i, name: app.name, methods: e.methods }]);
    }
  });
  return problems;
}

/** The ways in that run in the cluster, as ingress.kind's controller. */
export const inCluster = new Set(["traefik", "ingress-nginx"]);

export function exposureRules(config: PlatformConfig, e: AppExposure, at: string): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (e.via.length === 0) {
    problems.push({
      path: cfg(at),
      problem: 'is set, but ingress.kind is "none" and expose.via is empty, so nothing would route to it',
      fix: `choose an ingress.kind, set platform:${at}.via, or remove the app's expose`,
    });
  }
  for (const via of e.via) {
    if (inCluster.has(via) && via !== config.ingress.kind) {
      problems.push({
        path: cfg(`${at}.via`),
        problem: `includes "${via}", but the environment's in-cluster controller is ingress.kind "${config.ingress.kind}"`,
        allowed: `"${config.ingress.kind}" if it runs in the cluster, "gke-gateway", "gce-ingress"`,
        fix: `set platform:ingress.kind to "${via}", or expose through another way`,
      });
    }
    if (via === "gke-gateway" && config.cluster.gatewayApi !== "standard") {
      problems.push({
        path: cfg(`${at}.via`),
        problem:
          'includes "gke-gateway", but cluster.gatewayApi is disabled, so GKE runs no Gateway controller',
        fix: 'set platform:cluster.gatewayApi to "standard"',
      });
    }
    const google = via === "gke-gateway" ? "GKE Gateway" : via === "gce-ingress" ? "GCE Ingress" : undefined;
    if (google && e.stripPrefix) {
      problems.push({
        path: cfg(`${at}.stripPrefix`),
        problem: `is true, but ${google} cannot rewrite paths (${gkeGatewayUnsupported.pathRewrite.feature} is unsupported)`,
        fix: gkeGatewayUnsupported.pathRewrite.alternative,
      });
    }
    if (google && e.methods) {
      problems.push({
        path: cfg(`${at}.methods`),
        problem: `is set, but ${google} cannot match methods (${gkeGatewayUnsupported.methodMatching.feature} is unsupported)`,
        fix: `remove it and ${gkeGatewayUnsupported.methodMatching.alternative}`,
      });
    }
    if (inCluster.has(via) && !config.ingress.acme) {
      problems.push({
        path: cfg("ingress.acme"),
        problem: `is missing: ${via} serves ${e.host} over TLS with a certificate cert-manager gets from Let's Encrypt`,
        fix: "set platform:ingress.acme.email (the ACME account's contact)",
      });
    }
  }
  return problems;
}
