import { charts } from "../versions";
import { meshAdmissions } from "../meshes/models";
import type { CrossingFinding } from "./crossings";
import type { ObjectSet } from "./objectSet";
import { nameOf, selects, type KubeObject, type LabelSelector, type PodTemplate } from "./objects";

/**
 * Who can read the Secrets that hold a CA's private key: a model of Kubernetes RBAC (Roles, ClusterRoles,
 * their aggregation, RoleBindings and ClusterRoleBindings, and the roles Kubernetes bootstraps itself)
 * over the whole object set a cluster receives, and the `ca-keys-confined` invariant it answers: only
 * the component that owns a CA key, the readers the platform accepts, and Kubernetes' own identities,
 * may read it.
 */

/** A Secret holding a CA's private key, and why it is one. */
export interface CaKey {
  readonly namespace: string;
  readonly name: string;
  /** What makes it a CA key, e.g. `the CA of ClusterIssuer linkerd-identity-issuer`. */
  readonly why: string;
}

/** One rule of a Role or ClusterRole (rbac.authorization.k8s.io/v1 PolicyRule). */
export interface PolicyRule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly verbs?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

/** Who a binding grants to (rbac.authorization.k8s.io/v1 Subject). */
export interface Subject {
  readonly kind: string;
  readonly name: string;
  readonly namespace?: string;
}

/** One way a subject can read Secrets: through a binding and the role it names. */
export interface SecretReadGrant {
  readonly subject: Subject;
  /** The RoleBinding or ClusterRoleBinding. */
  readonly binding: KubeObject;
  /** The role the binding names, as `ClusterRole name` or `Role namespace/name`. */
  readonly role: string;
  /** Where it reads: a RoleBinding's namespace; undefined for every namespace (a ClusterRoleBinding's). */
  readonly namespace?: string;
  /** The Secrets' names it may read; undefined for every Secret there. */
  readonly resourceNames?: readonly string[];
  /** The verbs that read (`get`, `list`, `watch`, `*`). */
  readonly verbs: readonly string[];
  /** The ClusterRoles that gave the rule, where the role aggregates others. */
  readonly via?: readonly string[];
}

/** A role as RBAC reads it: its rules, or the label selectors it aggregates by. */
interface RoleModel {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly rules: readonly PolicyRule[];
  readonly aggregationRule?: { readonly clusterRoleSelectors?: readonly LabelSelector[] };
}

const aggregateTo = (role: string) => `rbac.authorization.k8s.io/aggregate-to-${role}`;
const secretsRead = (verbs: readonly string[]): PolicyRule => ({
  apiGroups: [""],
  resources: ["secrets"],
  verbs,
});

/**
 * The ClusterRoles Kubernetes bootstraps that can read Secrets, and the aggregation of `admin`, `edit` and
 * `view`: only their rules on Secrets are modelled (kubernetes v1.36.3
 * plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go: ClusterRoles(), editRules(), NodeRules()).
 * `view` aggregates `system:aggregate-to-view`, which never names Secrets; `edit` aggregates
 * `system:aggregate-to-edit` (Read and Write on secrets) and `view`; `admin` aggregates `edit`.
 */
export const bootstrapClusterRoles: readonly RoleModel[] = [
  { name: "cluster-admin", labels: {}, rules: [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }] },
  {
    name: "admin",
    labels: {},
    rules: [],
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [aggregateTo("admin")]: "true" } }] },
  },
  {
    name: "edit",
    labels: { [aggregateTo("admin")]: "true" },
    rules: [],
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [aggregateTo("edit")]: "true" } }] },
  },
  {
    name: "view",
    labels: { [aggregateTo("edit")]: "true" },
    rules: [],
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [aggregateTo("view")]: "true" } }] },
  },
  { name: "system:aggregate-to-admin", labels: { [aggregateTo("admin")]: "true" }, rules: [] },
  {
    name: "system:aggregate-to-edit",
    labels: { [aggregateTo("edit")]: "true" },
    rules: [secretsRead(["get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"])],
  },
  { name: "system:aggregate-to-view", labels: { [aggregateTo("view")]: "true" }, rules: [] },
  // The kubelet's role; the Node authorizer narrows it to the Secrets of a node's own pods.
  { name: "system:node", labels: {}, rules: [secretsRead(["get", "list", "watch"])] },
  { name: "system:kube-controller-manager", labels: {}, rules: [secretsRead(["get"])] },
];

