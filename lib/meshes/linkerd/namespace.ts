import { ApiObject } from "cdk8s";
import type { Construct } from "constructs";
import { podSecurityLabels } from "../../manifests";
import { linkerdFacts } from "../../versions";

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
