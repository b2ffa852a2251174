import type { KubeObject } from "../../cluster";
import { gkeAnnotations } from "../../versions";
import type { CheckContext } from "../context";
import { gceIngressClasses, gkeL7ClassPrefix } from "../../versions/doctorFacts";
import { annotationsOf, at, list, num, str } from "../objects";
import { resources } from "../resources";

/**
 * How each Service is reached by Google's load balancers on the live cluster: as the backend of an
 * Ingress GKE's controller serves (container-native NEGs: `"ingress": true`), and as the backend of
 * an HTTPRoute on a GKE Gateway (standalone NEGs on the ports under `exposed_ports`). The NEG and
 * draining checks share it.
 */
export interface GoogleExposure {
  readonly service: string;
  /** `namespace/name`. */
  readonly key: string;
  /** The GCE Ingresses sending to it. */
  readonly ingresses: KubeObject[];
  /** The ports GKE Gateway routes send to, with the routes. */
  readonly gatewayPorts: Map<number, KubeObject[]>;
}

/** An Ingress GKE's own controller serves: one of its classes, or none at all. */
export function isGceIngress(ingress: KubeObject): boolean {
  const annotated = annotationsOf(ingress)[gkeAnnotations.ingressClass];
  const className = str(at(ingress, "spec", "ingressClassName"));
  if (annotated === undefined && className === undefined) return true;
  return (gceIngressClasses as readonly string[]).some((c) => c === annotated || c === className);
}

/** The Services Google's load balancers reach, by `namespace/name`. */
export async function googleExposure(
  ctx: CheckContext,
): Promise<{ exposure: Map<string, GoogleExposure>; gateways: readonly KubeObject[] }> {
  const ingresses = await ctx.optional(resources.ingresses, "Services behind GCE Ingress");
  const gateways = await ctx.optional(resources.gateways, "Services behind GKE Gateway");
  const routes = await ctx.optional(resources.httpRoutes, "Services behind GKE Gateway");
  const exposure = new Map<string, GoogleExposure>();
  const entry = (namespace: string, name: string): GoogleExposure => {
    const key = `${namespace}/${name}`;
    let e = exposure.get(key);
    if (!e) {
      e = { service: `Service ${key}`, key, ingresses: [], gatewayPorts: new Map() };
      exposure.set(key, e);
    }
    return e;
  };
  for (const ing of ingresses.filter(isGceIngress)) {
    const backends = [
      at(ing, "spec", "defaultBackend"),
      ...list(at(ing, "spec", "rules")).flatMap((rule) =>
        list(at(rule, "http", "paths")).map((p) => p.backend),
      ),
    ];
    for (const b of backends) {
      const name = str(at(b, "service", "name"));
      if (!name) continue;
      const e = entry(ing.metadata.namespace ?? "default", name);
      if (!e.ingresses.includes(ing)) e.ingresses.push(ing);
    }
  }
  const gkeGateways = new Set(
    gateways
      .filter((g) => (str(at(g, "spec", "gatewayClassName")) ?? "").startsWith(gkeL7ClassPrefix))
      .map((g) => `${g.metadata.namespace ?? ""}/${g.metadata.name}`),
  );
  for (const route of routes) {
    const ns = route.metadata.namespace ?? "default";
    const onGke = list(at(route, "spec", "parentRefs")).some(
      (p) =>
        (str(p.kind) ?? "Gateway") === "Gateway" &&
        gkeGateways.has(`${str(p.namespace) ?? ns}/${str(p.name) ?? ""}`),
    );
    if (!onGke) continue;
    for (const rule of list(at(route, "spec", "rules"))) {
      for (const b of list(rule.backendRefs)) {
        if ((str(b.kind) ?? "Service") !== "Service" || (str(b.group) ?? "") !== "") continue;
        const name = str(b.name);
        const port = num(b.port);
        if (!name || port === undefined) continue;
        const e = entry(str(b.namespace) ?? ns, name);
        const sending = e.gatewayPorts.get(port) ?? [];
        if (!sending.includes(route)) sending.push(route);
        e.gatewayPorts.set(port, sending);
      }
    }
  }
  return { exposure, gateways };
}
