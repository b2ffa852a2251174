import { parseCidr } from "../../config";
import { routeMatchesGet } from "../../manifests/paths";
import { selects, type SelectorSpec } from "../../manifests/selectors";
import type { AdmissionObject, MeshScrape } from "../mesh";

/**
 * Linkerd's inbound policy for a scrape of a meshed pod, as the policy controller builds the pod's
 * inbound server for the scraped port (policy-controller/k8s/index/src/inbound/index.rs at
 * edge-26.8.3) and the proxy authorizes a request against it. The scraper is Prometheus outside the
 * mesh: a plain-text client at an address in the cluster's first network (the pod range, which the
 * platform lists first). Where the mesh has routes, a Server's own authorizations are counted for every
 * route as well as the route's, and any matching route may authorize: the lenient reading, so that
 * what this reports as refused is refused.
 */

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

const policyGroup = "policy.linkerd.io";
const isPolicy = (o: AdmissionObject, kind: string) =>
  o.kind === kind && o.apiVersion.startsWith(`${policyGroup}/`);

/** What the policy controller runs with: its container's flags in templates/destination.yaml. */
function controllerFlags(objects: readonly AdmissionObject[]): {
  defaultPolicy: string;
  clusterNetworks: string[];
} {
  const destination = objects.find(
    (o) => o.kind === "Deployment" && o.metadata.name === "linkerd-destination",
  );
  const containers = arr(obj(obj(obj(destination?.spec).template).spec).containers);
  const args = (containers.find((c) => c.name === "policy")?.args as string[] | undefined) ?? [];
  const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  return {
    // The chart's proxy.defaultInboundPolicy and clusterNetworks defaults (values.yaml).
    defaultPolicy: flag("default-policy") ?? "all-unauthenticated",
    clusterNetworks: (flag("cluster-networks") ?? "10.0.0.0/8").split(",").filter((n) => n !== ""),
  };
}

/** Whether an IPv4 address (as a number) lies in a CIDR; other forms never match. */
function inCidr(address: number, cidr: string): boolean {
  if (cidr === "0.0.0.0/0") return true;
  const parsed = parseCidr(cidr);
  if (!parsed) return false;
  const [network, prefix] = parsed;
  return address >= network && address < network + 2 ** (32 - prefix);
}

/** The scraper's address: the first address of the cluster's first IPv4 network. */
function scraperAddress(clusterNetworks: readonly string[]): number | undefined {
  for (const n of clusterNetworks) {
    const parsed = parseCidr(n);
    if (parsed) return parsed[0] + 1;
  }
  return undefined;
}

/** Whether a plain-text client at `address` passes a default policy (policy-controller/core/src/inbound.rs). */
function defaultAllows(
  policy: string,
  address: number | undefined,
  clusterNetworks: readonly string[],
): boolean {
  if (policy === "all-unauthenticated" || policy === "audit") return true;
  if (policy === "cluster-unauthenticated")
    return address !== undefined && clusterNetworks.some((n) => inCidr(address, n));
  return false;
}

/**
 * Whether an AuthorizationPolicy lets a plain-text client at `address` in: no MeshTLSAuthentication or
 * ServiceAccount among its required authentications, and its NetworkAuthentication (if any) covering
 * the address (index.rs policy_client_authz: no network means every network).
 */
function policyAllows(
  policy: AdmissionObject,
  objects: readonly AdmissionObject[],
  address: number | undefined,
): boolean {
  const refs = arr(obj(policy.spec).requiredAuthenticationRefs);
  if (refs.some((r) => r.kind !== "NetworkAuthentication")) return false;
  return refs.every((r) => {
    const namespace = str(r.namespace) ?? policy.metadata.namespace;
    const authn = objects.find(
      (o) =>
        isPolicy(o, "NetworkAuthentication") &&
        o.metadata.namespace === namespace &&
        o.metadata.name === r.name,
    );
    return arr(obj(authn?.spec).networks).some(
      (n) =>
        (str(n.cidr) === "0.0.0.0/0" || (address !== undefined && inCidr(address, str(n.cidr) ?? ""))) &&
        !((n.except as string[] | undefined) ?? []).some((e) => address !== undefined && inCidr(address, e)),
    );
  });
}

