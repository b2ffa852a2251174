import { podTemplateOf, selects, type Container, type KubeObject } from "../../cluster";
import { loadBalancerDetectionSeconds, shutdownTiming } from "../../manifests/appWorkload";
import { gkeAnnotations } from "../../versions";
import type { Check, CheckResult } from "../context";
import { gkeDefaultDrainingSeconds } from "../../versions/doctorFacts";
import { annotationsOf, at, isObj, list, num, record, ref, str, strings } from "../objects";
import { resources } from "../resources";
import { googleExposure, type GoogleExposure } from "./exposure";

/**
 * Pods behind a Google load balancer must leave it before they stop: a readiness probe (the NEG's
 * readiness gate follows it), a preStop delay as long as the load balancer's draining plus the time it
 * takes to see the pod unready, and a termination grace that outlasts the delay
 * (lib/manifests/appWorkload.ts `shutdownTiming`, the chain every App gets). Without them a rollout or a
 * node drain sends requests to pods that are starting or already gone.
 */

/** Seconds of connection draining the load balancer gives this Service's backends. */
function drainingSeconds(
  svc: KubeObject,
  e: GoogleExposure,
  backendConfigs: readonly KubeObject[],
  policies: readonly KubeObject[],
): { seconds: number; from: string } {
  const ns = svc.metadata.namespace ?? "default";
  const candidates: { seconds: number; from: string }[] = [];
  if (e.gatewayPorts.size > 0) {
    const policy = policies.find(
      (p) =>
        p.metadata.namespace === ns &&
        str(at(p, "spec", "targetRef", "kind")) === "Service" &&
        str(at(p, "spec", "targetRef", "name")) === svc.metadata.name,
    );
    const s = num(at(policy, "spec", "default", "connectionDraining", "drainingTimeoutSec"));
    candidates.push(
      policy && s !== undefined
        ? { seconds: s, from: `${ref(policy)} connectionDraining` }
        : {
            seconds: gkeDefaultDrainingSeconds,
            from: "GKE Gateway's default (no GCPBackendPolicy draining)",
          },
    );
  }
  if (e.ingresses.length > 0) {
    let name: string | undefined;
    try {
      const v: unknown = JSON.parse(annotationsOf(svc)[gkeAnnotations.backendConfig] ?? "{}");
      name = isObj(v) ? (str(v.default) ?? Object.values(record(v.ports))[0]) : undefined;
    } catch {
      name = undefined;
    }
    const config = backendConfigs.find((b) => b.metadata.namespace === ns && b.metadata.name === name);
    const s = num(at(config, "spec", "connectionDraining", "drainingTimeoutSec"));
    candidates.push(
      config && s !== undefined
        ? { seconds: s, from: `${ref(config)} connectionDraining` }
        : { seconds: gkeDefaultDrainingSeconds, from: "GCE Ingress's default (no BackendConfig draining)" },
    );
  }
  return candidates.reduce((a, b) => (b.seconds > a.seconds ? b : a));
}

/** The seconds a preStop hook waits: its sleep action, or a `sleep N` it runs. */
function preStopSeconds(c: Container): number | undefined {
  const lifecycle = at(c, "lifecycle");
  const sleep = num(at(lifecycle, "preStop", "sleep", "seconds"));
  if (sleep !== undefined) return sleep;
  const command = strings(at(lifecycle, "preStop", "exec", "command")).join(" ");
  const m = /\bsleep\s+(\d+)/.exec(command);
  return m ? Number(m[1]) : at(lifecycle, "preStop") !== undefined ? undefined : 0;
}

/** The container serving a Service port's target: by number or name; else the pod's first. */
function servingContainer(containers: readonly Container[], svc: KubeObject): Container | undefined {
  const targets = list(at(svc, "spec", "ports")).map((p) => p.targetPort ?? p.port);
  return (
    containers.find((c) =>
      (c.ports ?? []).some((p) => targets.some((t) => t === p.containerPort || t === p.name)),
    ) ?? containers[0]
  );
}

