import {
  HelmTemplater,
  caKeys,
  caKeysConfined,
  checkClusterInvariants,
  findHelm,
  joinObjectSet,
  objectSetOf,
  scrapeTargets,
  scrapesPassTheMesh,
  secretReadGrants,
  grantReads,
  type KubeObject,
  type ObjectSet,
} from "../../lib/cluster";
import type { MeshGrant, MeshSource } from "../../lib/meshes";
import { selects } from "../../lib/manifests/selectors";
import { clusterInputOf, viewsOf, type RenderResult } from "../../lib/render";
import { meshGrantsOf, networkPolicyModel, type NetworkPolicyModel } from "../../lib/safety/meshInvariants";
import type { ResourceView } from "../../lib/safety/resources";
import {
  googleLoadBalancerRanges,
  ingressControllerIdentities,
  istioFacts,
  linkerdFacts,
  supportedKubernetes,
} from "../../lib/versions";
import { meshVariants, teamCombinations, teamTargets, type Combination } from "../matrix";
import { chartsDir, helmChartsProblem } from "../upstream/reference";

/**
 * Two teams (test/matrix.ts `teamsInput`: payments in `payments` and `payments-jobs`, search in `search`
 * letting payments in) with each mesh, and each direction a call can take into a team's pods, asked of
 * the project's own models: the NetworkPolicy's (`networkPolicyModel`, the render's
 * `network-policy-admits-mesh-grants` semantics) and each mesh's authorization
 * (`MeshAdmission.grants`: the callers its policy lets in from another namespace or from outside the
 * cluster; `scrapeRefusal` and `probeRefusal` through the cluster tier's `scrapes-pass-the-mesh` and
 * `probes-authorized`, over the object set the pinned charts make). Where the mesh enforces per-request
 * policy (Linkerd, Istio's sidecars) both layers must agree; Istio ambient (no waypoints) and no mesh
 * leave isolation to the NetworkPolicy alone. What the models do not decide: a call within one namespace
 * at the mesh layer (`grants` names callers from other namespaces only), and kubelet's probes from the
 * node, which a NetworkPolicy always admits.
 */

/** Every team combination, each mesh variant with an in-cluster ingress and a Google load balancer. */
const cases: Combination[] = teamCombinations();
const renders = new Map<string, Promise<RenderResult>>();
function render(label: string): Promise<RenderResult> {
  const cached = renders.get(label);
  if (cached) return cached;
  const target = teamTargets().find((t) => t.label === label);
  if (!target) throw new Error(`no team target ${label}`);
  const result = target.render();
  renders.set(label, result);
  return result;
}

type Json = Record<string, unknown>;

/** A Deployment's pod labels, as the render writes them. */
function podLabels(views: readonly ResourceView[], namespace: string, name: string): Record<string, string> {
  const d = views.find((r) => {
    const m = r.inputs.metadata as Json | undefined;
    return r.inputs.kind === "Deployment" && m?.name === name && m.namespace === namespace;
  });
  if (!d) throw new Error(`no Deployment ${namespace}/${name}`);
  const template = (d.inputs.spec as { template: { metadata: { labels: Record<string, string> } } }).template;
  return template.metadata.labels;
}

/** The mesh grants that let `source` into the pods (a namespace's workloads, or a range within one granted). */
function grantsFor(
  grants: readonly MeshGrant[],
  namespace: string,
  labels: Record<string, string>,
  source: MeshSource,
): MeshGrant[] {
  return grants.filter(
    (g) =>
      g.namespace === namespace &&
      selects({ matchLabels: g.podLabels as Record<string, string> }, labels) &&
      ("namespace" in source
        ? "namespace" in g.source && g.source.namespace === source.namespace
        : "cidr" in g.source && g.source.cidr === source.cidr),
  );
}

/** The mesh a combination's variant runs: "linkerd", "istio" (sidecars), "ambient" or "none". */
function meshOf(c: Combination): "linkerd" | "istio" | "ambient" | "none" {
  const variant = meshVariants[c.mesh];
  if (variant.dataplane === "ambient") return "ambient";
  return variant.kind as "linkerd" | "istio" | "none";
}

/** Linkerd and Istio's sidecars enforce per-request authorization; ambient without waypoints and no mesh do not. */
const enforces = (c: Combination) => meshOf(c) === "linkerd" || meshOf(c) === "istio";