/** Why Linkerd refuses the scrape, or undefined where its policy lets it through. */
export function linkerdScrapeRefusal(scrape: MeshScrape): string | undefined {
  // Only a meshed pod's proxy applies policy; a meshed Prometheus has an identity this does not model.
  if (!scrape.sidecar || scrape.scraperInMesh === true || scrape.portNumber === undefined) return undefined;
  const { objects, namespace, pod } = scrape;
  const flags = controllerFlags(objects);
  const address = scraperAddress(flags.clusterNetworks);
  const port = `port ${JSON.stringify(scrape.port)}`;
  const server = objects.find(
    (o) =>
      isPolicy(o, "Server") &&
      o.metadata.namespace === namespace &&
      selects(obj(o.spec).podSelector as SelectorSpec | undefined, pod.labels) &&
      (obj(o.spec).port === scrape.port || obj(o.spec).port === scrape.portNumber),
  );
  if (!server) {
    // The injector copies the namespace's annotation onto the pod; the pod's own wins (pkg/inject/inject.go).
    const annotation = "config.linkerd.io/default-inbound-policy";
    const policy = pod.annotations[annotation] ?? pod.namespaceAnnotations[annotation] ?? flags.defaultPolicy;
    const requireIdentity = (pod.annotations["config.linkerd.io/proxy-require-identity-inbound-ports"] ?? "")
      .split(",")
      .map((p) => p.trim())
      .includes(String(scrape.portNumber));
    if (!requireIdentity && defaultAllows(policy, address, flags.clusterNetworks)) return undefined;
    return `no Server covers its ${port}, and ${requireIdentity ? "the port requires a mesh identity" : `the default inbound policy ${JSON.stringify(policy)} refuses clients outside the mesh`}: add a Server for the port with an AuthorizationPolicy whose NetworkAuthentication covers the pod range`;
  }
  const name = server.metadata.name;
  const inNamespace = objects.filter((o) => o.metadata.namespace === namespace);
  const targets = (o: AdmissionObject, kind: string, target: string) => {
    const ref = obj(obj(o.spec).targetRef);
    return ref.kind === kind && (ref.name === target || kind === "Namespace");
  };
  const policies = inNamespace.filter((o) => isPolicy(o, "AuthorizationPolicy"));
  const serverAllows =
    defaultAllows(str(obj(server.spec).accessPolicy) ?? "deny", address, flags.clusterNetworks) ||
    policies.some(
      (p) =>
        (targets(p, "Server", name) || targets(p, "Namespace", namespace)) &&
        policyAllows(p, objects, address),
    );
  const routes = inNamespace.filter(
    (o) =>
      o.kind === "HTTPRoute" &&
      arr(obj(o.spec).parentRefs).some((p) => p.kind === "Server" && p.name === name),
  );
  if (routes.length === 0)
    return serverAllows
      ? undefined
      : `Server ${namespace}/${name} on its ${port} authorizes no client outside the mesh from the pod range: add an AuthorizationPolicy for the Server with a NetworkAuthentication that covers it`;
  const matching = routes.filter((r) => routeMatchesGet(r.spec, scrape.path));
  if (matching.length === 0)
    return `Server ${namespace}/${name} on its ${port} has routes, and none matches GET ${scrape.path}: add the path to a route authorized from the pod range`;
  const routeAllows = matching.some((r) =>
    policies.some((p) => targets(p, "HTTPRoute", r.metadata.name) && policyAllows(p, objects, address)),
  );
  return serverAllows || routeAllows
    ? undefined
    : `no route of Server ${namespace}/${name} that matches GET ${scrape.path} is authorized from the pod range: authorize the route with a NetworkAuthentication that covers it`;
}