/** Roles Kubernetes bootstraps in kube-system that read Secrets (bootstrappolicy/namespace_policy.go at v1.36.3). */
export const bootstrapRoles: readonly (RoleModel & { readonly namespace: string })[] = [
  {
    namespace: "kube-system",
    name: "system:controller:bootstrap-signer",
    labels: {},
    rules: [secretsRead(["get", "list", "watch"])],
  },
  {
    namespace: "kube-system",
    name: "system:controller:token-cleaner",
    labels: {},
    rules: [secretsRead(["get", "list", "watch", "delete"])],
  },
];

const readVerbs = ["get", "list", "watch"];

/** The verbs of a rule that read a Secret, if the rule covers Secrets in the core group. */
function secretReadVerbs(rule: PolicyRule): string[] {
  // An RBAC rule matches by group, resource and verb; `*` matches any (pkg/apis/rbac/v1/evaluation_helpers.go).
  const groups = rule.apiGroups ?? [];
  const resources = rule.resources ?? [];
  if (!groups.some((g) => g === "" || g === "*")) return [];
  if (!resources.some((r) => r === "secrets" || r === "*")) return [];
  return (rule.verbs ?? []).filter((v) => v === "*" || readVerbs.includes(v));
}

function roleModel(o: KubeObject): RoleModel {
  return {
    name: o.metadata.name,
    labels: o.metadata.labels ?? {},
    rules: (o.rules ?? []) as PolicyRule[],
    aggregationRule: o.aggregationRule as RoleModel["aggregationRule"],
  };
}

/** A role's rules that read Secrets, each with the ClusterRoles it came through (aggregation resolved). */
function readingRules(
  role: RoleModel,
  clusterRoles: readonly RoleModel[],
  seen: ReadonlySet<string> = new Set(),
): { rule: PolicyRule; via: string[] }[] {
  // The aggregation controller replaces an aggregated ClusterRole's rules with the union of those of every
  // ClusterRole its selectors match (pkg/controller/clusterroleaggregation at v1.36.3).
  if (role.aggregationRule) {
    const selectors = role.aggregationRule.clusterRoleSelectors ?? [];
    const next = new Set([...seen, role.name]);
    return clusterRoles
      .filter((r) => !next.has(r.name) && selectors.some((s) => selects(s, r.labels)))
      .flatMap((r) =>
        readingRules(r, clusterRoles, next).map(({ rule, via }) => ({ rule, via: [r.name, ...via] })),
      );
  }
  return role.rules.filter((r) => secretReadVerbs(r).length > 0).map((rule) => ({ rule, via: [] }));
}

/** Every ClusterRole of the set, with Kubernetes' own that the set does not replace. */
function clusterRolesOf(objects: readonly KubeObject[]): RoleModel[] {
  const own = objects.filter((o) => o.kind === "ClusterRole").map(roleModel);
  const names = new Set(own.map((r) => r.name));
  return [...own, ...bootstrapClusterRoles.filter((r) => !names.has(r.name))];
}

/**
 * Every grant of the set that lets a subject read Secrets: each RoleBinding and ClusterRoleBinding, the
 * role it names (aggregation resolved, Kubernetes' bootstrap roles where the set does not hold them), its
 * rules on Secrets with their verbs and resourceNames, and where they apply. A binding whose role exists
 * nowhere grants nothing, as RBAC has it.
 */
