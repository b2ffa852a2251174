import type { ClusterInvariant } from "../../lib/cluster";

/** A cluster-tier finding whose fix belongs to another open issue. */
export interface KnownFailure {
  readonly invariant: ClusterInvariant;
  /** The objects at fault, as findings name them (`Kind namespace/name`). */
  readonly object: RegExp;
  /** Only in these renders. @default every render */
  readonly target?: RegExp;
  /** Why it happens. */
  readonly reason: string;
  /** The issue whose fix removes it. */
  readonly owner: string;
}

export const knownFailures: readonly KnownFailure[] = [
  {
    invariant: "monitors-select",
    object:
      /^ServiceMonitor monitoring\/kube-prometheus-stack-(coredns|kube-controller-manager|kube-etcd|kube-proxy|kube-scheduler)$/,
    reason:
      "kube-prometheus-stack scrapes control-plane components GKE does not expose (and kube-dns, not CoreDNS, serves DNS)",
    owner: "#18",
  },
  {
    invariant: "production-sizing",
    object:
      /^(Deployment|Job) cert-manager\/(cert-manager(-cainjector|-webhook|-startupapicheck|-istio-csr)?|trust-manager)$/,
    reason:
      "cert-manager, trust-manager and istio-csr run one replica (istio-csr two, without a disruption budget) and set no requests",
    owner: "#18",
  },
  {
    invariant: "production-sizing",
    object: /^(Deployment|CronJob|DaemonSet) (linkerd|linkerd-viz|linkerd-cni)\/.+$/,
    reason: "Linkerd's control plane, viz and CNI set no requests, and their proxies have no resources",
    owner: "#18",
  },
  {
    invariant: "production-sizing",
    object: /^Deployment shop\/(shop|cart|fault-503)$/,
    reason: "meshed apps' Linkerd proxies have no requests (proxy.resources unset)",
    owner: "#18",
  },
  {
    invariant: "production-sizing",
    object: /^Deployment (traefik\/traefik|ingress-nginx\/ingress-nginx-controller)$/,
    reason: "the ingress controllers run one replica without requests in prod",
    owner: "#18",
  },
  {
    invariant: "production-sizing",
    object: /^(Deployment|Job|DaemonSet) monitoring\/kube-prometheus-stack-.+$/,
    reason: "kube-prometheus-stack's operator, exporters, Grafana and admission Jobs set no requests",
    owner: "#18",
  },
];