interface Pods {
  readonly namespace: string;
  readonly app: string;
  readonly port: number;
}
const checkout: Pods = { namespace: "payments", app: "checkout", port: 8080 };
const ledger: Pods = { namespace: "payments-jobs", app: "ledger", port: 9090 };
const search: Pods = { namespace: "search", app: "search", port: 9000 };

interface Layers {
  readonly np: NetworkPolicyModel;
  readonly grants: readonly MeshGrant[];
  readonly views: readonly ResourceView[];
}
async function layers(c: Combination): Promise<Layers> {
  const views = viewsOf(await render(c.label));
  return { views, np: networkPolicyModel(views), grants: meshGrantsOf(views) };
}

/**
 * A call from `source` into the pods: the NetworkPolicy's verdict on the app's port and, where the mesh
 * enforces, on each port its grant says meshed calls arrive on; and the mesh's grants.
 */
function verdict(l: Layers, pods: Pods, source: MeshSource) {
  const labels = podLabels(l.views, pods.namespace, pods.app);
  const target = { namespace: pods.namespace, podLabels: labels };
  const grants = grantsFor(l.grants, pods.namespace, labels, source);
  return {
    policies: l.np.policiesOf(target),
    appPort: l.np(target, source, pods.port),
    grantPorts: grants.flatMap((g) => g.ports).map((p) => [p, l.np(target, source, p)] as const),
    grantedBy: [...new Set(grants.map((g) => g.by))],
  };
}