export function secretReadGrants(objects: readonly KubeObject[]): SecretReadGrant[] {
  const clusterRoles = clusterRolesOf(objects);
  const roles = [
    ...objects
      .filter((o) => o.kind === "Role")
      .map((o) => ({ ...roleModel(o), namespace: o.metadata.namespace ?? "default" })),
    ...bootstrapRoles,
  ];
  const grants: SecretReadGrant[] = [];
  for (const binding of objects) {
    if (binding.kind !== "RoleBinding" && binding.kind !== "ClusterRoleBinding") continue;
    const ref = binding.roleRef as { kind?: string; name?: string } | undefined;
    const subjects = (binding.subjects ?? []) as Subject[];
    const bindingNamespace = binding.metadata.namespace ?? "default";
    // A ClusterRoleBinding may only name a ClusterRole (pkg/apis/rbac/validation at v1.36.3).
    const role =
      ref?.kind === "ClusterRole"
        ? clusterRoles.find((r) => r.name === ref.name)
        : binding.kind === "RoleBinding" && ref?.kind === "Role"
          ? roles.find((r) => r.name === ref.name && r.namespace === bindingNamespace)
          : undefined;
    if (!role || !ref) continue;
    const roleName = ref.kind === "Role" ? `Role ${bindingNamespace}/${ref.name}` : `ClusterRole ${ref.name}`;
    for (const { rule, via } of readingRules(role, clusterRoles)) {
      for (const subject of subjects) {
        grants.push({
          subject: {
            ...subject,
            // A ServiceAccount subject without a namespace is the RoleBinding's (plugin/pkg/auth/authorizer/rbac/rbac.go appliesToUser).
            ...(subject.kind === "ServiceAccount" && !subject.namespace
              ? { namespace: bindingNamespace }
              : {}),
          },
          binding,
          role: roleName,
          namespace: binding.kind === "ClusterRoleBinding" ? undefined : bindingNamespace,
          resourceNames: rule.resourceNames && rule.resourceNames.length > 0 ? rule.resourceNames : undefined,
          verbs: secretReadVerbs(rule),
          via: via.length > 0 ? via : undefined,
        });
      }
    }
  }
  return grants;
}

/** Whether a grant lets its subject read this Secret. */
export function grantReads(grant: SecretReadGrant, key: Pick<CaKey, "namespace" | "name">): boolean {
  return (
    (grant.namespace === undefined || grant.namespace === key.namespace) &&
    (grant.resourceNames === undefined || grant.resourceNames.includes(key.name))
  );
}

const certManagerGroup = "cert-manager.io/";

/** The namespace a ClusterIssuer reads its CA Secret from: the controller's `--cluster-resource-namespace`. */
export function clusterResourceNamespace(set: ObjectSet): string {
  const controller = certManagerPods(set, "controller")[0];
  const args = controller?.containers.flatMap((c) => ((c as { args?: string[] }).args ?? []).map(String));
  const flag = args?.find((a) => a.startsWith("--cluster-resource-namespace="));
  const value = flag?.slice("--cluster-resource-namespace=".length);
  // The chart's default is the controller's own namespace (templates/deployment.yaml at v1.21.2: $(POD_NAMESPACE)).
  if (!value || value === "$(POD_NAMESPACE)") return controller?.namespace ?? "cert-manager";
  return value;
}

/**
 * Every Secret of the set that holds a CA's private key: the Secret a cert-manager CA Issuer or
 * ClusterIssuer signs from (`spec.ca.secretName`, in the Issuer's namespace or, for a ClusterIssuer,
 * cert-manager's cluster resource namespace), and the Secret of every Certificate with `isCA: true`
 * (a mesh's trust anchor, identity issuer or intermediate, and any webhook CA).
 */
