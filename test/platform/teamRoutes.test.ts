import * as path from "path";
import { renderProject, type RenderResult } from "../../lib/render";

/**
 * The routes policy of each team namespace (docs/teams.md): examples/teams' ValidatingAdmissionPolicies and
 * their bindings, exactly. test/real/teams.ts holds the same policy to a real API server's admission.
 */

/** The expressions are the same in every namespace; the namespace's routes are its variables. */
const validations = (allowed: string) => {
  const fix = `; namespace ${allowed}; to publish another host or path, ask the platform team to add the app to platform:apps with expose (docs/teams.md)`;
  return [
    {
      expression: "request.resource.resource != 'ingresses' || !has(object.spec.defaultBackend)",
      message: `An Ingress may not have a defaultBackend: it would take every host and path${fix}`,
      reason: "Forbidden",
    },
    {
      expression:
        "request.resource.resource != 'ingresses' || !has(object.spec.rules) || object.spec.rules.all(r, has(r.host) && (!has(r.http) ? r.host in variables.hosts : r.http.paths.map(p, has(p.path) ? p.path : '/').all(p, variables.routes.exists(a, a.host == r.host && ((p == a.prefix || p.startsWith(a.prefix + '/')) && p.matches('^[A-Za-z0-9/_.~%:@!&\\',;=-]*$') || a.prefix != '' && p == a.prefix + '(/|$)(.*)')))))",
      message: `Every rule of an Ingress needs a host and paths under a route of the namespace${fix}`,
      reason: "Forbidden",
    },
    {
      expression:
        "request.resource.resource != 'ingresses' || !has(object.spec.tls) || object.spec.tls.all(t, has(t.hosts) && size(t.hosts) > 0 && t.hosts.all(h, h in variables.hosts))",
      message: `Every tls entry of an Ingress needs hosts, each a host of the namespace${fix}`,
      reason: "Forbidden",
    },
    {
      expression:
        "request.resource.resource != 'httproutes' || !variables.onGateway || (has(object.spec.hostnames) && size(object.spec.hostnames) > 0 && object.spec.hostnames.all(h, h in variables.hosts) && (has(object.spec.rules) ? object.spec.rules : [{}]).all(r, (has(r.matches) && size(r.matches) > 0 ? r.matches : [{}]).all(m, !has(m.path) || !has(m.path.type) || m.path.type in ['PathPrefix', 'Exact']) && (has(r.matches) && size(r.matches) > 0 ? r.matches : [{}]).map(m, has(m.path) && has(m.path.value) ? m.path.value : '/').all(p, object.spec.hostnames.all(h, variables.routes.exists(a, a.host == h && ((p == a.prefix || p.startsWith(a.prefix + '/')) && p.matches('^[A-Za-z0-9/_.~%:@!&\\',;=-]*$') || a.prefix != '' && p == a.prefix + '(/|$)(.*)'))))))",
      message: `An HTTPRoute on a Gateway needs hostnames of the namespace and path matches (PathPrefix or Exact; none is /) under a route of each hostname${fix}`,
      reason: "Forbidden",
    },
    {
      expression:
        "request.resource.resource != 'grpcroutes' || !variables.onGateway || (has(object.spec.hostnames) && size(object.spec.hostnames) > 0 && object.spec.hostnames.all(h, h in variables.wholeHosts))",
      message: `A GRPCRoute on a Gateway needs hostnames the namespace is exposed on whole (path /)${fix}`,
      reason: "Forbidden",
    },
  ];
};

function policy(namespace: string, routes: string, hosts: string, allowed: string) {
  const name = `team-routes-${namespace}`;
  return [
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name },
      spec: {
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
          { name: "routes", expression: routes },
          { name: "hosts", expression: hosts },
          // No namespace of examples/teams is exposed on a whole host (path /).
          { name: "wholeHosts", expression: "[]" },
          {
            name: "onGateway",
            expression:
              "!has(object.spec.parentRefs) || object.spec.parentRefs.exists(p, !(has(p.kind) && has(p.group) && (p.kind == 'Service' && p.group in ['', 'core'] || p.kind == 'Server' && p.group == 'policy.linkerd.io')))",
          },
        ],
        validations: validations(allowed),
      },
    },
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name },
      spec: {
        policyName: name,
        validationActions: ["Deny"],
        matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": namespace } } },
      },
    },
  ];
}

let result: RenderResult;
beforeAll(async () => {
  result = await renderProject(path.resolve(__dirname, "../../examples/teams"), "prod");
});

test("examples/teams: each team namespace may route only its exposed apps' hosts and path prefixes", () => {
  const rendered = result.resources
    .map((r) => r.inputs)
    .filter((o) => typeof o.kind === "string" && o.kind.startsWith("ValidatingAdmissionPolicy"));
  const none = "may route only none: no app of the namespace is exposed";
  expect(rendered).toEqual([
    ...policy(
      "payments",
      "[{'host': 'shop.acme.example', 'prefix': '/checkout'}]",
      "['shop.acme.example']",
      "payments may route only shop.acme.example (paths under /checkout)",
    ),
    ...policy(
      "search-api",
      "[{'host': 'shop.acme.example', 'prefix': '/search'}]",
      "['shop.acme.example']",
      "search-api may route only shop.acme.example (paths under /search)",
    ),
    ...policy("search-jobs", "[]", "[]", `search-jobs ${none}`),
    ...policy("shared", "[]", "[]", `shared ${none}`),
  ]);
});

test("the platform's own HTTPRoutes are exactly the allowed pairs: hostname and PathPrefix of each exposed app", () => {
  const routes = result.resources
    .map((r) => r.inputs)
    .filter((o) => o.kind === "HTTPRoute" && JSON.stringify(o).includes('"sectionName":"https"'))
    .map((o) => {
      const spec = o.spec as { hostnames: string[]; rules: { matches: { path: unknown }[] }[] };
      return {
        namespace: (o.metadata as { namespace: string }).namespace,
        hostnames: spec.hostnames,
        paths: spec.rules.flatMap((r) => r.matches.map((m) => m.path)),
      };
    });
  expect(routes).toEqual([
    {
      namespace: "payments",
      hostnames: ["shop.acme.example"],
      paths: [{ type: "PathPrefix", value: "/checkout" }],
    },
    {
      namespace: "search-api",
      hostnames: ["shop.acme.example"],
      paths: [{ type: "PathPrefix", value: "/search" }],
    },
  ]);
});
