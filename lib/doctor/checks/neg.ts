import { negAnnotation } from "../../manifests/exposure";
import { gkeAnnotations } from "../../versions";
import type { Check, CheckResult } from "../context";
import { annotationsOf, isObj, listText, managersOf, ref } from "../objects";
import { resources } from "../resources";
import { googleExposure, type GoogleExposure } from "./exposure";

/**
 * Every Service a Google load balancer reaches must carry the one `cloud.google.com/neg` value every
 * controller reaching it accepts (docs/safety.md `consistent-neg`): GCE Ingress needs `"ingress": true`,
 * GKE Gateway's standalone NEGs are the ports under `exposed_ports` (kubernetes/ingress-gce acbcf5d6
 * pkg/annotations, pkg/negannotation; gke-gateway.md 3.1). The value is the one the platform computes
 * from every way a Service is exposed (lib/manifests/exposure.ts `negAnnotation`). And one writer: two
 * field managers of the annotation undo each other at every apply.
 */

/** The value the platform would write for this exposure: `negAnnotation` over every way and port. */
export function expectedNeg(e: GoogleExposure): string {
  const via = [
    ...(e.ingresses.length > 0 ? (["gce-ingress"] as const) : []),
    ...(e.gatewayPorts.size > 0 ? (["gke-gateway"] as const) : []),
  ];
  const ports = [...e.gatewayPorts.keys()].sort((a, b) => a - b);
  const value = JSON.parse(negAnnotation(via, ports[0] ?? 0)) as {
    ingress: boolean;
    exposed_ports?: Record<string, Record<string, never>>;
  };
  if (value.exposed_ports) for (const p of ports) value.exposed_ports[String(p)] = {};
  return JSON.stringify(value);
}

const how = (e: GoogleExposure): string =>
  listText([
    ...(e.ingresses.length > 0 ? [`GCE Ingress (${listText(e.ingresses.map(ref))})`] : []),
    ...[...e.gatewayPorts].map(
      ([port, routes]) => `GKE Gateway on port ${port} (${listText(routes.map(ref))})`,
    ),
  ]);

export const negAnnotations: Check = async (ctx): Promise<CheckResult> => {
  const services = await ctx.need(resources.services);
  const { exposure } = await googleExposure(ctx);
  const findings: CheckResult["findings"][number][] = [];
  const key = gkeAnnotations.neg;
  for (const svc of services) {
    const ns = svc.metadata.namespace ?? "default";
    const e = exposure.get(`${ns}/${svc.metadata.name}`);
    const written = annotationsOf(svc)[key];
    const writers = managersOf(svc, "metadata", "annotations", key);
    if (writers.length > 1) {
      findings.push({
        severity: "warning",
        code: "neg-two-writers",
        objects: [ref(svc)],
        message: `${ref(svc)}'s ${key} annotation is written by ${writers.length} field managers (${listText(writers)}): each apply undoes the other's value, and the load balancer follows whichever wrote last.`,
        fix: `let one writer own it: the program that deploys the Service (the platform computes it from every way the Service is exposed); stop the other from setting ${key}`,
        evidence:
          "Kubernetes server-side apply: every field has owners, and an apply takes the field from the others",
      });
    }
    if (!e) continue;
    const expected = expectedNeg(e);
    const fix = `kubectl annotate service ${svc.metadata.name} --namespace ${ns} --overwrite ${key}='${expected}' (in the platform: expose.via lists every way the app is reached, and the Service gets this value)`;
    let value: unknown;
    try {
      value = written === undefined ? undefined : (JSON.parse(written) as unknown);
    } catch {
      findings.push({
        severity: "error",
        code: "neg-unreadable",
        objects: [ref(svc)],
        message: `${ref(svc)} is reached by ${how(e)}, and its ${key} annotation is not JSON (${JSON.stringify(written)}): GKE's NEG controller refuses it and makes no NEG.`,
        fix,
        evidence: "kubernetes/ingress-gce acbcf5d6 pkg/annotations, pkg/negannotation (lib/versions/gke.ts)",
      });
      continue;
    }
    const ingress = isObj(value) ? value.ingress : undefined;
    const exposed = isObj(value) && isObj(value.exposed_ports) ? Object.keys(value.exposed_ports) : [];
    if (e.ingresses.length > 0 && ingress !== true) {
      findings.push({
        severity: "error",
        code: "neg-missing-ingress",
        objects: [ref(svc), ...e.ingresses.map(ref)],
        message:
          `${ref(svc)} is a backend of ${how(e)}, and its ${key} is ${written === undefined ? "not set" : `'${written}'`}, without "ingress": true: ` +
          `GCE Ingress then wants a NodePort or LoadBalancer Service ("expected NodePort or LoadBalancer"), and a ClusterIP Service gets no backend: the load balancer serves errors.` +
          (written !== undefined
            ? " A value written for GKE Gateway alone, kept when the Service moved to GCE Ingress, is the classic case; GKE applies its own default only where the annotation is absent."
            : ""),
        fix,
        evidence: "gke-gateway.md 3.1 (failure a); kubernetes/ingress-gce acbcf5d6 pkg/negannotation",
      });
    }
    const missing = [...e.gatewayPorts.keys()].filter((p) => !exposed.includes(String(p)));
    if (missing.length > 0) {
      findings.push({
        severity: "error",
        code: "neg-missing-exposed-port",
        objects: [ref(svc), ...missing.flatMap((p) => (e.gatewayPorts.get(p) ?? []).map(ref))],
        message: `${ref(svc)} is a backend of ${how(e)}, and its ${key} (${written === undefined ? "not set" : `'${written}'`}) has no exposed_ports for port ${listText(missing.map(String))}: GKE Gateway has no standalone NEG to send to, so the route has no healthy backend.`,
        fix,
        evidence: "gke-gateway.md 3.1; kubernetes/ingress-gce acbcf5d6 pkg/negannotation",
      });
    }
    const stale = exposed.filter((p) => !e.gatewayPorts.has(Number(p)));
    if (stale.length > 0) {
      findings.push({
        severity: "warning",
        code: "neg-stale-exposed-port",
        objects: [ref(svc)],
        message: `${ref(svc)}'s ${key} exposes port ${listText(stale)} as standalone NEGs, and no GKE Gateway route sends there (it is reached by ${how(e)}): GKE keeps making and syncing NEGs nothing uses, a sign the value was left from an earlier exposure.`,
        fix: `${fix}, unless something outside the cluster uses those NEGs`,
        evidence: "gke-gateway.md 3.1",
      });
    }
  }
  return { findings };
};
