import { ApiObject } from "cdk8s";
import type { Construct } from "constructs";

export type PodSecurityLevel = "privileged" | "baseline" | "restricted";

export interface PlatformNamespaceProps {
  readonly name: string;
  /**
   * Pod Security Standard enforced. A meshed namespace takes its mesh's `meshedPodSecurity`.
   * @default "restricted"
   */
  readonly podSecurity?: PodSecurityLevel;
  /** Labels, a mesh's enrolment labels included (`Mesh.namespaceEnrolment`). */
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** A namespace with Pod Security labels always set; a mesh enrols it through its labels and annotations. */
export class PlatformNamespace extends ApiObject {
  readonly namespaceName: string;

  constructor(scope: Construct, id: string, props: PlatformNamespaceProps) {
    const level = props.podSecurity ?? "restricted";
    super(scope, id, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: {
        name: props.name,
        labels: { ...podSecurityLabels(level), ...props.labels },
        annotations: { ...props.annotations },
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
