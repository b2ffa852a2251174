import { ApiObject } from "cdk8s";
import { Construct } from "constructs";

/** A host and path prefix an app of a team's namespace is exposed on (`apps[].expose`). */
export interface TeamRoute {
  readonly host: string;
  /** A path prefix of whole segments: `/` is the whole host, `/search` is `/search` and `/search/...`. */
  readonly path: string;
}

/** A kind a route may name as its parent (`parentRefs[].group` and `kind`; the core group is ""). */
export interface RouteParentKind {
  readonly group: string;
  readonly kind: string;
}

export interface TeamRoutesProps {
  readonly namespace: string;
  /** The only hosts and path prefixes the namespace's Ingresses and Gateway routes may claim; none: no route at all. */
  readonly routes: readonly TeamRoute[];
  /**
   * The parents of routes that carry east-west calls only, the meshes' (lib/meshes `eastWestRouteParents`):
   * a route whose every parent is one of them is not on a Gateway, and the policy leaves it alone.
   */
  readonly eastWestParents: readonly RouteParentKind[];
}

/**
 * Characters a route's path may hold: RFC 3986 path characters without the regex operators (`( ) [ ] { }
 * | ^ $ * + ? \`), so a path is a literal prefix even where ingress-nginx reads paths as regexes (its
 * `use-regex` annotation applies to every path of the host, across Ingresses).
 */
const literalPath = "^[A-Za-z0-9/_.~%:@!&',;=-]*$";

