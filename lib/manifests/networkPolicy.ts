import { ApiObject } from "cdk8s";
import type { Construct } from "constructs";
import { namespaceNameLabel } from "./selectors";

/**
 * A namespace's Kubernetes NetworkPolicy: every pod in it takes connections only from the sources
 * listed, each on its ports. GKE enforces it (Dataplane V2's eBPF, or Calico without it); the mesh's
 * authorization then judges each request that gets through (docs/mesh-policy.md, "Namespace isolation").
 */

/** A port of the protected pods: its number, or a container port's name. */
export type NetworkPort = number | string;

/** Where a NetworkPolicy lets connections in from. */
export type NetworkSource =
  /** Every pod of the policy's own namespace. */
  | { readonly kind: "same-namespace" }
  /**
   * Pods of another namespace (of every namespace where `namespace` is absent), only those with
   * `podLabels` where given.
   */
  | {
      readonly kind: "pods";
      readonly namespace?: string;
      readonly podLabels?: Readonly<Record<string, string>>;
    }
  /** Addresses no pod has: load balancers, a node's rewritten probes. */
  | { readonly kind: "addresses"; readonly cidrs: readonly string[] };

/** One source and the ports it may reach. */
export interface NetworkPeer {
  readonly from: NetworkSource;
  /** TCP ports. @default every port */
  readonly ports?: readonly NetworkPort[];
}

/** The policy's name in each isolated namespace. */
export const namespaceNetworkPolicyName = "namespace-isolation";

export interface NamespaceNetworkPolicyProps {
  readonly namespace: string;
  /** Everything let in; peers from one source are merged into one rule. */
  readonly peers: readonly NetworkPeer[];
}

const sourceKey = (s: NetworkSource): string => JSON.stringify(s);

/** Numbers in order, then names in order; none where any peer of the source allows every port. */
function mergedPorts(peers: readonly NetworkPeer[]): NetworkPort[] | undefined {
  if (peers.some((p) => p.ports === undefined)) return undefined;
  const ports = [...new Set(peers.flatMap((p) => p.ports ?? []))];
  const numbers = ports.filter((p): p is number => typeof p === "number").sort((a, b) => a - b);
  const names = ports.filter((p): p is string => typeof p === "string").sort();
  return [...numbers, ...names];
}

function peerOf(source: NetworkSource): Record<string, unknown>[] {
  switch (source.kind) {
    case "same-namespace":
      return [{ podSelector: {} }];
    case "pods":
      return [
        {
          namespaceSelector: source.namespace
            ? { matchLabels: { [namespaceNameLabel]: source.namespace } }
            : {},
          podSelector: source.podLabels ? { matchLabels: { ...source.podLabels } } : {},
        },
      ];
    case "addresses":
      return source.cidrs.map((cidr) => ({ ipBlock: { cidr } }));
  }
}

/**
 * Ingress only. Egress stays open: every pod needs DNS (kube-dns, or NodeLocal DNSCache on its node),
 * its mesh's control plane (identity, destination, istiod) and Google's APIs through Cloud NAT, whose
 * addresses Google does not fix and a NetworkPolicy cannot name by DNS; and what a pod may call is
 * decided where the call arrives, by the callee's own NetworkPolicy and the mesh's authorization.
 */
export class NamespaceNetworkPolicy extends ApiObject {
  constructor(scope: Construct, id: string, props: NamespaceNetworkPolicyProps) {
    const bySource = new Map<string, { source: NetworkSource; peers: NetworkPeer[] }>();
    for (const peer of props.peers) {
      const key = sourceKey(peer.from);
      const entry = bySource.get(key) ?? { source: peer.from, peers: [] };
      entry.peers.push(peer);
      bySource.set(key, entry);
    }
    super(scope, id, {
      apiVersion: "networking.k8s.io/v1",
      kind: "NetworkPolicy",
      metadata: { name: namespaceNetworkPolicyName, namespace: props.namespace },
      spec: {
        podSelector: {},
        policyTypes: ["Ingress"],
        ingress: [...bySource.values()].map(({ source, peers }) => {
          const ports = mergedPorts(peers);
          return {
            from: peerOf(source),
            ...(ports ? { ports: ports.map((port) => ({ protocol: "TCP", port })) } : {}),
          };
        }),
      },
    });
  }
}
