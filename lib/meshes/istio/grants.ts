import type { AdmissionObject, MeshGrant } from "../admissionModel";
import { list, obj, record } from "../../json";
import { selects, type SelectorSpec } from "../../manifests/selectors";

/**
 * The callers Istio's ALLOW AuthorizationPolicies let into the pods they select from another namespace
 * (by principal or namespace) or from outside the cluster (by ipBlocks), on the ports the selected pods'
 * containers declare.
 */

/** Workloads whose pods a policy's selector picks. */
const podOwners = new Set(["Deployment", "StatefulSet", "DaemonSet"]);

export function istioGrants(
  objects: readonly AdmissionObject[],
  external: (cidr: string) => boolean,
): MeshGrant[] {
  const workloads = objects.filter((o) => podOwners.has(o.kind));
  const grants: MeshGrant[] = [];
  for (const policy of objects.filter(
    (o) =>
      o.kind === "AuthorizationPolicy" &&
      o.apiVersion.startsWith("security.istio.io/") &&
      (obj(o.spec).action ?? "ALLOW") === "ALLOW",
  )) {
    const spec = obj(policy.spec);
    const ns = policy.metadata.namespace ?? "";
    const podLabels = obj(obj(spec.selector).matchLabels);
    // The ports calls reach: the selected pods' own containers' declared ports.
    const podPorts = [
      ...new Set(
        workloads
          .filter((w) => w.metadata.namespace === ns)
          .map((w) => obj(obj(w.spec).template))
          .filter((t) => selects(spec.selector as SelectorSpec | undefined, record(obj(t.metadata).labels)))
          .flatMap((t) => list(obj(t.spec).containers).flatMap((c) => list(c.ports)))
          .map((p) => p.containerPort)
          .filter((p): p is number => typeof p === "number"),
      ),
    ];
    if (podPorts.length === 0) continue;
    for (const rule of list(spec.rules)) {
      for (const f of list(rule.from)) {
        const source = obj(f.source);
        const by = `AuthorizationPolicy ${ns}/${policy.metadata.name}`;
        const base = { object: policy, by, namespace: ns, podLabels, ports: podPorts };
        const fromNamespaces = [
          ...(Array.isArray(source.principals) ? source.principals : []).map(
            (p) => /\/ns\/([^/]+)\/sa\//.exec(String(p))?.[1],
          ),
          ...(Array.isArray(source.namespaces) ? source.namespaces : []).map(String),
        ];
        for (const from of new Set(fromNamespaces))
          if (from && from !== "*" && !from.includes("*") && from !== ns)
            grants.push({ ...base, source: { namespace: from } });
        for (const cidr of (Array.isArray(source.ipBlocks) ? source.ipBlocks : []).map(String))
          if (external(cidr)) grants.push({ ...base, source: { cidr } });
      }
    }
  }
  return grants;
}