describe.each(cases.map((c) => [c.label, c] as const))("%s", (_label, c) => {
  test("a team's own namespaces reach each other: payments-jobs -> payments' checkout, payments -> payments-jobs' ledger", async () => {
    const l = await layers(c);
    // The namespace's own pods: the NetworkPolicy's `podSelector: {}` peer (the grants model judges
    // callers from other namespaces only).
    const same = verdict(l, checkout, { namespace: "payments" });
    expect(same.policies).toEqual(["namespace-isolation"]);
    expect(same.appPort).toBe(true);
    for (const [pods, from] of [
      [checkout, "payments-jobs"],
      [ledger, "payments"],
    ] as const) {
      const v = verdict(l, pods, { namespace: from });
      expect(v.policies).toEqual(["namespace-isolation"]);
      expect(v.appPort).toBe(true);
      if (enforces(c)) {
        expect(v.grantedBy.length).toBeGreaterThan(0);
        // Every port a grant says meshed calls arrive on is admitted too.
        for (const [port, admitted] of v.grantPorts) expect([port, admitted]).toEqual([port, true]);
      } else expect(v.grantedBy).toEqual([]);
    }
  });

  test("allowFrom: payments' namespaces reach search's app", async () => {
    const l = await layers(c);
    for (const from of ["payments", "payments-jobs"]) {
      const v = verdict(l, search, { namespace: from });
      expect(v.appPort).toBe(true);
      if (enforces(c)) {
        // Istio: the app's ALLOW policy; Linkerd: the policies of the app's routes, each by a
        // MeshTLSAuthentication of its namespace (their names end in a hash of the route).
        if (meshOf(c) === "istio") expect(v.grantedBy).toEqual(["AuthorizationPolicy search/search"]);
        else {
          expect(v.grantedBy.length).toBeGreaterThan(0);
          for (const by of v.grantedBy)
            expect(by).toMatch(
              /^AuthorizationPolicy search\/search-[a-z]+-[a-z]+-[0-9a-f]{6}-mesh \(MeshTLSAuthentication search\/search-[a-z]+-[a-z]+-[0-9a-f]{6}\)$/,
            );
        }
        for (const [port, admitted] of v.grantPorts) expect([port, admitted]).toEqual([port, true]);
      }
    }
  });

  test("another team is refused: search (and a namespace of no team) -> payments' checkout and payments-jobs' ledger", async () => {
    const l = await layers(c);
    for (const pods of [checkout, ledger])
      for (const from of ["search", "default"]) {
        const v = verdict(l, pods, { namespace: from });
        expect(v.policies).toEqual(["namespace-isolation"]);
        // The NetworkPolicy refuses the app's port and the meshed call ports (Linkerd's proxy port,
        // ambient's HBONE port), whatever the monitoring: an existing Prometheus is let in from its own
        // namespace only (the matrix's prometheusUrl names observability).
        const expected: [string | number, boolean][] = [
          [pods.port, false],
          [linkerdFacts.proxyInboundPortNumber, false],
          // The model judges the port's name by the number the injected proxy declares for it.
          [linkerdFacts.proxyInboundPort, false],
          [istioFacts.hbonePort, false],
        ];
        const target = { namespace: pods.namespace, podLabels: podLabels(l.views, pods.namespace, pods.app) };
        expect([
          from,
          pods.app,
          expected.map(([port]) => [port, l.np(target, { namespace: from }, port)]),
        ]).toEqual([from, pods.app, expected]);
        expect(v.appPort).toBe(expected[0][1]);
        // The mesh grants it nothing.
        expect(v.grantedBy).toEqual([]);
      }
    if (!enforces(c)) return;
    // And the mesh closes the namespace, so that what it does not grant it refuses.
    const objects = l.views.map((r) => r.inputs as Json);
    for (const ns of ["payments", "payments-jobs"]) {
      if (meshOf(c) === "istio")
        expect(
          objects.filter(
            (o) =>
              o.kind === "AuthorizationPolicy" &&
              (o.metadata as Json).namespace === ns &&
              (o.metadata as Json).name === "deny-by-default",
          ),
        ).toEqual([expect.objectContaining({ spec: {} })]);
      else {
        const namespace = objects.find((o) => o.kind === "Namespace" && (o.metadata as Json).name === ns);
        expect(
          ((namespace?.metadata as Json).annotations as Json)["config.linkerd.io/default-inbound-policy"],
        ).toBe("deny");
        // Linkerd lets the cluster's own addresses (kubelet's probes, the monitoring's scrapes) GET the
        // probe and metrics paths, by NetworkAuthentication: another team's pods have such addresses
        // too, so on these routes only the NetworkPolicy refuses them.
        const byNetwork = objects
          .filter(
            (o) =>
              o.kind === "AuthorizationPolicy" &&
              (o.metadata as Json).namespace === ns &&
              // The NetworkAuthentication of the cluster's networks (`<app>-cluster`), not a load balancer's.
              ((o.spec as Json).requiredAuthenticationRefs as Json[]).some(
                (r) => r.kind === "NetworkAuthentication" && String(r.name).endsWith("-cluster"),
              ),
          )
          .map((o) => String(((o.spec as Json).targetRef as Json).name));
        const routeMatches = objects
          .filter(
            (o) =>
              o.kind === "HTTPRoute" &&
              (o.metadata as Json).namespace === ns &&
              byNetwork.includes(String((o.metadata as Json).name)),
          )
          .flatMap((o) => ((o.spec as Json).rules as Json[]).flatMap((r) => r.matches as Json[]))
          .map((m) => `${String(m.method)} ${String((m.path as Json).value)}`)
          .sort();
        expect([ns, routeMatches]).toEqual([
          ns,
          ns === "payments" && c.backend !== "none"
            ? ["GET /", "GET /live", "GET /metrics", "GET /metrics", "GET /ready"]
            : ["GET /", "GET /live", "GET /metrics", "GET /ready"],
        ]);
        // Each Server (the app's port, the proxy's admin port) denies what no AuthorizationPolicy allows.
        expect(
          objects
            .filter((o) => o.kind === "Server" && (o.metadata as Json).namespace === ns)
            .map((o) => `${String((o.metadata as Json).name)} ${String((o.spec as Json).accessPolicy)}`)
            .sort(),
        ).toEqual([`${ns === "payments" ? "checkout" : "ledger"} deny`, "linkerd-proxy-admin deny"]);
      }
    }
  });

  test("the ingress reaches the team's exposed apps", async () => {
    const l = await layers(c);
    const ingress = (c.input.ingress as { kind: string }).kind;
    for (const pods of [checkout, search]) {
      if (ingress === "traefik" || ingress === "ingress-nginx") {
        const v = verdict(l, pods, { namespace: ingressControllerIdentities[ingress].namespace });
        expect(v.appPort).toBe(true);
        if (enforces(c)) {
          expect(v.grantedBy.length).toBeGreaterThan(0);
          for (const [port, admitted] of v.grantPorts) expect([port, admitted]).toEqual([port, true]);
        }
        continue;
      }
      // Google's load balancers reach NEG-backed pods by address: the front ends' and health checks'
      // ranges, and the proxy-only subnet's for the regional classes.
      const proxyOnly = l.views
        .filter(
          (r) =>
            r.type === "gcp:compute/subnetwork:Subnetwork" && r.inputs.purpose === "REGIONAL_MANAGED_PROXY",
        )
        .map((r) => String(r.inputs.ipCidrRange));
      const gatewayClass = (c.input.ingress as { gatewayClass?: string }).gatewayClass;
      const sources = gatewayClass
        ? [...googleLoadBalancerRanges, ...proxyOnly]
        : [...googleLoadBalancerRanges];
      if (gatewayClass) expect(proxyOnly).toHaveLength(1);
      for (const cidr of sources) {
        const v = verdict(l, pods, { cidr });
        expect([cidr, v.appPort]).toEqual([cidr, true]);
        if (enforces(c)) expect([cidr, v.grantedBy.length > 0]).toEqual([cidr, true]);
      }
    }
  });
});

