import { ApiObject } from "cdk8s";
import type { Construct } from "constructs";
import { linkerdFacts } from "../versions";

/** What a namespace needs to know about the environment's mesh. */
export interface MeshSettings {
  readonly kind: "linkerd" | "istio" | "none";
  /** The mesh's CNI plugin redirects traffic, instead of a privileged init container. */
  readonly cni: boolean;
  readonly nativeSidecars: boolean;
  /** Istio only. */
  readonly dataplane: "sidecar" | "ambient";
  /** Istio only: the istiod revision that injects app namespaces; absent for the default install. */
  readonly revision?: string;
}

export type PodSecurityLevel = "privileged" | "baseline" | "restricted";

export interface PlatformNamespaceProps {
  readonly name: string;
  /** Mesh the namespace's pods. @default false */
  readonly meshed?: boolean;
  readonly mesh: MeshSettings;
  /**
   * Pod Security Standard enforced. @default what the namespace's pods need: `privileged` for a
   * mesh without CNI (its init container adds NET_ADMIN), else `restricted`
   */
  readonly podSecurity?: PodSecurityLevel;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

/**
 * A namespace with Pod Security labels always set and, when meshed, the mesh's injection labels or
 * annotations for the pinned versions.
 */
export class PlatformNamespace extends ApiObject {
  readonly namespaceName: string;

  constructor(scope: Construct, id: string, props: PlatformNamespaceProps) {
    const meshed = props.meshed === true && props.mesh.kind !== "none";
    const mesh = meshed ? meshMetadata(props.mesh) : { labels: {}, annotations: {} };
    const level = props.podSecurity ?? (meshed ? meshedPodSecurity(props.mesh) : "restricted");
    super(scope, id, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        name: props.name,
        labels: { ...podSecurityLabels(level), ...mesh.labels, ...props.labels },
        annotations: { ...mesh.annotations, ...props.annotations },
      },
    });
    this.namespaceName = props.name;
  }
}

export function podSecurityLabels(enforce: PodSecurityLevel): Record<string, string> {
  return {
    "pod-security.kubernetes.io/enforce": enforce,
    // Below restricted, what falls short of it shows up in kubectl warnings and audit logs. Not where
    // privileged is enforced: every pod there needs it (a mesh init container, node agents), so
    // warnings would only teach people to ignore them.
    ...(enforce === "privileged"
      ? {}
      : {
          "pod-security.kubernetes.io/warn": "restricted",
          "pod-security.kubernetes.io/audit": "restricted",
        }),
  };
}

/**
 * The level a meshed namespace must allow. Without CNI, linkerd-init and istio-init add NET_ADMIN
 * and NET_RAW, which `baseline` forbids; Linkerd's own chart enforces `restricted` only with its CNI
 * (templates/namespace.yaml). Istio's proxy with istio-cni or ambient fits `baseline`.
 */
export function meshedPodSecurity(mesh: MeshSettings): PodSecurityLevel {
  if (!mesh.cni) return "privileged";
  return mesh.kind === "linkerd" ? "restricted" : "baseline";
}

/** Labels and annotations that put a namespace's pods in the mesh. */
export function meshMetadata(mesh: MeshSettings): {
  labels: Record<string, string>;
  annotations: Record<string, string>;
} {
  switch (mesh.kind) {
    case "linkerd":
      return {
        labels: {},
        annotations: {
          "linkerd.io/inject": "enabled",
          // The app container starts only once its proxy is ready, so early requests do not fail.
          "config.linkerd.io/proxy-await": "enabled",
          // The 2.20 annotation (pkg/k8s/labels.go); explicit, so Jobs finish whatever the control-plane default.
          ...(mesh.nativeSidecars ? { "config.linkerd.io/proxy-enable-native-sidecar": "true" } : {}),
        },
      };
    case "istio":
      return mesh.dataplane === "ambient"
        ? { labels: { "istio.io/dataplane-mode": "ambient" }, annotations: {} }
        : // Either label, never both: with both, istio-injection silently wins over istio.io/rev.
          {
            labels: mesh.revision ? { "istio.io/rev": mesh.revision } : { "istio-injection": "enabled" },
            annotations: {},
          };
    case "none":
      return { labels: {}, annotations: {} };
  }
}

/** The Linkerd control-plane namespace, labelled as the chart labels it when its CLI creates it. */
export class LinkerdNamespace extends ApiObject {
  constructor(scope: Construct, id: string, props: { readonly name: string; readonly cni: boolean }) {
    super(scope, id, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        name: props.name,
        // The chart does not create its namespace under Helm (templates/namespace.yaml renders only for the CLI).
        labels: {
          ...podSecurityLabels(props.cni ? "restricted" : "privileged"),
          [linkerdFacts.controlPlaneNamespaceLabel]: "true",
          "config.linkerd.io/admission-webhooks": "disabled",
          "linkerd.io/control-plane-ns": props.name,
        },
        annotations: { "linkerd.io/inject": "disabled" },
      },
    });
  }
}