export function caKeys(set: ObjectSet): CaKey[] {
  const keys = new Map<string, CaKey>();
  const add = (namespace: string, name: string, why: string) => {
    const id = `${namespace}/${name}`;
    const known = keys.get(id);
    keys.set(id, { namespace, name, why: known ? `${known.why}; ${why}` : why });
  };
  const resources = clusterResourceNamespace(set);
  for (const o of set.objects) {
    if (!o.apiVersion.startsWith(certManagerGroup)) continue;
    const spec = (o.spec ?? {}) as { ca?: { secretName?: string }; isCA?: boolean; secretName?: string };
    if ((o.kind === "Issuer" || o.kind === "ClusterIssuer") && spec.ca?.secretName) {
      const ns = o.kind === "ClusterIssuer" ? resources : (o.metadata.namespace ?? "default");
      add(ns, spec.ca.secretName, `the CA ${nameOf(o)} signs with`);
    }
    if (o.kind === "Certificate" && spec.isCA === true && spec.secretName) {
      add(o.metadata.namespace ?? "default", spec.secretName, `the CA key ${nameOf(o)} writes`);
    }
  }
  return [...keys.values()].sort((a, b) =>
    `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`),
  );
}

/** The pods of the set's cert-manager release with this `app.kubernetes.io/component` label. */
function certManagerPods(set: ObjectSet, component: string): PodTemplate[] {
  return set.pods.filter(
    (p) =>
      set.releaseOf.get(p.owner)?.chart === charts.certManager.chart &&
      p.labels["app.kubernetes.io/component"] === component,
  );
}

/** Whether a pod belongs to a release of this chart and carries this label. */
const chartPod =
  (chart: string, label: string, value: string) =>
  (set: ObjectSet, pod: PodTemplate): boolean =>
    set.releaseOf.get(pod.owner)?.chart === chart && pod.labels[label] === value;

/** A component allowed to read CA keys: its pods, where it may read, and why. */
export interface KeyReader {
  readonly component: string;
  /** Whether a pod of the set is this component's. */
  readonly runs: (set: ObjectSet, pod: PodTemplate) => boolean;
  /** The namespaces whose keys it may read; undefined for every namespace. */
  readonly namespaces?: (set: ObjectSet, pod: PodTemplate) => readonly string[];
  readonly reason: string;
}

/**
 * The components that own CA keys, and so may read them (docs/safety.md, "Who may read a CA key").
 * Linkerd's identity controller and istio-csr read what they need from mounted files and
 * CertificateRequests, not through the API.
 */
export const keyOwners: readonly KeyReader[] = [
  {
    component: "cert-manager's controller",
    runs: (set, pod) => certManagerPods(set, "controller").includes(pod),
    reason:
      "signs from every CA Issuer's Secret and writes every Certificate's (cert-manager v1.21.2 deploy/charts/cert-manager/templates/rbac.yaml: controller-issuers, controller-clusterissuers, controller-certificates)",
  },
  {
    component: "cert-manager's cainjector",
    runs: (set, pod) => certManagerPods(set, "cainjector").includes(pod),
    reason:
      "copies a Certificate's CA certificate from its Secret into webhooks and APIServices, and cert-manager's chart grants it every Secret (cert-manager v1.21.2 deploy/charts/cert-manager/templates/cainjector-rbac.yaml)",
  },
  {
    component: "trust-manager in its trust namespace",
    runs: (set, pod) => set.releaseOf.get(pod.owner)?.chart === charts.trustManager.chart,
    // Its trust namespace, the only one it reads sources from (deployment.yaml --trust-namespace).
    namespaces: (_set, pod) => {
      const args = pod.containers.flatMap((c) => ((c as { args?: string[] }).args ?? []).map(String));
      const flag = args.find((a) => a.startsWith("--trust-namespace="));
      return [flag?.slice("--trust-namespace=".length) ?? "cert-manager"];
    },
    reason:
      "reads its Bundles' sources (the anchors' certificates) from Secrets in its trust namespace only (trust-manager v0.24.0 deploy/charts/trust-manager/templates/role.yaml)",
  },
];

/**
 * The components that do not own a CA key but must read Secrets to do their job, whose pinned charts
 * grant it with no value that narrows it, and which the platform accepts as readers, each only as far as
 * its chart's roles reach (docs/safety.md, "Who may read a CA key"). Every other reader is refused, and
 * so is an accepted component wherever it reaches further than listed here.
 */