const helm = findHelm();
const missing = helmChartsProblem(helm);

(missing ? describe.skip : describe)(
  `scrapes and probes of the team's pods, over the object set the pinned charts make${missing ? ` (skipped: ${missing})` : ""}`,
  () => {
    const templater = new HelmTemplater(helm ?? "helm", 2);
    const sets = new Map<string, Promise<ObjectSet>>();
    const setOf = (c: Combination): Promise<ObjectSet> => {
      const cached = sets.get(c.label);
      if (cached) return cached;
      const made = render(c.label).then((result) =>
        objectSetOf(clusterInputOf(c.label, c.tier, result), {
          templater,
          chartsDir: chartsDir ?? "",
          kubeVersion: supportedKubernetes.highest,
        }),
      );
      sets.set(c.label, made);
      return made;
    };
    /** Where the monitoring scrapes from, as the NetworkPolicy sees it: an existing Prometheus from its prometheusUrl's namespace. */
    const scraper: Record<string, string> = {
      prometheus: "monitoring",
      "managed-prometheus": "gmp-system",
      "existing-prometheus": "observability",
    };

    test.each(cases.filter((c) => c.backend !== "none").map((c) => [c.label, c] as const))(
      "%s: the monitoring scrapes checkout's and search's metrics through both layers",
      async (_label, c) => {
        const set = await setOf(c);
        const l = await layers(c);
        for (const pods of [checkout, search]) {
          const targets = scrapeTargets(set).filter(
            (t) =>
              t.pod?.owner.metadata.name === pods.app &&
              t.pod.namespace === pods.namespace &&
              t.monitor.endsWith(` ${pods.namespace}/${pods.app}`),
          );
          expect(targets.length).toBeGreaterThan(0);
          for (const t of targets) {
            // The pod is in the mesh the combination runs, so the mesh's scrape model is asked.
            const mesh = meshOf(c);
            const inMesh = mesh === "none" ? undefined : mesh === "ambient" ? t.pod?.captured : t.pod?.proxy;
            expect(inMesh).toBe(mesh === "none" ? undefined : mesh === "ambient" ? "istio" : mesh);
            const admitted = l.np(
              { namespace: pods.namespace, podLabels: podLabels(l.views, pods.namespace, pods.app) },
              { namespace: scraper[c.backend] },
              t.port ?? -1,
            );
            expect([t.monitor, t.port, admitted]).toEqual([t.monitor, t.port, true]);
          }
          expect(scrapesPassTheMesh(set).filter((f) => targets.some((t) => t.monitor === f.object))).toEqual(
            [],
          );
        }
      },
    );

    test.each(cases.map((c) => [c.label, c] as const))(
      "%s: kubelet's probes of the team's pods get through both layers",
      async (_label, c) => {
        const set = await setOf(c);
        const l = await layers(c);
        const teamPods = set.pods.filter((p) =>
          ["payments", "payments-jobs", "search"].includes(p.namespace),
        );
        expect(teamPods.map((p) => p.owner.metadata.name).sort()).toEqual(["checkout", "ledger", "search"]);
        for (const p of teamPods) {
          const probed = p.containers.filter((x) => {
            const probes = x as { readinessProbe?: unknown; livenessProbe?: unknown };
            return probes.readinessProbe !== undefined || probes.livenessProbe !== undefined;
          });
          expect([p.owner.metadata.name, probed.length > 0]).toEqual([p.owner.metadata.name, true]);
        }
        expect(
          checkClusterInvariants(set).filter(
            (f) => f.invariant === "probes-authorized" && /payments|search/.test(f.object),
          ),
        ).toEqual([]);
        // Kubelet probes from the node, which a NetworkPolicy always admits, but on ambient, where
        // istio-cni rewrites them to come from its SNAT address: the NetworkPolicy must admit that.
        if (meshOf(c) === "ambient")
          for (const pods of [checkout, ledger, search])
            expect(
              l.np(
                { namespace: pods.namespace, podLabels: podLabels(l.views, pods.namespace, pods.app) },
                { cidr: istioFacts.probeSnatAddress },
                pods.port,
              ),
            ).toBe(true);
      },
    );
  },
);

