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

export const knownFailures: readonly KnownFailure[] = [
  {
    invariant: "certificates-renewed",
    object:
      /^(Secret linkerd\/linkerd-(proxy-injector|sp-validator|policy-validator)-k8s-tls|MutatingWebhookConfiguration linkerd-proxy-injector-webhook-config|ValidatingWebhookConfiguration linkerd-(sp|policy)-validator-webhook-config)$/,
    reason:
      "linkerd-control-plane generates its webhooks' certificates at template time (genSelfSignedCert, 365 days); only a chart upgrade renews them",
    owner: "#16",
  },
  {
    invariant: "certificates-renewed",
    object:
      /^(Secret linkerd-viz\/tap(-injector)?-k8s-tls|MutatingWebhookConfiguration linkerd-tap-injector-webhook-config|APIService v1alpha1\.tap\.linkerd\.io)$/,
    reason:
      "linkerd-viz generates tap's and tap-injector's certificates at template time, as the control plane does",
    owner: "#16",
  },
  {
    invariant: "monitors-select",
    object: /^ClusterPodMonitoring linkerd-multicluster-controller$/,
    reason:
      "Linkerd's Managed Prometheus monitors include the multicluster controller, which is never installed",
    owner: "#17",
  },
];