export const acceptedReaders: readonly KeyReader[] = [
  ...meshAdmissions.flatMap((a) =>
    a.secretReaders.map((r): KeyReader => ({
      component: r.component,
      runs: chartPod(r.chart, ...r.podLabel),
      namespaces: r.ownNamespaceOnly ? (_set, pod) => [pod.namespace] : undefined,
      reason: r.reason,
    })),
  ),
  {
    component: "the Prometheus Operator",
    runs: chartPod(charts.kubePrometheusStack.chart, "app.kubernetes.io/component", "prometheus-operator"),
    reason:
      "may do anything with every Secret, whatever the values (kube-prometheus-stack 88.5.3 templates/prometheus-operator/clusterrole.yaml; prometheusOperator.namespaces and denyNamespaces narrow what it watches, not its ClusterRole): it reads the Secrets monitors name and writes its Prometheus's config",
  },
  {
    component: "ingress-nginx's controller",
    runs: chartPod(charts.ingressNginx.chart, "app.kubernetes.io/component", "controller"),
    reason:
      "lists and watches every Secret for its Ingresses' TLS (ingress-nginx 4.15.1 templates/clusterrole.yaml) and gets, lists and watches those of its namespace (templates/controller-role.yaml): controller.scope confines it to one namespace, which cannot serve the apps' namespaces, and controller.scope.namespaceSelector keeps the ClusterRole",
  },
];

/** Groups that are everyone, or every ServiceAccount (k8s.io/apiserver pkg/authentication/user and serviceaccount). */
function everyone(subject: Subject): string | undefined {
  if (subject.kind === "Group") {
    if (subject.name === "system:authenticated") return "every authenticated identity";
    if (subject.name === "system:unauthenticated") return "every anonymous caller";
    if (subject.name === "system:serviceaccounts") return "every ServiceAccount";
    if (subject.name.startsWith("system:serviceaccounts:"))
      return `every ServiceAccount of namespace ${subject.name.slice("system:serviceaccounts:".length)}`;
  }
  if (subject.kind === "User" && subject.name === "system:anonymous") return "every anonymous caller";
  return undefined;
}

/** A subject as a ServiceAccount, where it is one (a `system:serviceaccount:<ns>:<name>` user is). */
function serviceAccountOf(subject: Subject): { namespace: string; name: string } | undefined {
  if (subject.kind === "ServiceAccount")
    return { namespace: subject.namespace ?? "default", name: subject.name };
  const m = subject.kind === "User" ? /^system:serviceaccount:([^:]+):([^:]+)$/.exec(subject.name) : null;
  return m ? { namespace: m[1], name: m[2] } : undefined;
}

/** How a finding names a subject. */
export function subjectName(subject: Subject): string {
  const sa = serviceAccountOf(subject);
  return sa ? `ServiceAccount ${sa.namespace}/${sa.name}` : `${subject.kind} ${subject.name}`;
}

/**
 * Why a subject may read a key, or undefined where it may not: Kubernetes' own identities (users and
 * groups named `system:`, but not the groups that mean everyone) and a ServiceAccount whose every pod is a
 * key owner's or an accepted reader's, in a namespace it may read.
 */
export function allowedReader(set: ObjectSet, subject: Subject, key: CaKey): string | undefined {
  if (everyone(subject)) return undefined;
  const sa = serviceAccountOf(subject);
  if (!sa) return subject.name.startsWith("system:") ? "one of Kubernetes' own identities" : undefined;
  const pods = set.pods.filter((p) => p.namespace === sa.namespace && p.serviceAccountName === sa.name);
  // A ServiceAccount no pod runs as is nobody's: anyone who may create its tokens reads as it.
  if (pods.length === 0) return undefined;
  const owners = pods.map((pod) =>
    [...keyOwners, ...acceptedReaders].find(
      (o) => o.runs(set, pod) && (o.namespaces?.(set, pod).includes(key.namespace) ?? true),
    ),
  );
  return owners.every((o) => o !== undefined) ? owners[0]?.component : undefined;
}