/** The CA keys each mesh's render holds (`caKeys`), by mesh. */
const meshKeys: Record<string, string[]> = {
  linkerd: [
    "cert-manager/linkerd-trust-anchor",
    "linkerd/linkerd-identity-issuer",
    "linkerd/linkerd-webhook-ca",
  ],
  istio: ["cert-manager/istio-root-ca", "istio-system/istio-intermediate-ca"],
  ambient: ["cert-manager/istio-root-ca", "istio-system/istio-intermediate-ca"],
};
const teamNamespaces = ["payments", "payments-jobs", "search"];

describe.each(
  Object.keys(meshKeys).map((mesh) => [mesh, cases.find((c) => meshOf(c) === mesh)?.label ?? ""] as const),
)("ca-keys-confined sees the teams' RoleBindings: %s (%s)", (mesh, label) => {
  /** The platform's objects of the render, as the cluster receives them (the charts' RBAC is the tier's). */
  const platformSet = async (extra: KubeObject[] = []): Promise<ObjectSet> => {
    const input = clusterInputOf(label, "prod", await render(label));
    return joinObjectSet(
      { ...input, objects: [...input.objects, ...extra] },
      [],
      supportedKubernetes.highest,
      [],
    );
  };

  test("every team subject is bound in the team's namespaces only, and reads no CA key", async () => {
    const set = await platformSet();
    const keys = caKeys(set);
    expect(keys.map((k) => `${k.namespace}/${k.name}`).sort()).toEqual(meshKeys[mesh]);
    // Never a ClusterRoleBinding; each RoleBinding in one of the team's namespaces.
    const bindings = set.objects.filter(
      (o) => /^(Cluster)?RoleBinding$/.test(o.kind) && o.metadata.name.startsWith("team-"),
    );
    expect(bindings.map((b) => `${b.kind} ${b.metadata.namespace}/${b.metadata.name}`).sort()).toEqual([
      "RoleBinding payments-jobs/team-payments-edit",
      "RoleBinding payments-jobs/team-payments-view",
      "RoleBinding payments/team-payments-edit",
      "RoleBinding payments/team-payments-view",
      "RoleBinding search/team-search-admin",
    ]);
    const team = secretReadGrants(set.objects).filter((g) => g.binding.metadata.name.startsWith("team-"));
    // view reads no Secret, so only the edit and admin bindings grant any; each in its own namespace.
    expect(
      team
        .map(
          (g) =>
            `${g.binding.metadata.namespace}/${g.binding.metadata.name} ${g.subject.kind} ${g.subject.name} ${g.role} in ${g.namespace}`,
        )
        .sort(),
    ).toEqual([
      "payments-jobs/team-payments-edit Group payments-devs@example.com ClusterRole edit in payments-jobs",
      "payments-jobs/team-payments-edit User alex@example.com ClusterRole edit in payments-jobs",
      "payments/team-payments-edit Group payments-devs@example.com ClusterRole edit in payments",
      "payments/team-payments-edit User alex@example.com ClusterRole edit in payments",
      "search/team-search-admin Group search-leads@example.com ClusterRole admin in search",
    ]);
    expect(team.every((g) => teamNamespaces.includes(g.namespace ?? ""))).toBe(true);
    expect(team.filter((g) => keys.some((k) => grantReads(g, k)))).toEqual([]);
    expect(caKeysConfined(set)).toEqual([]);
  });

  test("a team's edit bound in a namespace of the mesh's CA keys is refused, naming each subject and key", async () => {
    const namespaces = [...new Set(meshKeys[mesh].map((k) => k.split("/")[0]))];
    const set = await platformSet(
      namespaces.map((namespace) => ({
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: "team-payments-edit", namespace },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "edit" },
        subjects: [
          { apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "payments-devs@example.com" },
          { apiGroup: "rbac.authorization.k8s.io", kind: "User", name: "alex@example.com" },
        ],
      })),
    );
    expect(
      caKeysConfined(set)
        .map((f) => `${f.object}: ${f.message.split(" (")[0]}`)
        .sort(),
    ).toEqual(
      meshKeys[mesh]
        .flatMap((key) =>
          ["Group payments-devs@example.com", "User alex@example.com"].map(
            (who) => `RoleBinding ${key.split("/")[0]}/team-payments-edit: lets ${who} read Secret ${key}`,
          ),
        )
        .sort(),
    );
  });
});
