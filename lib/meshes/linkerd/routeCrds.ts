import { ApiObject } from "cdk8s";
import { Construct } from "constructs";
import { images } from "../../versions";

/**
 * The Gateway API route CRDs Linkerd's policy controller looks for once, at start: a kind missing
 * then is never watched, and Server-parented routes of it are ignored until a restart
 * (policy-controller/runtime/src/args.rs api_resource_exists at edge-26.8.3). TLSRoute and TCPRoute
 * are experimental-channel kinds GKE never serves.
 */
export const policyControllerRouteCrds = [
  "httproutes.gateway.networking.k8s.io",
  "grpcroutes.gateway.networking.k8s.io",
] as const;

export interface RouteCrdsWaitProps {
  readonly namespace: string;
  /** @default "linkerd-route-crds" */
  readonly name?: string;
}

/**
 * What the route-CRD Job runs as: a ServiceAccount that may read those CRDs and nothing else. Deployed
 * before the Job, so the Job never starts without its rights.
 */
export class RouteCrdsAccess extends Construct {
  constructor(scope: Construct, id: string, props: RouteCrdsWaitProps) {
    super(scope, id);
    const name = props.name ?? "linkerd-route-crds";
    const labels = { "app.kubernetes.io/name": name };
    new ApiObject(this, "account", {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name, namespace: props.namespace, labels },
    });
    new ApiObject(this, "role", {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name, labels },
      rules: [
        {
          apiGroups: ["apiextensions.k8s.io"],
          resources: ["customresourcedefinitions"],
          resourceNames: [...policyControllerRouteCrds],
          verbs: ["get", "list", "watch"],
        },
      ],
    });
    new ApiObject(this, "binding", {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
      subjects: [{ kind: "ServiceAccount", name, namespace: props.namespace }],
    });
  }
}

/**
 * A Job that completes once the cluster serves the route CRDs Linkerd's policy controller needs, so
 * the control plane, which waits for it, never starts before GKE has installed them. Pulumi waits for
 * a Job to complete (10 minutes by default). It runs as `RouteCrdsAccess`'s ServiceAccount.
 */
export class RouteCrdsWait extends Construct {
  readonly name: string;

  constructor(scope: Construct, id: string, props: RouteCrdsWaitProps) {
    super(scope, id);
    const name = props.name ?? "linkerd-route-crds";
    this.name = name;
    const labels = { "app.kubernetes.io/name": name };
    const crds = policyControllerRouteCrds.map((c) => `crd/${c}`);
    // Pod Security `restricted`: non-root, no privilege escalation, no capabilities, RuntimeDefault seccomp.
    const securityContext = {
      runAsNonRoot: true,
      runAsUser: 65532,
      // Explicit: otherwise the primary group is the image's (kube-score container-security-context-user-group-id).
      runAsGroup: 65532,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    };
    const resources = { requests: { cpu: "10m", memory: "32Mi" }, limits: { memory: "64Mi" } };
    // The image's entrypoint is /bin/kubectl (kubernetes build/server-image/kubectl/Dockerfile); its
    // discovery cache goes to a scratch volume, the root filesystem staying read-only.
    const kubectl = (name: string, args: string[]) => ({
      name,
      image: images.kubectl,
      args,
      env: [{ name: "HOME", value: "/tmp" }],
      volumeMounts: [{ name: "tmp", mountPath: "/tmp" }],
      securityContext,
      resources,
    });
    new ApiObject(this, "job", {
      apiVersion: "batch/v1",
      kind: "Job",
      metadata: { name, namespace: props.namespace, labels },
      spec: {
        backoffLimit: 3,
        template: {
          metadata: { labels },
          spec: {
            serviceAccountName: name,
            restartPolicy: "OnFailure",
            // Until GKE has created them, then until the API server serves them.
            initContainers: [kubectl("created", ["wait", "--for=create", "--timeout=9m", ...crds])],
            containers: [kubectl("served", ["wait", "--for=condition=Established", "--timeout=1m", ...crds])],
            volumes: [{ name: "tmp", emptyDir: {} }],
          },
        },
      },
    });
  }
}
