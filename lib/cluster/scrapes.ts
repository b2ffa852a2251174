import {
  nameOf,
  selects,
  type Container,
  type KubeObject,
  type LabelSelector,
  type PodTemplate,
} from "./objects";
import type { ObjectSet } from "./objectSet";

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

export interface Relabel {
  readonly sourceLabels?: readonly string[];
  readonly separator?: string;
  readonly targetLabel?: string;
  readonly regex?: string;
  readonly replacement?: string;
  readonly action?: string;
}

/** Prometheus' relabelling (model/relabel/relabel.go): anchored regexes, `$1` and `${1}` in replacements. */
export function relabel(
  labels: Record<string, string>,
  rules: readonly Relabel[],
): Record<string, string> | undefined {
  let out = { ...labels };
  for (const r of rules) {
    const action = (r.action ?? "replace").toLowerCase();
    const re = new RegExp(`^(?:${r.regex ?? "(.*)"})$`);
    const value = (r.sourceLabels ?? []).map((l) => out[l] ?? "").join(r.separator ?? ";");
    const expand = (m: RegExpExecArray, template: string) =>
      template.replace(/\$\{?(\w+)\}?/g, (_, g: string) => m[Number(g)] ?? "");
    switch (action) {
      case "replace": {
        const m = re.exec(value);
        if (!m || !r.targetLabel) break;
        const v = expand(m, r.replacement ?? "$1");
        const target = expand(m, r.targetLabel);
        if (v === "") delete out[target];
        else out[target] = v;
        break;
      }
      case "keep":
        if (!re.test(value)) return undefined;
        break;
      case "drop":
        if (re.test(value)) return undefined;
        break;
      case "labelmap":
        for (const [k, v] of Object.entries(out)) {
          const m = re.exec(k);
          if (m) out[expand(m, r.replacement ?? "$1")] = v;
        }
        break;
      case "labeldrop":
        out = Object.fromEntries(Object.entries(out).filter(([k]) => !re.test(k)));
        break;
      case "labelkeep":
        out = Object.fromEntries(Object.entries(out).filter(([k]) => re.test(k)));
        break;
      default:
        break;
    }
  }
  return out;
}

const sanitize = (name: string) => name.replace(/[^a-zA-Z0-9_]/g, "_");
const podIp = "10.0.0.1";

type Port = { readonly name?: string; readonly containerPort: number };

