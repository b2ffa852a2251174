import { parseCidr } from "../../config";
import { routeMatchesGet } from "../../manifests/paths";
import { selects, type SelectorSpec } from "../../manifests/selectors";
import { privateNetworks } from "../../versions";
import type { AdmissionObject, MeshScrape } from "../mesh";

/**
 * Linkerd's inbound policy for a scrape of a meshed pod, as the policy controller builds the pod's
 * inbound server for the scraped port (policy-controller/k8s/index/src/inbound/index.rs at
 * edge-26.8.3) and the proxy authorizes a request against it: the route's authorizations together with
 * the Server's (linkerd2-proxy server-policy/src/authz.rs). The scraper is Prometheus outside the
 * mesh: a plain-text client from the cluster's first network, the pod range where the platform made
 * the network. Where the model cannot be sure, it lets the scrape through, so that what it reports as
 * refused is refused: any matching route may authorize (the proxy takes the best one), a network that
 * overlaps the scraper's range admits it, and the probe routes the controller adds for kubelet are not
 * modelled (a scrape of a probe path would be reported).
 */

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});
const arr = (v: unknown): Obj[] => (Array.isArray(v) ? (v as Obj[]) : []);
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

const policyGroup = "policy.linkerd.io";
const isPolicy = (o: AdmissionObject, kind: string) =>
  o.kind === kind && o.apiVersion.startsWith(`${policyGroup}/`);

/** The default policies the controller accepts; any other annotation value is ignored (workload.rs). */
const defaultPolicies = new Set([
  "all-unauthenticated",
  "all-authenticated",
  "cluster-unauthenticated",
  "cluster-authenticated",
  "deny",
  "audit",
]);

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
    clusterNetworks: flag("cluster-networks")
      ?.split(",")
      .filter((n) => n !== "") ?? [...privateNetworks],
  };
}

/** An IPv4 range as [first, end); undefined for other forms. */
function rangeOf(cidr: string): [number, number] | undefined {
  const parsed = parseCidr(cidr);
  return parsed && [parsed[0], parsed[0] + 2 ** (32 - parsed[1])];
}

/** Whether a network (with its exceptions) admits some of the scraper's range. */
function admits(cidr: string, except: readonly string[], scraper: [number, number] | undefined): boolean {
  const every = cidr === "0.0.0.0/0" || cidr === "::/0";
  const net = every ? ([0, 2 ** 32] as [number, number]) : rangeOf(cidr);
  if (!net) return false;
  if (!scraper) return every;
  const overlaps = net[0] < scraper[1] && scraper[0] < net[1];
  const excluded = except.some((e) => {
    const r = rangeOf(e);
    return r !== undefined && r[0] <= scraper[0] && scraper[1] <= r[1];
  });
  return overlaps && !excluded;
}

/** Whether a default policy lets an in-cluster client outside the mesh in (policy-controller/core/src/inbound.rs). */
const defaultAllows = (policy: string) =>
  policy === "all-unauthenticated" || policy === "cluster-unauthenticated" || policy === "audit";

/** Ports in an annotation: comma-separated numbers and ranges (`4190-4191`). */
function inPorts(value: string | undefined, port: number): boolean {
  return (value ?? "").split(",").some((p) => {
    const [low, high] = p.trim().split("-").map(Number);
    return low === port || (high !== undefined && low <= port && port <= high);
  });
}

/**
 * Whether an AuthorizationPolicy lets the scraper in: no MeshTLSAuthentication or ServiceAccount among
 * its required authentications, and its NetworkAuthentication (if any) admitting it (index.rs
 * policy_client_authz: no network means every network; a missing one makes the policy ignored).
 */
function policyAllows(
  policy: AdmissionObject,
  objects: readonly AdmissionObject[],
  scraper: [number, number] | undefined,
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
    return arr(obj(authn?.spec).networks).some((n) =>
      admits(str(n.cidr) ?? "", (n.except as string[] | undefined) ?? [], scraper),
    );
  });
}

/**
 * Whether a ServerAuthorization (policy.linkerd.io/v1beta1) lets the scraper in: unauthenticated
 * clients, from its networks or, without any, the cluster's (policy-controller/grpc/src/inbound.rs).
 */
