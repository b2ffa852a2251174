import { linkerdFacts } from "../../versions";
import type { AdmissionObject, MeshGrant } from "../admissionModel";
import { groupBy, list, obj, str } from "../../json";

/**
 * The callers Linkerd's policy lets into a Server's pods from another namespace or from outside the
 * cluster: each AuthorizationPolicy that targets the Server, one of its routes or its namespace, by its
 * MeshTLSAuthentication's identities or its NetworkAuthentication's networks.
 */

export function linkerdGrants(
  objects: readonly AdmissionObject[],
  external: (cidr: string) => boolean,
): MeshGrant[] {
  // Indexed by namespace and kind once: a program of 1,000 apps has thousands of Servers.
  const byNamespaceKind = groupBy(objects, (o) => `${o.metadata.namespace ?? ""}/${o.kind}`);
  const inNs = (ns: string, kind: string, group: string) =>
    (byNamespaceKind.get(`${ns}/${kind}`) ?? []).filter((o) => o.apiVersion.startsWith(group));
  const grants: MeshGrant[] = [];
  for (const server of objects.filter(
    (o) => o.kind === "Server" && o.apiVersion.startsWith("policy.linkerd.io/"),
  )) {
    const ns = server.metadata.namespace ?? "";
    const port = obj(server.spec).port;
    const podLabels = obj(obj(obj(server.spec).podSelector).matchLabels);
    const routes = new Set(
      inNs(ns, "HTTPRoute", "gateway.networking.k8s.io/")
        .filter((r) =>
          list(obj(r.spec).parentRefs).some((p) => p.kind === "Server" && p.name === server.metadata.name),
        )
        .map((r) => r.metadata.name),
    );
    for (const policy of inNs(ns, "AuthorizationPolicy", "policy.linkerd.io/")) {
      const target = obj(obj(policy.spec).targetRef);
      const targets =
        target.kind === "Namespace" ||
        (target.kind === "Server" && target.name === server.metadata.name) ||
        (target.kind === "HTTPRoute" && routes.has(str(target.name) ?? ""));
      if (!targets) continue;
      for (const ref of list(obj(policy.spec).requiredAuthenticationRefs)) {
        const authnNs = str(ref.namespace) ?? ns;
        const authn = inNs(authnNs, String(ref.kind), "policy.linkerd.io/").find(
          (o) => o.metadata.name === ref.name,
        );
        if (!authn) continue;
        const by = `AuthorizationPolicy ${ns}/${policy.metadata.name} (${String(ref.kind)} ${authnNs}/${str(ref.name)})`;
        const base = { object: server, by, namespace: ns, podLabels };
        if (ref.kind === "MeshTLSAuthentication") {
          for (const id of list(obj(authn.spec).identityRefs)) {
            const from = id.kind === "Namespace" ? str(id.name) : (str(id.namespace) ?? authnNs);
            // Meshed calls arrive on the proxy's inbound port (transport header), not the Server's.
            if (from && from !== ns)
              grants.push({
                ...base,
                source: { namespace: from },
                ports: [linkerdFacts.proxyInboundPortNumber],
              });
          }
        } else if (ref.kind === "NetworkAuthentication") {
          for (const n of list(obj(authn.spec).networks)) {
            const cidr = str(n.cidr);
            if (cidr && external(cidr) && (typeof port === "number" || typeof port === "string"))
              grants.push({ ...base, source: { cidr }, ports: [port] });
          }
        }
      }
    }
  }
  return grants;
}
