import { parseCidr } from "../../config";
import { groupBy, list, obj, str, strings, type Json } from "../../json";
import { routeMatchesGet } from "../../manifests/paths";
import { selects, type SelectorSpec } from "../../manifests/selectors";
import { privateNetworks } from "../../versions";
import { cidrWithin } from "../cidr";
import type { AdmissionObject, AdmittedPod, MeshProbe, MeshScrape } from "../admissionModel";

/**
 * Linkerd's inbound policy for a plain-text request to a meshed pod, as the policy controller builds the
 * pod's inbound server for the port (policy-controller/k8s/index/src/inbound/index.rs at edge-26.8.3)
 * and the proxy authorizes a request against it: the route's authorizations together with the Server's
 * (linkerd2-proxy server-policy/src/authz.rs). Two clients come from outside the mesh:
 * - a monitor's scrape: Prometheus from the cluster's first network, the pod range where the platform
 *   made the network. Where the model cannot be sure, it lets the scrape through, so that what it
 *   reports as refused is refused: any matching route may authorize (the proxy takes the best one), a
 *   network that overlaps the scraper's range admits it, and the probe routes the controller adds for
 *   kubelet are not modelled (a scrape of a probe path would be reported);
 * - kubelet's probe, from any address of the control plane's probe networks: a network admits it only
 *   where it holds every one of them.
 */

const policyGroup = "policy.linkerd.io";
const isPolicy = (o: AdmissionObject, kind: string) =>
  o.kind === kind && o.apiVersion.startsWith(`${policyGroup}/`);

/**
 * The objects by namespace, and the policy controller's Deployment: every probe and scrape of a program
 * asks about the same objects, so they are indexed once per array (a program of 1,000 apps has about
 * 28,000), not searched whole per question.
 */
interface ObjectIndex {
  readonly byNamespace: ReadonlyMap<string | undefined, readonly AdmissionObject[]>;
  readonly destination?: AdmissionObject;
}
const indexes = new WeakMap<readonly AdmissionObject[], ObjectIndex>();

function indexed(objects: readonly AdmissionObject[]): ObjectIndex {
  const known = indexes.get(objects);
  if (known) return known;
  const index: ObjectIndex = {
    byNamespace: groupBy(objects, (o) => o.metadata.namespace),
    destination: objects.find((o) => o.kind === "Deployment" && o.metadata.name === "linkerd-destination"),
  };
  indexes.set(objects, index);
  return index;
}

const inNamespace = (objects: readonly AdmissionObject[], namespace: string | undefined) =>
  indexed(objects).byNamespace.get(namespace) ?? [];

/** The default policies the controller accepts; any other annotation value is ignored (workload.rs). */
const defaultPolicies = new Set([
  "all-unauthenticated",
  "all-authenticated",
  "cluster-unauthenticated",
  "cluster-authenticated",
  "deny",
  "audit",
]);

/** What the policy controller runs with: its container's flags in templates/destination.yaml, else the release's values. */
function controllerFlags(
  objects: readonly AdmissionObject[],
  values: Readonly<Record<string, unknown>> = {},
): {
  defaultPolicy: string;
  clusterNetworks: string[];
  probeNetworks: string[];
} {
  const destination = indexed(objects).destination;
  const containers = list(obj(obj(obj(destination?.spec).template).spec).containers);
  const args = strings(containers.find((c) => c.name === "policy")?.args);
  const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const split = (value: string | undefined) => value?.split(",").filter((n) => n !== "");
  const probeValues = obj(values.policyController).probeNetworks;
  return {
    // The chart's proxy.defaultInboundPolicy and clusterNetworks defaults (values.yaml).
    defaultPolicy:
      flag("default-policy") ?? str(obj(values.proxy).defaultInboundPolicy) ?? "all-unauthenticated",
    clusterNetworks: split(flag("cluster-networks")) ??
      split(str(values.clusterNetworks)) ?? [...privateNetworks],
    // The chart's policyController.probeNetworks default: every address (values.yaml).
    probeNetworks:
      split(flag("probe-networks")) ??
      (Array.isArray(probeValues) ? probeValues.map(String) : ["0.0.0.0/0", "::/0"]),
  };
}

/** An IPv4 range as [first, end); undefined for other forms. */
function rangeOf(cidr: string): [number, number] | undefined {
  const parsed = parseCidr(cidr);
  return parsed && [parsed[0], parsed[0] + 2 ** (32 - parsed[1])];
}

/** Who sends the request: the scraper from its range (unknown: none), or kubelet from every probe network. */
type Client =
  | { readonly kind: "scraper"; readonly range: [number, number] | undefined }
  | { readonly kind: "kubelet"; readonly networks: readonly string[] };