function serverAuthorizationAllows(sa: AdmissionObject, scraper: [number, number] | undefined): boolean {
  const client = obj(obj(sa.spec).client);
  if (client.unauthenticated !== true) return false;
  const networks = arr(client.networks);
  return (
    networks.length === 0 ||
    networks.some((n) => admits(str(n.cidr) ?? "", (n.except as string[] | undefined) ?? [], scraper))
  );
}

/** Why Linkerd refuses the scrape, or undefined where its policy lets it through. */
export function linkerdScrapeRefusal(scrape: MeshScrape): string | undefined {
  // Only a meshed pod's proxy applies policy; a meshed Prometheus has an identity this does not model.
  if (!scrape.sidecar || scrape.scraperInMesh === true || scrape.portNumber === undefined) return undefined;
  const { objects, namespace, pod } = scrape;
  // The injector copies the namespace's config annotations onto a pod that lacks them (pkg/inject/inject.go).
  const annotation = (key: string) => pod.annotations[key] ?? pod.namespaceAnnotations[key];
  // A skipped port bypasses the proxy: proxy-init's --inbound-ports-to-ignore (partials _proxy-init.tpl).
  if (inPorts(annotation("config.linkerd.io/skip-inbound-ports"), scrape.portNumber)) return undefined;
  const flags = controllerFlags(objects);
  const scraper = flags.clusterNetworks.map(rangeOf).find((r) => r !== undefined);
  const port = `port ${JSON.stringify(scrape.port)}`;
  // Of several Servers for one port the oldest wins; a render has no creation times, so the first by name.
  const server = objects
    .filter(
      (o) =>
        isPolicy(o, "Server") &&
        o.metadata.namespace === namespace &&
        selects(obj(o.spec).podSelector as SelectorSpec | undefined, pod.labels) &&
        (obj(o.spec).port === scrape.port || obj(o.spec).port === scrape.portNumber),
    )
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))[0];
  if (!server) {
    const asked = annotation("config.linkerd.io/default-inbound-policy");
    const policy = asked !== undefined && defaultPolicies.has(asked) ? asked : flags.defaultPolicy;
    // Identity is required only where the policy allows at all; audit still lets everything in (index.rs).
    const requireIdentity =
      policy !== "audit" &&
      inPorts(annotation("config.linkerd.io/proxy-require-identity-inbound-ports"), scrape.portNumber);
    if (!requireIdentity && defaultAllows(policy)) return undefined;
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
    defaultAllows(str(obj(server.spec).accessPolicy) ?? "deny") ||
    policies.some(
      (p) =>
        (targets(p, "Server", name) || targets(p, "Namespace", namespace)) &&
        policyAllows(p, objects, scraper),
    ) ||
    inNamespace.some((sa) => {
      if (!isPolicy(sa, "ServerAuthorization")) return false;
      const ref = obj(obj(sa.spec).server);
      const chosen =
        ref.name === name ||
        (ref.selector !== undefined && selects(ref.selector as SelectorSpec, server.metadata.labels ?? {}));
      return chosen && serverAuthorizationAllows(sa, scraper);
    });
  // A route attaches to the Server through a parent of Linkerd's group (k8s/api/src/policy.rs).
  const routes = inNamespace.filter(
    (o) =>
      o.kind === "HTTPRoute" &&
      arr(obj(o.spec).parentRefs).some(
        (p) => p.group === policyGroup && p.kind === "Server" && p.name === name,
      ),
  );
  if (routes.length === 0)
    return serverAllows
      ? undefined
      : `Server ${namespace}/${name} on its ${port} authorizes no client outside the mesh from the pod range: add an AuthorizationPolicy for the Server with a NetworkAuthentication that covers it`;
  const matching = routes.filter((r) => routeMatchesGet(r.spec, scrape.path));
  if (matching.length === 0)
    return `Server ${namespace}/${name} on its ${port} has routes, and none matches GET ${scrape.path}: add the path to a route authorized from the pod range`;
  const routeAllows = matching.some((r) =>
    policies.some((p) => targets(p, "HTTPRoute", r.metadata.name) && policyAllows(p, objects, scraper)),
  );
  return serverAllows || routeAllows
    ? undefined
    : `no route of Server ${namespace}/${name} that matches GET ${scrape.path} is authorized from the pod range: authorize the route with a NetworkAuthentication that covers it`;
}
