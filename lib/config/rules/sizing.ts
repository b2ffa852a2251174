/** The cross-field rules of platform:sizing: replicas against highAvailability, requests against limits. */
import type { EnvironmentInput } from "../environment";
import { showValue, type ConfigProblem } from "../errors";
import type { PlatformConfig } from "../resolved";
import { quantityValue, sizingComponents, type SizingComponent } from "../sizing";
import { cfg } from "./key";

/**
 * Sizing that cannot hold: a control plane set to one replica while highAvailability promises it
 * survives a drain, and a request above its limit (the API server rejects the pod).
 */
export function sizingRules(input: EnvironmentInput, config: PlatformConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const key of Object.keys(sizingComponents) as SizingComponent[]) {
    const given = input.sizing?.[key];
    if (!given) continue;
    const path = cfg(`sizing.${key}`);
    const meshPart = key.startsWith("linkerd") || key.startsWith("istio");
    const ha = meshPart ? config.mesh.highAvailability : config.sizing.highAvailability;
    const replicas = "replicas" in given ? given.replicas : undefined;
    if (replicas !== undefined && replicas < 2 && ha && sizingComponents[key].controlPlane) {
      const haKey = meshPart ? "mesh.highAvailability" : "sizing.highAvailability";
      problems.push({
        path: `${path}.replicas`,
        problem: `is ${replicas}, but ${haKey} is on: ${sizingComponents[key].title} would lose its last replica to a node drain`,
        allowed: "2 or more while highAvailability is on",
        fix: `raise ${path}.replicas to 2 or more, or set platform:${haKey} to false`,
      });
    }
    const resolved = config.sizing[key];
    for (const [request, limit] of [
      ["cpu", "cpuLimit"],
      ["memory", "memoryLimit"],
    ] as const) {
      const r = resolved[request];
      const l = resolved[limit];
      if (l === undefined || quantityValue(r) <= quantityValue(l)) continue;
      const which = given[request] !== undefined ? request : limit;
      problems.push({
        path: `${path}.${which}`,
        problem: `${request} request ${showValue(r)} is above its limit ${showValue(l)}; the API server rejects such a pod`,
        allowed: `a ${request} request at most the limit`,
        fix: `set ${path}.${request} at most ${path}.${limit}`,
      });
    }
  }
  return problems;
}