/** Whether a network (with its exceptions) admits some of the scraper's range. */
function admitsScraper(
  cidr: string,
  except: readonly string[],
  scraper: [number, number] | undefined,
): boolean {
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

/** Whether a network (with its exceptions) holds every address of `inner`; IPv6 ranges only by equality. */
function holds(cidr: string, except: readonly string[], inner: string): boolean {
  if (inner.includes(":")) return cidr === "::/0" || cidr === inner;
  // Two ranges overlap only where one holds the other.
  return cidrWithin(inner, cidr) && !except.some((e) => cidrWithin(e, inner) || cidrWithin(inner, e));
}

/** Whether a list of `{cidr, except}` networks lets the client in. */
function networksAdmit(networks: readonly Json[], client: Client): boolean {
  const parts = networks.map((n) => ({
    cidr: str(n.cidr) ?? "",
    except: strings(n.except),
  }));
  return client.kind === "scraper"
    ? parts.some((n) => admitsScraper(n.cidr, n.except, client.range))
    : client.networks.every((p) => parts.some((n) => holds(n.cidr, n.except, p)));
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
 * Whether an AuthorizationPolicy lets the client in: no MeshTLSAuthentication or ServiceAccount among
 * its required authentications, and its NetworkAuthentication (if any) admitting it (index.rs
 * policy_client_authz: no network means every network; a missing one makes the policy ignored).
 */
function policyAllows(policy: AdmissionObject, objects: readonly AdmissionObject[], client: Client): boolean {
  const refs = list(obj(policy.spec).requiredAuthenticationRefs);
  if (refs.some((r) => r.kind !== "NetworkAuthentication")) return false;
  return refs.every((r) => {
    const namespace = str(r.namespace) ?? policy.metadata.namespace;
    const authn = inNamespace(objects, namespace).find(
      (o) => isPolicy(o, "NetworkAuthentication") && o.metadata.name === r.name,
    );
    return networksAdmit(list(obj(authn?.spec).networks), client);
  });
}

/**
 * Whether a ServerAuthorization (policy.linkerd.io/v1beta1) lets the client in: unauthenticated
 * clients, from its networks or, without any, the cluster's (policy-controller/grpc/src/inbound.rs).
 */
function serverAuthorizationAllows(sa: AdmissionObject, client: Client): boolean {
  const spec = obj(obj(sa.spec).client);
  if (spec.unauthenticated !== true) return false;
  const networks = list(spec.networks);
  return networks.length === 0 || networksAdmit(networks, client);
}

/** The pod's Server for a port, its routes and whether its own authorizations let the client in. */
interface InboundServer {
  readonly name: string;
  readonly routes: readonly AdmissionObject[];
  readonly allows: (client: Client) => boolean;
  readonly routeAllows: (route: AdmissionObject, client: Client) => boolean;
}

/** The Server the controller picks for the pod's port (named or numbered), or undefined where none selects it. */
function inboundServer(
  objects: readonly AdmissionObject[],
  namespace: string,
  pod: AdmittedPod,
  ports: readonly (string | number | undefined)[],
): InboundServer | undefined {
  // Of several Servers for one port the oldest wins; a render has no creation times, so the first by name.
  const here = inNamespace(objects, namespace);
  const server = here
    .filter(
      (o) =>
        isPolicy(o, "Server") &&
        selects(obj(o.spec).podSelector as SelectorSpec | undefined, pod.labels) &&
        ports.some((p) => p !== undefined && obj(o.spec).port === p),
    )
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))[0];
  if (!server) return undefined;
  const name = server.metadata.name;
  const targets = (o: AdmissionObject, kind: string, target: string) => {
    const ref = obj(obj(o.spec).targetRef);
    return ref.kind === kind && (ref.name === target || kind === "Namespace");
  };
  const policies = here.filter((o) => isPolicy(o, "AuthorizationPolicy"));
  return {
    name,
    // A route attaches to the Server through a parent of Linkerd's group (k8s/api/src/policy.rs).
    routes: here.filter(
      (o) =>
        o.kind === "HTTPRoute" &&
        list(obj(o.spec).parentRefs).some(
          (p) => p.group === policyGroup && p.kind === "Server" && p.name === name,
        ),
    ),
    allows: (client) =>
      defaultAllows(str(obj(server.spec).accessPolicy) ?? "deny") ||
      policies.some(
        (p) =>
          (targets(p, "Server", name) || targets(p, "Namespace", namespace)) &&
          policyAllows(p, objects, client),
      ) ||
      here.some((sa) => {
        if (!isPolicy(sa, "ServerAuthorization")) return false;
        const ref = obj(obj(sa.spec).server);
        const chosen =
          ref.name === name ||
          (ref.selector !== undefined && selects(ref.selector as SelectorSpec, server.metadata.labels ?? {}));
        return chosen && serverAuthorizationAllows(sa, client);
      }),
    routeAllows: (route, client) =>
      policies.some((p) => targets(p, "HTTPRoute", route.metadata.name) && policyAllows(p, objects, client)),
  };
}

/** A pod's config annotation, or its namespace's: the injector copies the namespace's onto a pod that lacks them (pkg/inject/inject.go). */
const podAnnotation = (pod: AdmittedPod, key: string): string | undefined =>
  pod.annotations[key] ?? pod.namespaceAnnotations[key];