/** What Kubernetes service discovery (role pod) says of one container port of a pod. */
function podMeta(pod: PodTemplate, container: { name: string }, port: Port | undefined, init: boolean) {
  const meta: Record<string, string> = {
    __address__: `${podIp}${port ? `:${port.containerPort}` : ""}`,
    __metrics_path__: "/metrics",
    __scheme__: "http",
    __meta_kubernetes_namespace: pod.namespace,
    __meta_kubernetes_pod_name: `${pod.owner.metadata.name}-0`,
    __meta_kubernetes_pod_ip: podIp,
    __meta_kubernetes_pod_phase: "Running",
    __meta_kubernetes_pod_node_name: "node-1",
    __meta_kubernetes_pod_container_name: container.name,
    __meta_kubernetes_pod_container_init: String(init),
    __meta_kubernetes_pod_controller_kind: pod.owner.kind,
    __meta_kubernetes_pod_controller_name: pod.owner.metadata.name,
  };
  if (port) {
    if (port.name) meta.__meta_kubernetes_pod_container_port_name = port.name;
    meta.__meta_kubernetes_pod_container_port_number = String(port.containerPort);
  }
  for (const [k, v] of Object.entries(pod.labels)) {
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

/** Linkerd's owner labels (pkg/k8s/labels.go at edge-26.8.3): one per kind a meshed pod may belong to. */
const linkerdOwnerLabels = [
  "deployment",
  "replicaset",
  "replicationcontroller",
  "statefulset",
  "daemonset",
  "job",
  "cronjob",
].map((k) => `linkerd.io/proxy-${k}`);

/**
 * The render's pods, and for each meshed pod the same pod owned by every other kind of workload: the
 * labels a monitor maps from a Job's or a StatefulSet's pods are checked though the render runs none.
 */
function everyOwnerKind(pods: readonly PodTemplate[]): PodTemplate[] {
  return pods.flatMap((p) => {
    const own = linkerdOwnerLabels.find((l) => p.labels[l] !== undefined);
    if (!own) return [p];
    return [
      p,
      ...linkerdOwnerLabels
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
 * pod, job `<namespace>/<name>` (or the pod label `jobLabel` names), endpoint; then the endpoint's own.
 */
function podMonitorTargets(pods: readonly PodTemplate[], m: KubeObject): Target[] {
  const spec = (m.spec ?? {}) as {
    selector?: LabelSelector;
    jobLabel?: string;
    podMetricsEndpoints?: (Json & {
      port?: string;
      portNumber?: number;
      path?: string;
      relabelings?: Relabel[];
      honorLabels?: boolean;
    })[];
  };
  const inScope = operatorScope(m);
  const selected = pods.filter((p) => inScope(p.namespace) && selects(spec.selector, p.labels));
  const out: Target[] = [];
  (spec.podMetricsEndpoints ?? []).forEach((ep, endpoint) => {
    for (const pod of selected) {
      for (const { container, port, init } of podPorts(pod)) {
        if (ep.port !== undefined && port?.name !== ep.port) continue;
        if (ep.portNumber !== undefined && port?.containerPort !== ep.portNumber) continue;
        const meta = { ...podMeta(pod, container, port, init), __metrics_path__: ep.path ?? "/metrics" };
        const jobLabel = spec.jobLabel ? pod.labels[spec.jobLabel] : undefined;
        const generated: Relabel[] = [
          { sourceLabels: ["__meta_kubernetes_namespace"], targetLabel: "namespace" },
          { sourceLabels: ["__meta_kubernetes_pod_container_name"], targetLabel: "container" },
          { sourceLabels: ["__meta_kubernetes_pod_name"], targetLabel: "pod" },
          { targetLabel: "job", replacement: `${m.metadata.namespace}/${m.metadata.name}` },
          ...(jobLabel ? [{ targetLabel: "job", replacement: jobLabel }] : []),
          ...(ep.port ? [{ targetLabel: "endpoint", replacement: ep.port }] : []),
        ];
        const labels = relabel(meta, [...generated, ...(ep.relabelings ?? [])]);
        if (!labels) continue;
        out.push({
          monitor: nameOf(m),
          monitorObject: m,
          endpoint,
          labels: finalLabels(labels),
          path: labels.__metrics_path__ ?? "/metrics",
          podLabels: pod.labels,
          honorLabels: ep.honorLabels === true,
          pod,
          container,
          port: portOf(labels.__address__),
        });
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

type ServicePort = { name?: string; port: number; targetPort?: string | number };

/**
 * The container and port of a pod a Service port's endpoint reaches: its targetPort by name, or by
 * number whether declared or not (the endpoint is the pod's address at that number either way).
 */
function endpointOf(
  pod: PodTemplate,
  sp: ServicePort,
): { container: Container; port: Port; init: boolean } | undefined {
  const target = sp.targetPort ?? sp.port;
  for (const c of podPorts(pod))
    if (c.port !== undefined && (c.port.name === target || c.port.containerPort === target))
      return { container: c.container, port: c.port, init: c.init };
  if (typeof target !== "number") return undefined;
  const listening =
    podPorts(pod).find((c) => (c.container.listens ?? []).includes(target)) ?? podPorts(pod)[0];
  return (
    listening && { container: listening.container, port: { containerPort: target }, init: listening.init }
  );
}

/**
 * A ServiceMonitor's targets (promcfg.go generateServiceMonitorConfig at v0.93.0): per Service it selects
 * and endpoint port, the pods behind it serving that port (or one target where a controller of the set,
 * or the cluster itself, makes the pods), with namespace, service, pod, container, job (the Service's
 * name, or its `jobLabel` label), endpoint, the Service labels in targetLabels, `node` for endpoints on
 * nodes; then the endpoint's relabelings.
 */
function serviceMonitorTargets(set: ObjectSet, pods: readonly PodTemplate[], m: KubeObject): Target[] {
  const spec = (m.spec ?? {}) as {
    selector?: LabelSelector;
    jobLabel?: string;
    targetLabels?: string[];
    endpoints?: { port?: string; path?: string; relabelings?: Relabel[]; honorLabels?: boolean }[];
  };
  const inScope = operatorScope(m);
  const services = [...set.objects.filter((o) => o.kind === "Service"), ...externalServices].filter(
    (o) => inScope(o.metadata.namespace ?? "") && selects(spec.selector, o.metadata.labels ?? {}),
  );
  const out: Target[] = [];
  for (const svc of services) {
    const svcLabels = svc.metadata.labels ?? {};
    const selector = (svc.spec as { selector?: Record<string, string> }).selector;
    const behind =
      selector && Object.keys(selector).length > 0
        ? pods.filter(
            (p) => p.namespace === svc.metadata.namespace && selects({ matchLabels: selector }, p.labels),
          )
        : [];
    const external = externalServices.includes(svc);
    const madeBy = selector?.["app.kubernetes.io/name"] ?? "";
    const made =
      operatorKinds[madeBy] !== undefined &&
      set.objects.some(
        (o) => o.kind === operatorKinds[madeBy] && o.metadata.namespace === svc.metadata.namespace,
      )
        ? operatorContainers[madeBy]
        : undefined;
    (spec.endpoints ?? []).forEach((ep, endpoint) => {
      const ports = ((svc.spec as { ports?: ServicePort[] }).ports ?? []).filter(
        (p) => ep.port === undefined || p.name === ep.port,
      );
      if (ports.length === 0) return;
      const base: Record<string, string> = {
        __address__: `${podIp}:8080`,
        __metrics_path__: ep.path ?? "/metrics",
        __meta_kubernetes_namespace: svc.metadata.namespace ?? "",
        __meta_kubernetes_service_name: svc.metadata.name,
        ...Object.fromEntries(
          Object.entries(svcLabels).map(([k, v]) => [`__meta_kubernetes_service_label_${sanitize(k)}`, v]),
        ),
      };
      const generated = (podName?: string, containerName?: string): Relabel[] => [
        { sourceLabels: ["__meta_kubernetes_namespace"], targetLabel: "namespace" },
        { targetLabel: "service", replacement: svc.metadata.name },
        ...(podName ? [{ targetLabel: "pod", replacement: podName }] : []),
        ...(containerName ? [{ targetLabel: "container", replacement: containerName }] : []),
        ...(external && svc.metadata.name.endsWith("kubelet")
          ? [{ targetLabel: "node", replacement: "node-1" }]
          : []),
        { targetLabel: "job", replacement: svc.metadata.name },
        ...(spec.jobLabel && svcLabels[spec.jobLabel]
          ? [{ targetLabel: "job", replacement: svcLabels[spec.jobLabel] }]
          : []),
        ...(ep.port ? [{ targetLabel: "endpoint", replacement: ep.port }] : []),
        ...(spec.targetLabels ?? [])
          .filter((l) => svcLabels[l] !== undefined)
          .map((l) => ({ targetLabel: sanitize(l), replacement: svcLabels[l] })),
      ];
      const candidates: {
        meta: Record<string, string>;
        rules: Relabel[];
        pod?: PodTemplate;
        container?: Container;
      }[] =
        external || made
          ? [{ meta: base, rules: generated(`${svc.metadata.name}-0`, made?.[ports[0].name ?? ""]) }]
          : behind.flatMap((pod) =>
              ports.flatMap((sp) => {
                const at = endpointOf(pod, sp);
                if (!at) return [];
                return [
                  {
                    meta: {
                      ...base,
                      ...podMeta(pod, at.container, at.port, at.init),
                      __metrics_path__: ep.path ?? "/metrics",
                    },
                    rules: generated(`${pod.owner.metadata.name}-0`, at.container.name),
                    pod,
                    container: at.container,
                  },
                ];
              }),
            );
      for (const c of candidates) {
        const labels = relabel(c.meta, [...c.rules, ...(ep.relabelings ?? [])]);
        if (!labels) continue;
        out.push({
          monitor: nameOf(m),
          monitorObject: m,
          endpoint,
          labels: finalLabels(labels),
          path: labels.__metrics_path__ ?? "/metrics",
          podLabels: c.pod?.labels ?? {},
          honorLabels: ep.honorLabels === true,
          pod: c.pod,
          container: c.container,
          port: c.pod ? portOf(labels.__address__) : undefined,
        });
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
  const metadata =
    spec.targetLabels?.metadata ??
    (cluster
      ? ["container", "namespace", "pod", "top_level_controller_name", "top_level_controller_type"]
      : ["container", "pod", "top_level_controller_name", "top_level_controller_type"]);
  const selected = pods.filter(
    (p) => (cluster || p.namespace === m.metadata.namespace) && selects(spec.selector, p.labels),
  );
  const out: Target[] = [];
  (spec.endpoints ?? []).forEach((ep, endpoint) => {
    for (const pod of selected) {
      const served = podPorts(pod).find(
        ({ container, port }) =>
          port?.name === ep.port ||
          port?.containerPort === ep.port ||
          (typeof ep.port === "number" && (container.listens ?? []).includes(ep.port)),
      );
      if (!served) continue;
      const labels: Record<string, string> = {
        job: m.metadata.name,
        instance: `${pod.owner.metadata.name}-0:${ep.port}`,
        ...(cluster && !metadata.includes("namespace") ? {} : { namespace: pod.namespace }),
        ...(metadata.includes("pod") ? { pod: `${pod.owner.metadata.name}-0` } : {}),
        ...(metadata.includes("container") && typeof ep.port === "string"
          ? { container: served.container.name }
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
        container: served.container,
        port: typeof ep.port === "number" ? ep.port : served.port?.containerPort,
      });
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
