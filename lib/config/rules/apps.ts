/** The cross-field rules of platform:apps: one name per namespace, probes, metrics, and each app's exposure. */
import { showValue, type ConfigProblem } from "../errors";
import type { PlatformConfig } from "../resolved";
import { exposureRules } from "./exposure";
import { cfg } from "./key";

export function appRules(config: PlatformConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const seen = new Set<string>();
  config.apps.forEach((app, i) => {
    const key = `${app.namespace}/${app.name}`;
    if (seen.has(key)) {
      problems.push({
        path: cfg(`apps[${i}].name`),
        problem: `${showValue(app.name)} names two apps in namespace ${showValue(app.namespace)}`,
        fix: "give each app its own name",
      });
    }
    seen.add(key);
    if (app.expose) problems.push(...exposureRules(config, app.expose, `apps[${i}].expose`));
    const readiness = app.expose?.healthCheckPath ?? "/";
    if (app.livenessPath !== undefined && app.livenessPath === readiness) {
      problems.push({
        path: cfg(`apps[${i}].livenessPath`),
        problem: `${showValue(app.livenessPath)} is also the readiness path: a slow dependency would restart every replica instead of taking them out of the load balancer`,
        allowed: "a path that checks only the process, such as /livez",
        fix: `give the app a separate liveness endpoint, or remove platform:apps[${i}].livenessPath (no liveness probe)`,
      });
    }
    if (app.metrics && config.monitoring.backend === "none") {
      problems.push({
        path: cfg(`apps[${i}].metrics`),
        problem: 'is set, but monitoring.backend is "none", so nothing would scrape it',
        fix: "choose a monitoring.backend, or remove the app's metrics",
      });
    }
  });
  return problems;
}
