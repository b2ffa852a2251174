/** What Prometheus's Kubernetes service discovery says of the render's pods, container ports and endpoints, and the scrape target every monitor's relabelling ends in. */
import type { Container, KubeObject, PodTemplate } from "./objects";

/** One scrape target. */
export interface Target {
  /** The monitor, as `Kind namespace/name`. */
  readonly monitor: string;
  readonly monitorObject: KubeObject;
  /** The index of the monitor's endpoint that made it. */
  readonly endpoint: number;
  /** Its final labels. */
  readonly labels: Readonly<Record<string, string>>;
  readonly path: string;
  /** The scraped pod's own labels; empty for targets outside the object set (kubelet, API server). */
  readonly podLabels: Readonly<Record<string, string>>;
  /** The monitor keeps the series' own labels over the target's (honorLabels). */
  readonly honorLabels: boolean;
  /** The pod scraped, where the set has it. */
  readonly pod?: PodTemplate;
  /** The container whose port service discovery found (the scrape may be rewritten to another port). */
  readonly container?: Container;
  /** The port the scrape reaches, after relabelling rewrote the address. */
  readonly port?: number;
}

export const sanitize = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, "_");
const podIp = "10.0.0.1";

export type Port = { readonly name?: string; readonly containerPort: number; readonly protocol?: string };

/** Stand-ins for the names controllers generate: a ReplicaSet's template hash, a CronJob's run. */
const templateHash = "5d8c9f7b6";
const cronJobRun = "29000000";

/**
 * The pod's direct controller, as service discovery reports it: a Deployment's pods belong to its
 * ReplicaSet, a CronJob's to its Job.
 */
function controllerOf(pod: PodTemplate): { kind: string; name: string } {
  const { kind, metadata } = pod.owner;
  if (kind === "Deployment") return { kind: "ReplicaSet", name: `${metadata.name}-${templateHash}` };
  if (kind === "CronJob") return { kind: "Job", name: `${metadata.name}-${cronJobRun}` };
  return { kind, name: metadata.name };
}

/** The labels a pod's controller adds to the template's (pod-template-hash, job-name, ...). */
function controllerLabels(pod: PodTemplate): Record<string, string> {
  const name = pod.owner.metadata.name;
  switch (pod.owner.kind) {
    case "Deployment":
      return { "pod-template-hash": templateHash };
    case "StatefulSet":
      return {
        "controller-revision-hash": `${name}-${templateHash}`,
        "statefulset.kubernetes.io/pod-name": `${name}-0`,
        "apps.kubernetes.io/pod-index": "0",
      };
    case "DaemonSet":
      return { "controller-revision-hash": `${name}-${templateHash}`, "pod-template-generation": "1" };
    case "Job":
    case "CronJob": {
      const job = pod.owner.kind === "CronJob" ? `${name}-${cronJobRun}` : name;
      return {
        "batch.kubernetes.io/controller-uid": `uid-${job}`,
        "batch.kubernetes.io/job-name": job,
        "controller-uid": `uid-${job}`,
        "job-name": job,
      };
    }
    default:
      return {};
  }
}

/** A name for the pod, as its controller makes them. */
export const podName = (pod: PodTemplate) => `${pod.owner.metadata.name}-0`;

/**
 * What Kubernetes service discovery says of a pod (discovery/kubernetes/pod.go), and of one container
 * port where the target has one.
 */
