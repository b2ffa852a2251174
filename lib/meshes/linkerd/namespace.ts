import { ApiObject } from "cdk8s";
import type { Construct } from "constructs";
import { podSecurityLabels, type PodSecurityLevel } from "../../manifests";
import { linkerdFacts } from "../../versions";

/** Linkerd's own namespaces: the control plane's, the dashboard's (linkerd-viz) and the CNI plugin's. */
export const linkerdNamespace = "linkerd";
export const linkerdVizNamespace = "linkerd-viz";
export const linkerdCniNamespace = "linkerd-cni";

/**
 * The Pod Security level meshed pods need. Without its CNI, linkerd-init adds NET_ADMIN and NET_RAW,
 * which `baseline` forbids; Linkerd's own chart enforces `restricted` only with its CNI
 * (charts/linkerd-control-plane/templates/namespace.yaml).
 */
export function linkerdPodSecurity(cni: boolean): PodSecurityLevel {
  return cni ? "restricted" : "privileged";
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
          ...podSecurityLabels(linkerdPodSecurity(props.cni)),
          [linkerdFacts.controlPlaneNamespaceLabel]: "true",
          "config.linkerd.io/admission-webhooks": "disabled",
          "linkerd.io/control-plane-ns": props.name,
        },
        annotations: { "linkerd.io/inject": "disabled" },
      },
    });
  }
}
