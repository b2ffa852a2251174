import { meshAdmissions } from "../meshes/models";
import {
  nameOf,
  selects,
  type Container,
  type KubeObject,
  type LabelSelector,
  type PodTemplate,
} from "./objects";
import type { ObjectSet } from "./objectSet";
import { compile, relabel, relabelingsCompile, type Relabel } from "./relabel";

/**
 * The scrape targets a render's monitors produce, computed as the Prometheus Operator and Managed
 * Prometheus configure Prometheus's Kubernetes service discovery: one candidate per pod and container
 * port, the operator's own relabelings, then the monitor's. What a monitor scrapes, which container and
 * port each scrape reaches, and the labels its series carry all come from here.
 */

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

const sanitize = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, "_");
const podIp = "10.0.0.1";

type Port = { readonly name?: string; readonly containerPort: number; readonly protocol?: string };

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
const podName = (pod: PodTemplate) => `${pod.owner.metadata.name}-0`;

/**
 * What Kubernetes service discovery says of a pod (discovery/kubernetes/pod.go), and of one container
 * port where the target has one.
 */
function podMeta(
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
function podPorts(pod: PodTemplate): { container: Container; port?: Port; init: boolean }[] {
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
 * The keep rule the operator puts first for an endpoint's port (promcfg.go): by name, else by number,
 * else the deprecated targetPort; none where the endpoint names no port.
 */
function portFilter(
  nameLabel: string,
  ep: { port?: string; portNumber?: number; targetPort?: string | number },
): Relabel[] {
  if (ep.port) return [{ action: "keep", sourceLabels: [nameLabel], regex: ep.port }];
  if (ep.portNumber)
    return [
      {
        action: "keep",
        sourceLabels: ["__meta_kubernetes_pod_container_port_number"],
        regex: String(ep.portNumber),
      },
    ];
  if (typeof ep.targetPort === "string" && ep.targetPort !== "")
    return [
      { action: "keep", sourceLabels: ["__meta_kubernetes_pod_container_port_name"], regex: ep.targetPort },
    ];
  if (typeof ep.targetPort === "number" && ep.targetPort !== 0)
    return [
      {
        action: "keep",
        sourceLabels: ["__meta_kubernetes_pod_container_port_number"],
        regex: String(ep.targetPort),
      },
    ];
  return [];
}

/** The operator's `podTargetLabels`: each pod label copied where set. */
const podTargetLabels = (labels: readonly string[] | undefined): Relabel[] =>
  (labels ?? []).map((l) => copyIfSet(`__meta_kubernetes_pod_label_${sanitize(l)}`, sanitize(l)));

/** The operator's copy of a meta label onto a target label, where the meta label is set. */
const copyIfSet = (source: string, target: string): Relabel => ({
  sourceLabels: [source],
  targetLabel: target,
  regex: "(.+)",
});

/** A Prometheus Operator target, from the labels its relabelling kept. */
function operatorTarget(
  m: KubeObject,
  endpoint: number,
  honorLabels: boolean | undefined,
  labels: Record<string, string>,
  pod?: PodTemplate,
  container?: Container,
): Target {
  return {
    monitor: nameOf(m),
    monitorObject: m,
    endpoint,
    labels: finalLabels(labels),
    path: labels.__metrics_path__ ?? "/metrics",
    podLabels: pod?.labels ?? {},
    honorLabels: honorLabels === true,
    pod,
    container,
    port: pod ? portOf(labels.__address__) : undefined,
  };
}

/** The operator's `endpoint` label: the port's name, else the targetPort. */
const endpointLabel = (ep: { port?: string; targetPort?: string | number }): Relabel[] => {
  const value = ep.port || (ep.targetPort !== undefined ? String(ep.targetPort) : "");
  return value ? [{ targetLabel: "endpoint", replacement: value }] : [];
};

/** The labels a target ends with: everything not starting with `__`, and `instance` from the address. */
function finalLabels(labels: Record<string, string>): Record<string, string> {
  const out = Object.fromEntries(Object.entries(labels).filter(([k]) => !k.startsWith("__")));
  return { instance: labels.__address__ ?? "", ...out };
}

/** The port an address ends with. */
function portOf(address: string | undefined): number | undefined {
  const port = /:(\d+)$/.exec(address ?? "")?.[1];
  return port === undefined ? undefined : Number(port);
}

type Json = Record<string, unknown>;

/**
 * The render's pods, and for each meshed pod the same pod owned by every other kind of workload: the
 * labels a monitor maps from a Job's or a StatefulSet's pods are checked though the render runs none.
 */
function everyOwnerKind(pods: readonly PodTemplate[]): PodTemplate[] {
  return pods.flatMap((p) => {
    const ownerLabels = meshAdmissions.find((a) =>
      a.ownerLabels.some((l) => p.labels[l] !== undefined),
    )?.ownerLabels;
    const own = ownerLabels?.find((l) => p.labels[l] !== undefined);
    if (!ownerLabels || !own) return [p];
    return [
      p,
      ...ownerLabels
        .filter((l) => l !== own)
        .map((l) => {
          const labels = Object.fromEntries(Object.entries(p.labels).filter(([k]) => k !== own));
          return { ...p, labels: { ...labels, [l]: p.owner.metadata.name } };
        }),
    ];
  });
}

/**
 * Containers of the pods the Prometheus Operator makes for a Prometheus or an Alertmanager, by the port
 * their Service targets (pkg/prometheus/statefulset.go, pkg/alertmanager/statefulset.go at v0.93.0:
 * the server's `http-web`, the config reloader's `reloader-web`).
 */
const operatorContainers: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  prometheus: { "http-web": "prometheus", "reloader-web": "config-reloader" },
  alertmanager: { "http-web": "alertmanager", "reloader-web": "config-reloader" },
};
const operatorKinds: Readonly<Record<string, string>> = {
  prometheus: "Prometheus",
  alertmanager: "Alertmanager",
};

/** Which namespaces a Prometheus Operator monitor reads: its own, those it names, or all. */
function operatorScope(m: KubeObject): (namespace: string) => boolean {
  const selector = (m.spec as { namespaceSelector?: { any?: boolean; matchNames?: string[] } } | undefined)
    ?.namespaceSelector;
  return (ns) => selector?.any === true || (selector?.matchNames ?? [m.metadata.namespace]).includes(ns);
}

/**
 * A PodMonitor's targets, with the relabelings the Prometheus Operator puts before the user's
 * (pkg/prometheus/promcfg.go generatePodMonitorConfig at v0.93.0): port filter, namespace, container,
 * pod, podTargetLabels, job `<namespace>/<name>` (or the pod label `jobLabel` names), endpoint; then the
 * endpoint's own.
 */
function podMonitorTargets(pods: readonly PodTemplate[], m: KubeObject): Target[] {
  const spec = (m.spec ?? {}) as {
    selector?: LabelSelector;
    jobLabel?: string;
    podTargetLabels?: string[];
    podMetricsEndpoints?: (Json & {
      port?: string;
      portNumber?: number;
      targetPort?: string | number;
      path?: string;
      relabelings?: Relabel[];
      honorLabels?: boolean;
    })[];
  };
  // The operator refuses a monitor with a relabelling Prometheus cannot compile (pkg/prometheus/validation/validator.go).
  if (!(spec.podMetricsEndpoints ?? []).every((ep) => relabelingsCompile(ep.relabelings ?? []))) return [];
  const inScope = operatorScope(m);
  const selected = pods.filter((p) => inScope(p.namespace) && selects(spec.selector, p.labels));
  const out: Target[] = [];
  (spec.podMetricsEndpoints ?? []).forEach((ep, endpoint) => {
    const generated: Relabel[] = [
      ...portFilter("__meta_kubernetes_pod_container_port_name", ep),
      { sourceLabels: ["__meta_kubernetes_namespace"], targetLabel: "namespace" },
      { sourceLabels: ["__meta_kubernetes_pod_container_name"], targetLabel: "container" },
      { sourceLabels: ["__meta_kubernetes_pod_name"], targetLabel: "pod" },
      ...podTargetLabels(spec.podTargetLabels),
      { targetLabel: "job", replacement: `${m.metadata.namespace}/${m.metadata.name}` },
      ...(spec.jobLabel ? [copyIfSet(`__meta_kubernetes_pod_label_${sanitize(spec.jobLabel)}`, "job")] : []),
      ...endpointLabel(ep),
      ...(ep.relabelings ?? []),
    ];
    for (const pod of selected) {
      for (const at of podPorts(pod)) {
        const meta = { ...podMeta(pod, at), __metrics_path__: ep.path ?? "/metrics" };
        const labels = relabel(meta, generated);
        if (!labels) continue;
        out.push(operatorTarget(m, endpoint, ep.honorLabels, labels, pod, at.container));
      }
    }
  });
  return out;
}

/**
 * Services whose endpoints no object in the set describes: the kubelets (the operator's Service,
 * kube-prometheus-stack values.yaml prometheusOperator.kubeletService) and the API server.
 */
const externalServices: KubeObject[] = [
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

type ServicePort = { name?: string; port: number; targetPort?: string | number; protocol?: string };

/**
 * The container and port of a pod a Service port's endpoint reaches. The targetPort names a container
 * port (the first of that name) or is a number; service discovery labels the endpoint with the last
 * container declaring that number (endpoints.go), and where none declares it, the endpoint is still the
 * pod's address at that number, served by the container known to listen there.
 */
function endpointOf(
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
function endpointMeta(sp: ServicePort, number: number, target?: { kind: string; name: string }) {
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

/**
 * A ServiceMonitor's targets (promcfg.go generateServiceMonitorConfig at v0.93.0, role endpoints): per
 * Service it selects, an endpoint per Service port and pod behind it (or per port where a controller of
 * the set, or the cluster itself, makes the pods), and each pod's other declared ports, which service
 * discovery lists too; then the operator's relabelings (port filter, node or pod from the address's
 * target, namespace, service, pod, container, targetLabels, podTargetLabels, job from the Service's name
 * or its `jobLabel` label, endpoint) and the endpoint's own.
 */
function serviceMonitorTargets(set: ObjectSet, pods: readonly PodTemplate[], m: KubeObject): Target[] {
  const spec = (m.spec ?? {}) as {
    selector?: LabelSelector;
    jobLabel?: string;
    targetLabels?: string[];
    podTargetLabels?: string[];
    endpoints?: {
      port?: string;
      targetPort?: string | number;
      path?: string;
      relabelings?: Relabel[];
      honorLabels?: boolean;
    }[];
  };
  if (!(spec.endpoints ?? []).every((ep) => relabelingsCompile(ep.relabelings ?? []))) return [];
  const inScope = operatorScope(m);
  const services = [...set.objects.filter((o) => o.kind === "Service"), ...externalServices].filter(
    (o) => inScope(o.metadata.namespace ?? "") && selects(spec.selector, o.metadata.labels ?? {}),
  );
  const addressTarget = [
    "__meta_kubernetes_endpoint_address_target_kind",
    "__meta_kubernetes_endpoint_address_target_name",
  ];
  const out: Target[] = [];
  for (const svc of services) {
    const svcLabels = svc.metadata.labels ?? {};
    const svcSpec = (svc.spec ?? {}) as { selector?: Record<string, string>; ports?: ServicePort[] };
    const selector = svcSpec.selector;
    const servicePorts = svcSpec.ports ?? [];
    const behind =
      selector && Object.keys(selector).length > 0
        ? pods.filter(
            (p) => p.namespace === svc.metadata.namespace && selects({ matchLabels: selector }, p.labels),
          )
        : [];
    const madeBy = selector?.["app.kubernetes.io/name"] ?? "";
    const made =
      operatorKinds[madeBy] !== undefined &&
      set.objects.some(
        (o) => o.kind === operatorKinds[madeBy] && o.metadata.namespace === svc.metadata.namespace,
      )
        ? operatorContainers[madeBy]
        : undefined;
    const serviceMeta: Record<string, string> = {
      __metrics_path__: "/metrics",
      __scheme__: "http",
      __meta_kubernetes_namespace: svc.metadata.namespace ?? "",
      __meta_kubernetes_endpoints_name: svc.metadata.name,
      __meta_kubernetes_service_name: svc.metadata.name,
    };
    for (const [k, v] of Object.entries(svcLabels)) {
      serviceMeta[`__meta_kubernetes_service_label_${sanitize(k)}`] = v;
      serviceMeta[`__meta_kubernetes_service_labelpresent_${sanitize(k)}`] = "true";
    }
    for (const [k, v] of Object.entries(svc.metadata.annotations ?? {})) {
      serviceMeta[`__meta_kubernetes_service_annotation_${sanitize(k)}`] = v;
      serviceMeta[`__meta_kubernetes_service_annotationpresent_${sanitize(k)}`] = "true";
    }
    const numberOf = (sp: ServicePort) => (typeof sp.targetPort === "number" ? sp.targetPort : sp.port);
    const candidates: { meta: Record<string, string>; pod?: PodTemplate; container?: Container }[] = [];
    if (externalServices.includes(svc)) {
      // The kubelets' endpoints are the nodes; the API server's have no target.
      const node = svc.metadata.name.endsWith("kubelet") ? { kind: "Node", name: "node-1" } : undefined;
      for (const sp of servicePorts)
        candidates.push({ meta: { ...serviceMeta, ...endpointMeta(sp, numberOf(sp), node) } });
    } else if (made) {
      const pod = `${svc.metadata.name}-0`;
      for (const sp of servicePorts)
        candidates.push({
          meta: {
            ...serviceMeta,
            ...endpointMeta(sp, numberOf(sp), { kind: "Pod", name: pod }),
            __meta_kubernetes_pod_name: pod,
            ...(made[sp.name ?? ""] ? { __meta_kubernetes_pod_container_name: made[sp.name ?? ""] } : {}),
          },
        });
    } else {
      for (const pod of behind) {
        const reached = new Set<number>();
        for (const sp of servicePorts) {
          const at = endpointOf(pod, sp);
          if (!at) continue;
          reached.add(at.port.containerPort);
          candidates.push({
            meta: {
              ...serviceMeta,
              ...podMeta(pod, at.declared ? at : undefined),
              ...endpointMeta(sp, at.port.containerPort, { kind: "Pod", name: podName(pod) }),
            },
            pod,
            container: at.container,
          });
        }
        // The declared ports no endpoint lists, of a pod some endpoint reaches, are targets too, without
        // endpoint port labels (endpoints.go: the pods it has seen).
        if (reached.size === 0) continue;
        for (const at of podPorts(pod)) {
          if (!at.port || reached.has(at.port.containerPort)) continue;
          candidates.push({ meta: { ...serviceMeta, ...podMeta(pod, at) }, pod, container: at.container });
        }
      }
    }
    (spec.endpoints ?? []).forEach((ep, endpoint) => {
      const generated: Relabel[] = [
        ...portFilter("__meta_kubernetes_endpoint_port_name", ep),
        { sourceLabels: addressTarget, regex: "Node;(.*)", targetLabel: "node" },
        { sourceLabels: addressTarget, regex: "Pod;(.*)", targetLabel: "pod" },
        { sourceLabels: ["__meta_kubernetes_namespace"], targetLabel: "namespace" },
        { sourceLabels: ["__meta_kubernetes_service_name"], targetLabel: "service" },
        { sourceLabels: ["__meta_kubernetes_pod_name"], targetLabel: "pod" },
        { sourceLabels: ["__meta_kubernetes_pod_container_name"], targetLabel: "container" },
        ...(spec.targetLabels ?? []).map((l) =>
          copyIfSet(`__meta_kubernetes_service_label_${sanitize(l)}`, sanitize(l)),
        ),
        ...podTargetLabels(spec.podTargetLabels),
        { sourceLabels: ["__meta_kubernetes_service_name"], targetLabel: "job" },
        ...(spec.jobLabel
          ? [copyIfSet(`__meta_kubernetes_service_label_${sanitize(spec.jobLabel)}`, "job")]
          : []),
        ...endpointLabel(ep),
        ...(ep.relabelings ?? []),
      ];
      for (const c of candidates) {
        const labels = relabel({ ...c.meta, __metrics_path__: ep.path ?? "/metrics" }, generated);
        if (!labels) continue;
        out.push(operatorTarget(m, endpoint, ep.honorLabels, labels, c.pod, c.container));
      }
    });
  }
  return out;
}

/**
 * Managed Prometheus' targets (prometheus-engine pod_config.go at v0.17.2): a port name scrapes the
 * container port of that name, a number the pod at that port (declared or served); job is the monitor's
 * name; a PodMonitoring adds `namespace` always, a ClusterPodMonitoring only where its metadata lists it
 * (default: container, namespace, pod, top_level_controller_*); `fromPod` copies pod labels.
 */
function managedTargets(pods: readonly PodTemplate[], m: KubeObject): Target[] {
  const spec = (m.spec ?? {}) as {
    selector?: LabelSelector;
    endpoints?: { port: string | number; path?: string }[];
    targetLabels?: { metadata?: string[]; fromPod?: { from: string; to?: string }[] };
  };
  const cluster = m.kind === "ClusterPodMonitoring";
  // The CRD defaults `metadata` only inside a `targetLabels` the object has; without one the operator
  // adds none, but a ClusterPodMonitoring still gets `namespace` (pod_config.go).
  const metadata = spec.targetLabels
    ? (spec.targetLabels.metadata ??
      (cluster
        ? ["container", "namespace", "pod", "top_level_controller_name", "top_level_controller_type"]
        : ["container", "pod", "top_level_controller_name", "top_level_controller_type"]))
    : cluster
      ? ["namespace"]
      : [];
  const selected = pods.filter(
    (p) => (cluster || p.namespace === m.metadata.namespace) && selects(spec.selector, p.labels),
  );
  const out: Target[] = [];
  (spec.endpoints ?? []).forEach((ep, endpoint) => {
    // A port name is an anchored regex over the container ports' names; each port it matches is a target.
    // A number is the pod's address at that port, one target per pod, without a container label; one
    // nothing serves scrapes nothing, so a container must declare it or be known to listen on it.
    const named = typeof ep.port === "string" ? compile(ep.port) : undefined;
    for (const pod of selected) {
      const served =
        typeof ep.port === "string"
          ? podPorts(pod).filter(({ port }) => port?.name !== undefined && named?.test(port.name) === true)
          : podPorts(pod)
              .filter(
                ({ container, port }) =>
                  port?.containerPort === ep.port || (container.listens ?? []).includes(Number(ep.port)),
              )
              .slice(0, 1);
      // The instance is the pod's name, or its node's for a DaemonSet's pod.
      const instance = pod.owner.kind === "DaemonSet" ? "node-1" : podName(pod);
      for (const at of served) {
        const labels: Record<string, string> = {
          job: m.metadata.name,
          instance: `${instance}:${typeof ep.port === "string" ? (at.port?.name ?? "") : ep.port}`,
          ...(cluster && !metadata.includes("namespace") ? {} : { namespace: pod.namespace }),
          ...(metadata.includes("pod") ? { pod: podName(pod) } : {}),
          ...(metadata.includes("container") && typeof ep.port === "string"
            ? { container: at.container.name }
            : {}),
          ...(metadata.includes("top_level_controller_name")
            ? { top_level_controller_name: pod.owner.metadata.name }
            : {}),
          ...(metadata.includes("top_level_controller_type")
            ? { top_level_controller_type: pod.owner.kind }
            : {}),
          ...(metadata.includes("node") ? { node: "node-1" } : {}),
        };
        for (const f of spec.targetLabels?.fromPod ?? []) {
          if (pod.labels[f.from] !== undefined) labels[sanitize(f.to ?? f.from)] = pod.labels[f.from];
        }
        out.push({
          monitor: nameOf(m),
          monitorObject: m,
          endpoint,
          labels,
          path: ep.path ?? "/metrics",
          podLabels: pod.labels,
          honorLabels: false,
          pod,
          container: at.container,
          port: typeof ep.port === "number" ? ep.port : at.port?.containerPort,
        });
      }
    }
  });
  return out;
}

/** The monitor kinds, Prometheus Operator's and Managed Prometheus's. */
export const monitorKinds: ReadonlySet<string> = new Set([
  "PodMonitor",
  "ServiceMonitor",
  "PodMonitoring",
  "ClusterPodMonitoring",
]);

/** Managed Prometheus' monitor kinds, whose collectors run in gmp-system. */
export const managedMonitorKinds: ReadonlySet<string> = new Set(["PodMonitoring", "ClusterPodMonitoring"]);

/**
 * The targets of one monitor, or of every monitor of the set. With `everyOwnerKind`, each meshed pod is
 * also tried as owned by every other kind of workload (for checking the labels a monitor maps).
 */
export function scrapeTargets(
  set: ObjectSet,
  options: { readonly monitor?: KubeObject; readonly everyOwnerKind?: boolean } = {},
): Target[] {
  const pods = options.everyOwnerKind ? everyOwnerKind(set.pods) : set.pods;
  const monitors = options.monitor ? [options.monitor] : set.objects.filter((o) => monitorKinds.has(o.kind));
  return monitors.flatMap((o) => {
    switch (o.kind) {
      case "PodMonitor":
        return podMonitorTargets(pods, o);
      case "ServiceMonitor":
        return serviceMonitorTargets(set, pods, o);
      case "PodMonitoring":
      case "ClusterPodMonitoring":
        return managedTargets(pods, o);
      default:
        return [];
    }
  });
}
