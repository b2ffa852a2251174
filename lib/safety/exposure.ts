import { gkeAnnotations } from "../versions";
import { at, isObj, key, object, str, type Obj, type ResourceView, type Violation } from "./resources";

/** What Google's load balancers reach: one NEG annotation every controller in front of a Service accepts. */

const gceIngressClasses = new Set(["gce", "gce-internal", "gce-regional-external", "gce-multi-cluster"]);

/**
 * An Ingress GKE's own controller serves: one of its classes (reference gke-gateway.md), or no class
 * at all, which GKE serves with an external Application Load Balancer.
 */
function isGceIngress(r: ResourceView): boolean {
  const annotated = object(r).annotations[gkeAnnotations.ingressClass];
  const className = at(r.inputs, "spec", "ingressClassName");
  if (annotated === undefined && className === undefined) return true;
  return gceIngressClasses.has(String(annotated)) || gceIngressClasses.has(String(className));
}

export function consistentNeg(resources: readonly ResourceView[]): Violation[] {
  const gkeGateways = new Set(
    resources
      .filter(
        (r) =>
          object(r).kind === "Gateway" &&
          String(at(r.inputs, "spec", "gatewayClassName")).startsWith("gke-l7"),
      )
      .map((r) => `${object(r).namespace}/${object(r).name}`),
  );
  /** Service `ns/name` → what reaches it: GCE Ingress, and the ports GKE Gateway uses. */
  const reached = new Map<string, { gce: boolean; ports: Set<number> }>();
  const mark = (svc: string, f: (e: { gce: boolean; ports: Set<number> }) => void) => {
    const e = reached.get(svc) ?? { gce: false, ports: new Set<number>() };
    f(e);
    reached.set(svc, e);
  };
  for (const r of resources) {
    const o = object(r);
    if (o.kind === "HTTPRoute") {
      const parents = (at(r.inputs, "spec", "parentRefs") ?? []) as Obj[];
      const onGke = parents.some((p) => gkeGateways.has(`${str(p.namespace) ?? o.namespace}/${str(p.name)}`));
      if (!onGke) continue;
      for (const rule of (at(r.inputs, "spec", "rules") ?? []) as Obj[]) {
        for (const b of (rule.backendRefs ?? []) as Obj[]) {
          if (b.kind === undefined || b.kind === "Service")
            mark(`${str(b.namespace) ?? o.namespace}/${str(b.name)}`, (e) => e.ports.add(Number(b.port)));
        }
      }
    }
    if (o.kind === "Ingress" && isGceIngress(r)) {
      const backends = [
        at(r.inputs, "spec", "defaultBackend"),
        ...((at(r.inputs, "spec", "rules") ?? []) as Obj[]).flatMap((rule) =>
          ((at(rule, "http", "paths") ?? []) as Obj[]).map((p) => p.backend),
        ),
      ];
      for (const b of backends) {
        const name = at(b, "service", "name");
        if (typeof name === "string") mark(`${o.namespace}/${name}`, (e) => (e.gce = true));
      }
    }
  }
  const out: Violation[] = [];
  for (const r of resources) {
    const o = object(r);
    if (o.kind !== "Service") continue;
    const need = reached.get(`${o.namespace}/${o.name}`);
    if (!need) continue;
    let neg: unknown;
    try {
      neg = JSON.parse(str(o.annotations[gkeAnnotations.neg]) ?? "");
    } catch {
      neg = undefined;
    }
    const ports = isObj(at(neg, "exposed_ports")) ? (at(neg, "exposed_ports") as Obj) : {};
    const problems = [
      ...(need.gce && at(neg, "ingress") !== true ? ['GCE Ingress needs "ingress": true'] : []),
      ...[...need.ports]
        .filter((p) => !(String(p) in ports))
        .map((p) => `GKE Gateway needs exposed_ports ${p}`),
    ];
    if (problems.length > 0) {
      out.push({
        invariant: "consistent-neg",
        resource: key(r),
        message: `Service ${o.namespace}/${o.name} has ${gkeAnnotations.neg} ${JSON.stringify(o.annotations[gkeAnnotations.neg] ?? null)}: ${problems.join("; ")}`,
      });
    }
  }
  return out;
}