export const draining: Check = async (ctx): Promise<CheckResult> => {
  const services = await ctx.need(resources.services);
  const { exposure } = await googleExposure(ctx);
  if (exposure.size === 0) return { findings: [] };
  const workloads = [
    ...(await ctx.need(resources.deployments)),
    ...(await ctx.need(resources.statefulSets)),
    ...(await ctx.need(resources.daemonSets)),
  ];
  const bare = (await ctx.optional(resources.pods, "pods without a workload")).filter(
    (p) => list(at(p, "metadata", "ownerReferences")).length === 0,
  );
  const backendConfigs = await ctx.optional(resources.backendConfigs, "BackendConfig draining");
  const policies = await ctx.optional(resources.gcpBackendPolicies, "GCPBackendPolicy draining");
  const findings: CheckResult["findings"][number][] = [];
  for (const svc of services) {
    const ns = svc.metadata.namespace ?? "default";
    const e = exposure.get(`${ns}/${svc.metadata.name}`);
    const selector = record(at(svc, "spec", "selector"));
    if (!e || Object.keys(selector).length === 0) continue;
    const drain = drainingSeconds(svc, e, backendConfigs, policies);
    const timing = shutdownTiming(drain.seconds);
    const reason =
      `${drain.seconds}s of draining (${drain.from}) plus ${loadBalancerDetectionSeconds}s for the load balancer to see the pod unready ` +
      "(its health check every 5s, unhealthy after 2)";
    for (const owner of [...workloads, ...bare].filter((w) => w.metadata.namespace === ns)) {
      const template = podTemplateOf(owner);
      if (!template || !selects({ matchLabels: selector }, template.labels)) continue;
      const c = servingContainer(template.containers, svc);
      if (!c) continue;
      const objects = [ref(owner), ref(svc)];
      const where = `${ref(owner)} (container ${c.name}) behind ${ref(svc)}, which Google's load balancer reaches`;
      if (at(c, "readinessProbe") === undefined) {
        findings.push({
          severity: "error",
          code: "no-readiness-probe",
          objects,
          message: `${where}, has no readiness probe: its pods count as ready the moment they start, so the NEG's readiness gate lets the load balancer send to pods that cannot serve yet, at every rollout.`,
          fix: `give container ${c.name} a readinessProbe on the path the load balancer health-checks (an App's readinessPath)`,
          evidence: "lib/manifests/appWorkload.ts AppWorkload: readiness and startup probes",
        });
      }
      const waits = preStopSeconds(c);
      if (waits === undefined || waits < timing.preStopSeconds) {
        findings.push({
          severity: "warning",
          code: "prestop-too-short",
          objects,
          message:
            `${where}, ${waits === undefined ? "has a preStop hook whose length cannot be read" : waits === 0 ? "has no preStop delay" : `waits ${waits}s in preStop`}: ` +
            `the load balancer keeps sending to a terminating pod for ${timing.preStopSeconds}s, ${reason}, so requests in that time fail.`,
          fix: `lifecycle.preStop.sleep.seconds: ${timing.preStopSeconds} on container ${c.name} (Kubernetes 1.30+; the platform's App sets it)`,
          evidence: "lib/manifests/appWorkload.ts shutdownTiming",
        });
      }
      const grace =
        num(
          at(
            owner.kind === "Pod" ? owner : at(owner, "spec", "template"),
            "spec",
            "terminationGracePeriodSeconds",
          ),
        ) ?? 30;
      const needed = Math.max(timing.gracePeriodSeconds, (waits ?? 0) + 10);
      if (grace < needed) {
        findings.push({
          severity: "warning",
          code: "grace-too-short",
          objects,
          message: `${where}, has terminationGracePeriodSeconds ${grace}: Kubernetes kills the pod before its preStop delay (${Math.max(waits ?? 0, timing.preStopSeconds)}s, ${reason}) and ten seconds for the app to finish after SIGTERM are over, cutting requests in flight.`,
          fix: `terminationGracePeriodSeconds: ${needed} on ${ref(owner)}'s pods`,
          evidence: "lib/manifests/appWorkload.ts shutdownTiming",
        });
      }
    }
  }
  return { findings };
};
