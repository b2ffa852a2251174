/** The cross-field rules of Google load-balancer settings: request and health-check logging, Cloud Armor. */
import type { EnvironmentInput } from "../environment";
import type { ConfigProblem } from "../errors";
import type { ExposurePath, PlatformConfig } from "../resolved";
import { cfg } from "./key";

/** Logging and Cloud Armor are settings of Google's load balancers: set where none is, they would do nothing. */
export function loadBalancerRules(input: EnvironmentInput, config: PlatformConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const uses = (via: ExposurePath) =>
    config.ingress.kind === via || config.apps.some((a) => a.expose?.via.includes(via));
  const logging = input.ingress?.requestLogging;
  if (logging?.sampleRate !== undefined && !config.ingress.requestLogging.enabled) {
    problems.push({
      path: cfg("ingress.requestLogging.sampleRate"),
      problem: "is set, but request logging is off, so nothing is sampled",
      fix: "set platform:ingress.requestLogging.enabled to true, or remove the sampleRate",
    });
  }
  if (logging !== undefined && !uses("gke-gateway") && !uses("gce-ingress")) {
    problems.push({
      path: cfg("ingress.requestLogging"),
      problem: `is set, but nothing is exposed through a Google load balancer (GKE Gateway or GCE Ingress); ingress.kind is "${config.ingress.kind}"`,
      fix: "remove platform:ingress.requestLogging (in-cluster controllers log requests themselves)",
    });
  }
  if (input.ingress?.healthCheckLogging !== undefined && !uses("gke-gateway")) {
    problems.push({
      path: cfg("ingress.healthCheckLogging"),
      problem: "is set, but nothing is exposed through GKE Gateway, whose health checks it logs",
      fix: "remove platform:ingress.healthCheckLogging",
    });
  }
  config.apps.forEach((a, i) => {
    const via = a.expose?.via ?? [];
    if (
      a.expose?.securityPolicy !== undefined &&
      !via.includes("gke-gateway") &&
      !via.includes("gce-ingress")
    ) {
      problems.push({
        path: cfg(`apps[${i}].expose.securityPolicy`),
        problem: `is set, but ${a.name} is exposed through ${via.join(", ") || "nothing"}; Cloud Armor sits in front of Google's load balancers only`,
        allowed: 'expose.via including "gke-gateway" or "gce-ingress"',
        fix: `expose the app through gke-gateway, or remove platform:apps[${i}].expose.securityPolicy`,
      });
    }
  });
  return problems;
}