/** Why the default inbound policy refuses a client outside the mesh on the port, or undefined where it lets it in. */
function defaultPolicyRefusal(
  pod: AdmittedPod,
  port: number,
  defaultPolicy: string,
  portText: string,
): string | undefined {
  const asked = podAnnotation(pod, "config.linkerd.io/default-inbound-policy");
  const policy = asked !== undefined && defaultPolicies.has(asked) ? asked : defaultPolicy;
  // Identity is required only where the policy allows at all; audit still lets everything in (index.rs).
  const requireIdentity =
    policy !== "audit" &&
    inPorts(podAnnotation(pod, "config.linkerd.io/proxy-require-identity-inbound-ports"), port);
  if (!requireIdentity && defaultAllows(policy)) return undefined;
  return `no Server covers its ${portText}, and ${requireIdentity ? "the port requires a mesh identity" : `the default inbound policy ${JSON.stringify(policy)} refuses clients outside the mesh`}`;
}

/** A skipped port bypasses the proxy: proxy-init's --inbound-ports-to-ignore (partials _proxy-init.tpl). */
const skipsProxy = (pod: AdmittedPod, port: number) =>
  inPorts(podAnnotation(pod, "config.linkerd.io/skip-inbound-ports"), port);

/** Why Linkerd refuses the scrape, or undefined where its policy lets it through. */
export function linkerdScrapeRefusal(scrape: MeshScrape): string | undefined {
  // Only a meshed pod's proxy applies policy; a meshed Prometheus has an identity this does not model.
  if (!scrape.sidecar || scrape.scraperInMesh === true || scrape.portNumber === undefined) return undefined;
  const { objects, namespace, pod } = scrape;
  if (skipsProxy(pod, scrape.portNumber)) return undefined;
  const flags = controllerFlags(objects);
  const client: Client = {
    kind: "scraper",
    range: flags.clusterNetworks.map(rangeOf).find((r) => r !== undefined),
  };
  const port = `port ${JSON.stringify(scrape.port)}`;
  const server = inboundServer(objects, namespace, pod, [scrape.port, scrape.portNumber]);
  if (!server) {
    const refused = defaultPolicyRefusal(pod, scrape.portNumber, flags.defaultPolicy, port);
    return (
      refused &&
      `${refused}: add a Server for the port with an AuthorizationPolicy whose NetworkAuthentication covers the pod range`
    );
  }
  const serverAllows = server.allows(client);
  if (server.routes.length === 0)
    return serverAllows
      ? undefined
      : `Server ${namespace}/${server.name} on its ${port} authorizes no client outside the mesh from the pod range: add an AuthorizationPolicy for the Server with a NetworkAuthentication that covers it`;
  const matching = server.routes.filter((r) => routeMatchesGet(r.spec, scrape.path));
  if (matching.length === 0)
    return `Server ${namespace}/${server.name} on its ${port} has routes, and none matches GET ${scrape.path}: add the path to a route authorized from the pod range`;
  const routeAllows = matching.some((r) => server.routeAllows(r, client));
  return serverAllows || routeAllows
    ? undefined
    : `no route of Server ${namespace}/${server.name} that matches GET ${scrape.path} is authorized from the pod range: authorize the route with a NetworkAuthentication that covers it`;
}

/**
 * Why Linkerd refuses kubelet's probe, or undefined where its policy lets it through. While the pod's
 * Server has no routes (or no Server selects the port), the controller adds a route for the pod's probe
 * paths, authorized from the probe networks (index.rs default_inbound_http_routes); once routes are
 * attached, a probe gets through only a route that matches it and is authorized from every probe network.
 */
export function linkerdProbeRefusal(probe: MeshProbe): string | undefined {
  if (!probe.sidecar || probe.portNumber === undefined) return undefined;
  const { objects, namespace, pod } = probe;
  if (skipsProxy(pod, probe.portNumber)) return undefined;
  const flags = controllerFlags(objects, probe.controlPlanes[0]);
  const client: Client = { kind: "kubelet", networks: flags.probeNetworks };
  const from = `the networks kubelet probes from (${flags.probeNetworks.join(", ") || "none"}, the control plane's policyController.probeNetworks)`;
  const port = `port ${JSON.stringify(probe.portName ?? probe.portNumber)}`;
  const server = inboundServer(objects, namespace, pod, [probe.portName, probe.portNumber]);
  if (!server || server.routes.length === 0) {
    if (flags.probeNetworks.length > 0) return undefined;
    if (!server) {
      const refused = defaultPolicyRefusal(pod, probe.portNumber, flags.defaultPolicy, port);
      return refused && `gets no probe route (the control plane has no probe networks): ${refused}`;
    }
    return server.allows(client)
      ? undefined
      : `gets no probe route (the control plane has no probe networks), and Server ${namespace}/${server.name} on its ${port} authorizes no client outside the mesh`;
  }
  const matching = server.routes.filter((r) => routeMatchesGet(r.spec, probe.path));
  if (matching.length === 0)
    return `reaches Server ${namespace}/${server.name}, which has routes, and none matches it`;
  if (server.allows(client) || matching.some((r) => server.routeAllows(r, client))) return undefined;
  return `reaches Server ${namespace}/${server.name}, which has routes, and no route that matches it is authorized from ${from}`;
}
