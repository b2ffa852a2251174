import { isObj, list, obj, record, type Json } from "../json";

/** A Kubernetes object as the cluster receives it: plain JSON. */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly [key: string]: unknown;
}

export { selects, type SelectorSpec as LabelSelector } from "../manifests/selectors";

/** A container as the pod template declares it. */
export interface Container {
  readonly name: string;
  readonly image?: string;
  readonly ports?: readonly { readonly name?: string; readonly containerPort: number }[];
  /** Ports served without being declared (known from the mesh's injector, for injected proxies). */
  readonly listens?: readonly number[];
  /** The mesh whose injector added it (its proxy, or the proxy's init container). */
  readonly injectedBy?: string;
  readonly resources?: {
    readonly requests?: Readonly<Record<string, unknown>>;
    readonly limits?: Readonly<Record<string, unknown>>;
  };
  readonly env?: readonly { readonly name: string; readonly value?: string; readonly valueFrom?: unknown }[];
  readonly envFrom?: readonly {
    readonly configMapRef?: { name: string; optional?: boolean };
    readonly secretRef?: { name: string; optional?: boolean };
  }[];
  readonly volumeMounts?: readonly unknown[];
}

/** A pod template and where it lives: a Deployment's, a DaemonSet's, a Job's ... */
export interface PodTemplate {
  /** The workload object it belongs to. */
  readonly owner: KubeObject;
  readonly namespace: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly serviceAccountName: string;
  readonly containers: readonly Container[];
  readonly initContainers: readonly Container[];
  readonly volumes: readonly Record<string, unknown>[];
  /** Replicas for a Deployment or StatefulSet; undefined for node agents and Jobs. */
  readonly replicas?: number;
  /** Admission added a mesh proxy (see `admit`). */
  readonly proxy?: string;
  /** A mesh's node proxy captures it (Istio ambient's ztunnel). */
  readonly captured?: string;
}

/** The containers of a pod spec's list: its objects with a name, the one field every container has. */
const containersOf = (v: unknown): Container[] =>
  Array.isArray(v) ? v.filter((c: unknown): c is Container => isObj(c) && typeof c.name === "string") : [];

/** The pod template of a workload object, if it has one. */
export function podTemplateOf(o: KubeObject): PodTemplate | undefined {
  const spec = obj(o.spec);
  let template: Json | undefined;
  let replicas: number | undefined;
  switch (o.kind) {
    case "Deployment":
    case "StatefulSet":
    case "ReplicaSet":
      template = obj(spec.template);
      // The API server defaults replicas to 1.
      replicas = typeof spec.replicas === "number" ? spec.replicas : 1;
      break;
    case "DaemonSet":
    case "Job":
      template = obj(spec.template);
      break;
    case "CronJob":
      template = obj(obj(obj(spec.jobTemplate).spec).template);
      break;
    case "Pod":
      template = { metadata: o.metadata, spec: o.spec };
      break;
    default:
      return undefined;
  }
  const meta = obj(template.metadata);
  const pod = obj(template.spec);
  return {
    owner: o,
    namespace: o.metadata.namespace ?? "default",
    labels: record(meta.labels),
    annotations: record(meta.annotations),
    serviceAccountName: typeof pod.serviceAccountName === "string" ? pod.serviceAccountName : "default",
    containers: containersOf(pod.containers),
    initContainers: containersOf(pod.initContainers),
    volumes: list(pod.volumes),
    replicas,
  };
}

/** `kind namespace/name`, how findings name an object. */
export function nameOf(o: Pick<KubeObject, "kind" | "metadata">): string {
  return `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`;
}