/** A CEL string literal. */
function cel(text: string): string {
  return `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}

/** The path prefix without its trailing slash: `/` becomes the empty prefix every path starts under. */
function prefixOf(path: string): string {
  return path.replace(/\/$/, "");
}

/**
 * CEL: whether the request path `p` on host `h` (both CEL expressions) is under one of the routes
 * (`variables.routes`): a literal path equal to the prefix or under it by whole segments, or the one regex
 * the platform writes itself, ingress-nginx's prefix strip `<prefix>(/|$)(.*)` (lib/manifests/exposure.ts),
 * which matches only under the prefix.
 */
function underRoutes(h: string, p: string): string {
  return (
    `variables.routes.exists(a, a.host == ${h} && ((${p} == a.prefix || ${p}.startsWith(a.prefix + '/')) && ` +
    `${p}.matches(${cel(literalPath)}) || a.prefix != '' && ${p} == a.prefix + '(/|$)(.*)'))`
  );
}

/** CEL: whether the parentRef `p` is of a kind; the core group also as `core`, which routes may write. */
function parentIs(parent: RouteParentKind): string {
  const group = parent.group === "" ? "p.group in ['', 'core']" : `p.group == ${cel(parent.group)}`;
  return `p.kind == ${cel(parent.kind)} && ${group}`;
}

/** The routes as the refusal's message names them. */
function allowedText(routes: readonly TeamRoute[]): string {
  if (routes.length === 0) return "none: no app of the namespace is exposed";
  return routes
    .map((r) => `${r.host}${r.path === "/" ? " (every path)" : ` (paths under ${r.path})`}`)
    .join(", ");
}

/**
 * Confines the Ingresses, HTTPRoutes and GRPCRoutes of one team namespace to the hosts and path prefixes
 * the platform exposes its apps on: the shared controllers (Traefik and ingress-nginx read Ingresses of
 * every namespace) and the shared Gateway (its https listener has no hostname and admits routes from every
 * namespace labelled for it) would otherwise send another team's host or path to whatever an editor of this
 * namespace names (Kubernetes' `edit` role writes Ingresses: bootstrappolicy/policy.go at v1.36.3).
 *
 * A ValidatingAdmissionPolicy, bound with `Deny` to this namespace only, refuses on create and update:
 *   - an Ingress with a `defaultBackend`, a rule without a host, a rule's host and path not under one of
 *     the routes, or a `tls` entry without hosts or with a host that is not one of them;
 *   - an HTTPRoute on a Gateway (any parent but an east-west one, `eastWestParents`) without hostnames, with a
 *     hostname not among them, or with a match (absent: `/`) whose path is not under a route of each
 *     hostname, or is a RegularExpression;
 *   - a GRPCRoute on a Gateway whose hostnames are not hosts exposed whole (path `/`): gRPC paths are
 *     the service's, not the app's prefix.
 * The routes are CEL literals in the expressions, not a params ConfigMap: the policy then stands alone,
 * and nothing a team may edit (a ConfigMap in its namespace) widens it.
 */
export class TeamRoutes extends Construct {
  constructor(scope: Construct, id: string, props: TeamRoutesProps) {
    super(scope, id);
    // By namespace, which is one team's only: `team-<team>-<namespace>` could be two teams' (a + b-c, a-b + c).
    const name = `team-routes-${props.namespace}`;
    const routes = props.routes;
    const hosts = [...new Set(routes.map((r) => r.host))];
    const wholeHosts = [...new Set(routes.filter((r) => prefixOf(r.path) === "").map((r) => r.host))];
    const list = (items: readonly string[]) => `[${items.map(cel).join(", ")}]`;
    const fix = `; to publish another host or path, ask the platform team to add the app to platform:apps with expose (docs/teams.md)`;
    const allowed = `namespace ${props.namespace} may route only ${allowedText(routes)}`;
    const isIngress = "request.resource.resource != 'ingresses'";
    const isHttpRoute = "request.resource.resource != 'httproutes' || !variables.onGateway";
    const isGrpcRoute = "request.resource.resource != 'grpcroutes' || !variables.onGateway";
    new ApiObject(this, "policy", {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name },
      spec: {
        // Fail closed: a route the policy cannot judge is not published.
        failurePolicy: "Fail",
        matchConstraints: {
          resourceRules: [
            {
              apiGroups: ["networking.k8s.io"],
              apiVersions: ["*"],
              operations: ["CREATE", "UPDATE"],
              resources: ["ingresses"],
            },
            {
              apiGroups: ["gateway.networking.k8s.io"],
              apiVersions: ["*"],
              operations: ["CREATE", "UPDATE"],
              resources: ["httproutes", "grpcroutes"],
            },
          ],
        },
        variables: [
          {
            name: "routes",
            expression: `[${routes.map((r) => `{'host': ${cel(r.host)}, 'prefix': ${cel(prefixOf(r.path))}}`).join(", ")}]`,
          },
          { name: "hosts", expression: list(hosts) },
          { name: "wholeHosts", expression: list(wholeHosts) },
          {
            // Routes whose every parent is a mesh's carry east-west calls only.
            name: "onGateway",
            expression:
              "!has(object.spec.parentRefs) || object.spec.parentRefs.exists(p, !(has(p.kind) && has(p.group) && " +
              `(${props.eastWestParents.map(parentIs).join(" || ")})))`,
          },
        ],
        validations: [
          {
            expression: `${isIngress} || !has(object.spec.defaultBackend)`,
            message: `An Ingress may not have a defaultBackend: it would take every host and path; ${allowed}${fix}`,
            reason: "Forbidden",
          },
          {
            expression:
              `${isIngress} || !has(object.spec.rules) || object.spec.rules.all(r, has(r.host) && ` +
              `(!has(r.http) ? r.host in variables.hosts : ` +
              `r.http.paths.map(p, has(p.path) ? p.path : '/').all(p, ${underRoutes("r.host", "p")})))`,
            message: `Every rule of an Ingress needs a host and paths under a route of the namespace; ${allowed}${fix}`,
            reason: "Forbidden",
          },
          {
            expression:
              `${isIngress} || !has(object.spec.tls) || object.spec.tls.all(t, has(t.hosts) && ` +
              "size(t.hosts) > 0 && t.hosts.all(h, h in variables.hosts))",
            message: `Every tls entry of an Ingress needs hosts, each a host of the namespace; ${allowed}${fix}`,
            reason: "Forbidden",
          },
          {
            // Each rule's paths (a rule without matches, or a match without path, is `/`) under a route of each hostname.
            expression:
              `${isHttpRoute} || (has(object.spec.hostnames) && size(object.spec.hostnames) > 0 && ` +
              "object.spec.hostnames.all(h, h in variables.hosts) && " +
              "(has(object.spec.rules) ? object.spec.rules : [{}]).all(r, " +
              "(has(r.matches) && size(r.matches) > 0 ? r.matches : [{}]).all(m, " +
              "!has(m.path) || !has(m.path.type) || m.path.type in ['PathPrefix', 'Exact']) && " +
              "(has(r.matches) && size(r.matches) > 0 ? r.matches : [{}])" +
              ".map(m, has(m.path) && has(m.path.value) ? m.path.value : '/')" +
              `.all(p, object.spec.hostnames.all(h, ${underRoutes("h", "p")}))))`,
            message: `An HTTPRoute on a Gateway needs hostnames of the namespace and path matches (PathPrefix or Exact; none is /) under a route of each hostname; ${allowed}${fix}`,
            reason: "Forbidden",
          },
          {
            expression:
              `${isGrpcRoute} || (has(object.spec.hostnames) && size(object.spec.hostnames) > 0 && ` +
              "object.spec.hostnames.all(h, h in variables.wholeHosts))",
            message: `A GRPCRoute on a Gateway needs hostnames the namespace is exposed on whole (path /); ${allowed}${fix}`,
            reason: "Forbidden",
          },
        ],
      },
    });
    new ApiObject(this, "binding", {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name },
      spec: {
        policyName: name,
        validationActions: ["Deny"],
        matchResources: {
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": props.namespace } },
        },
      },
    });
  }
}
