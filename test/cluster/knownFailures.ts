import type { ClusterInvariant } from "../../lib/cluster";
import type { QueryFinding } from "./queries";

/** A cluster-tier finding whose fix belongs to another open issue. */
export interface KnownFailure {
  readonly invariant: ClusterInvariant | QueryFinding["invariant"];
  /** The objects at fault, as findings name them (`Kind namespace/name`). */
  readonly object: RegExp;
  /** Only in these renders. @default every render */
  readonly target?: RegExp;
  /** Why it happens. */
  readonly reason: string;
  /** The issue whose fix removes it. */
  readonly owner: string;
}

/** The findings whose fix is not in place yet, each with its reason and owner: the list only shrinks. */
export const knownFailures: readonly KnownFailure[] = [
  // ca-keys-confined: identities outside cert-manager that the charts let read the mesh's CA keys.
  {
    invariant: "ca-keys-confined",
    object: /^ClusterRoleBinding kube-prometheus-stack-operator$/,
    reason:
      "the Prometheus Operator may do anything with every Secret (kube-prometheus-stack 88.5.3 templates/prometheus-operator/clusterrole.yaml; no value narrows it): it reads the Secrets monitors name and writes its Prometheus's config",
    owner: "none yet: needs a decision (confine the operator to its namespaces, or accept it as a reader)",
  },
  {
    invariant: "ca-keys-confined",
    object:
      /^(ClusterRoleBinding istiod-clusterrole-(.+-)?istio-system|RoleBinding istio-system\/istiod(-.+)?)$/,
    reason:
      "istiod gets, lists and watches every Secret (istiod 1.30.3 templates/clusterrole.yaml: gateway credentials, remote clusters) and every Secret of istio-system (templates/role.yaml: its own CA's), whatever the values: the root kept out of istio-system is still in reach",
    owner: "none yet: needs a decision (an upstream change, or accept istiod as a reader)",
  },
  {
    invariant: "ca-keys-confined",
    object: /^ClusterRoleBinding istio-reader-clusterrole-.*istio-system$/,
    reason:
      "istio-reader-service-account, which no pod runs as (multicluster readers are given its token), reads every Secret (istiod 1.30.3 templates/reader-clusterrole.yaml, unconditional)",
    owner: "none yet: needs a decision (an upstream change, or accept it)",
  },
  {
    invariant: "ca-keys-confined",
    object: /^RoleBinding linkerd\/linkerd-destination-remote-discovery$/,
    reason:
      "linkerd-destination reads every Secret of the control plane's namespace, the identity issuer's key included, for multicluster discovery (linkerd-control-plane 2026.8.3 templates/destination-rbac.yaml, Role remote-discovery, unconditional)",
    owner: "none yet: needs a decision (an upstream change, or accept it)",
  },
  {
    invariant: "ca-keys-confined",
    object: /^ClusterRoleBinding traefik-traefik$/,
    reason:
      "Traefik reads every Secret for its routes' TLS (traefik 41.3.0 templates/rbac/clusterrole.yaml, rbac.namespaced false)",
    owner: "none yet: rbac.namespaced with the providers' namespaces would confine it to the apps'",
  },
  {
    invariant: "ca-keys-confined",
    object: /^(ClusterRoleBinding ingress-nginx|RoleBinding ingress-nginx\/ingress-nginx)$/,
    reason:
      "ingress-nginx lists and watches every Secret (ingress-nginx 4.15.1 templates/clusterrole.yaml, controller.scope.enabled false) and gets those of its namespace, its admission webhook's CA key among them (templates/role.yaml)",
    owner: "none yet: controller.scope would confine it to one namespace",
  },
];