/** One CA key and the components that may read it, as the render's summary states the trust boundary. */
export interface CaKeyReaders {
  readonly key: CaKey;
  /** Its owners' and accepted readers' names (`(accepted)` after the latter), sorted. */
  readonly readers: readonly string[];
}

/**
 * Each CA key of the set with the components whose ServiceAccounts may read it and are allowed to:
 * its owners and the accepted readers (Kubernetes' own identities are not listed; refused readers are
 * `ca-keys-confined` findings).
 */
export function caKeyReaders(set: ObjectSet): CaKeyReaders[] {
  const grants = secretReadGrants(set.objects);
  const accepted = new Set(acceptedReaders.map((r) => r.component));
  return caKeys(set).map((key) => {
    const readers = new Set<string>();
    for (const grant of grants.filter((g) => serviceAccountOf(g.subject) && grantReads(g, key))) {
      const reader = allowedReader(set, grant.subject, key);
      if (reader) readers.add(accepted.has(reader) ? `${reader} (accepted)` : reader);
    }
    return { key, readers: [...readers].sort() };
  });
}

/**
 * `ca-keys-confined`: every subject that can get, list or watch a CA key (by a Role or ClusterRole, its
 * aggregation, and the binding that grants it) is the component that owns that key, a reader the platform
 * accepts (`acceptedReaders`) where it may read, or one of Kubernetes' own identities; each other reader is one finding, on its binding, naming the subject, the role and the
 * key. And no ClusterRole that `view` aggregates reads Secrets: Kubernetes keeps `view` free of them.
 */
export function caKeysConfined(set: ObjectSet): CrossingFinding[] {
  const keys = caKeys(set);
  const findings: CrossingFinding[] = [];
  if (keys.length > 0) {
    const owners = [...keyOwners, ...acceptedReaders].map((o) => o.component).join(", ");
    for (const grant of secretReadGrants(set.objects)) {
      for (const key of keys.filter((k) => grantReads(grant, k))) {
        if (allowedReader(set, grant.subject, key)) continue;
        const who = everyone(grant.subject) ?? subjectName(grant.subject);
        const through = grant.via
          ? ` (aggregating ${grant.via.map((v) => `ClusterRole ${v}`).join(" <- ")})`
          : "";
        const where =
          grant.namespace === undefined ? "in every namespace" : `in namespace ${grant.namespace}`;
        findings.push({
          object: nameOf(grant.binding),
          message: `lets ${who} read Secret ${key.namespace}/${key.name} (${key.why}) through ${grant.role}${through}, which may ${grant.verbs.join(", ")} Secrets ${where}${grant.resourceNames ? ` named ${grant.resourceNames.join(", ")}` : ""}: only ${owners} may read a CA key, so whoever holds this identity can sign as the CA; narrow the role to the namespaces and Secret names it needs, or bind it elsewhere`,
        });
      }
    }
  }
  if (keys.length === 0) return findings;
  // A chart's ClusterRole aggregated into `view` widens it for every holder of view, bound outside the set too.
  const clusterRoles = clusterRolesOf(set.objects);
  const view = clusterRoles.find((r) => r.name === "view");
  for (const o of set.objects.filter((x) => x.kind === "ClusterRole")) {
    const role = roleModel(o);
    if (!view || !readingRules(view, clusterRoles).some(({ via }) => via.includes(role.name))) continue;
    findings.push({
      object: nameOf(o),
      message: `is aggregated into the built-in ClusterRole view and lets it read Secrets, which Kubernetes keeps out of view: every user and ServiceAccount bound to view, anywhere in the cluster, could read the CA keys (${keys.map((k) => `${k.namespace}/${k.name}`).join(", ")}); drop the ${aggregateTo("view")} label or the Secrets rule`,
    });
  }
  return findings;
}