export function podMeta(
  pod: PodTemplate,
  at?: { container: Container; port?: Port; init: boolean },
): Record<string, string> {
  const controller = controllerOf(pod);
  const meta: Record<string, string> = {
    __address__: `${podIp}${at?.port ? `:${at.port.containerPort}` : ""}`,
    __metrics_path__: "/metrics",
    __scheme__: "http",
    __meta_kubernetes_namespace: pod.namespace,
    __meta_kubernetes_pod_name: podName(pod),
    __meta_kubernetes_pod_ip: podIp,
    __meta_kubernetes_pod_ready: "true",
    __meta_kubernetes_pod_phase: "Running",
    __meta_kubernetes_pod_node_name: "node-1",
    __meta_kubernetes_pod_host_ip: "10.128.0.2",
    __meta_kubernetes_pod_uid: `uid-${podName(pod)}`,
    __meta_kubernetes_pod_controller_kind: controller.kind,
    __meta_kubernetes_pod_controller_name: controller.name,
  };
  if (at) {
    meta.__meta_kubernetes_pod_container_name = at.container.name;
    meta.__meta_kubernetes_pod_container_image = at.container.image ?? "";
    meta.__meta_kubernetes_pod_container_init = String(at.init);
  }
  if (at?.port) {
    if (at.port.name) meta.__meta_kubernetes_pod_container_port_name = at.port.name;
    meta.__meta_kubernetes_pod_container_port_number = String(at.port.containerPort);
    meta.__meta_kubernetes_pod_container_port_protocol = at.port.protocol ?? "TCP";
  }
  for (const [k, v] of Object.entries({ ...controllerLabels(pod), ...pod.labels })) {
    meta[`__meta_kubernetes_pod_label_${sanitize(k)}`] = v;
    meta[`__meta_kubernetes_pod_labelpresent_${sanitize(k)}`] = "true";
  }
  for (const [k, v] of Object.entries(pod.annotations)) {
    meta[`__meta_kubernetes_pod_annotation_${sanitize(k)}`] = v;
    meta[`__meta_kubernetes_pod_annotationpresent_${sanitize(k)}`] = "true";
  }
  return meta;
}

/** Every (container, port) a pod exposes to service discovery; a container without ports is one target. */
export function podPorts(pod: PodTemplate): { container: Container; port?: Port; init: boolean }[] {
  return [
    ...pod.containers.map((c) => ({ c, init: false })),
    ...pod.initContainers.map((c) => ({ c, init: true })),
  ].flatMap(({ c, init }) =>
    (c.ports ?? []).length > 0
      ? (c.ports ?? []).map((p) => ({ container: c, port: p, init }))
      : [{ container: c, init }],
  );
}

/**
 * Services whose endpoints no object in the set describes: the kubelets (the operator's Service,
 * kube-prometheus-stack values.yaml prometheusOperator.kubeletService) and the API server.
 */
export const externalServices: KubeObject[] = [
  {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: "kube-prometheus-stack-kubelet",
      namespace: "kube-system",
      labels: { "app.kubernetes.io/name": "kubelet", "k8s-app": "kubelet" },
    },
    spec: {
      ports: [
        { name: "https-metrics", port: 10250 },
        { name: "http-metrics", port: 10255 },
      ],
    },
  },
  {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: "kubernetes",
      namespace: "default",
      labels: { component: "apiserver", provider: "kubernetes" },
    },
    spec: { ports: [{ name: "https", port: 443 }] },
  },
];

export type ServicePort = { name?: string; port: number; targetPort?: string | number; protocol?: string };

/**
 * The container and port of a pod a Service port's endpoint reaches. The targetPort names a container
 * port (the first of that name) or is a number; service discovery labels the endpoint with the last
 * container declaring that number (endpoints.go), and where none declares it, the endpoint is still the
 * pod's address at that number, served by the container known to listen there.
 */
export function endpointOf(
  pod: PodTemplate,
  sp: ServicePort,
): { container: Container; port: Port; init: boolean; declared: boolean } | undefined {
  const target = sp.targetPort ?? sp.port;
  const ports = podPorts(pod);
  const number =
    typeof target === "number" ? target : ports.find((c) => c.port?.name === target)?.port?.containerPort;
  if (number === undefined) return undefined;
  const declared = ports.filter((c) => c.port?.containerPort === number).at(-1);
  if (declared?.port)
    return { container: declared.container, port: declared.port, init: declared.init, declared: true };
  const listening = ports.find((c) => (c.container.listens ?? []).includes(number)) ?? ports[0];
  return (
    listening && {
      container: listening.container,
      port: { containerPort: number },
      init: listening.init,
      declared: false,
    }
  );
}

/** What service discovery (role endpoints, endpoints.go) says of one endpoint port and its address. */
export function endpointMeta(sp: ServicePort, number: number, target?: { kind: string; name: string }) {
  return {
    __address__: `${podIp}:${number}`,
    ...(sp.name ? { __meta_kubernetes_endpoint_port_name: sp.name } : {}),
    __meta_kubernetes_endpoint_port_protocol: sp.protocol ?? "TCP",
    __meta_kubernetes_endpoint_ready: "true",
    ...(target
      ? {
          __meta_kubernetes_endpoint_address_target_kind: target.kind,
          __meta_kubernetes_endpoint_address_target_name: target.name,
        }
      : {}),
  };
}
