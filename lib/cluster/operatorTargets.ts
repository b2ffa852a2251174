/** The Prometheus Operator's scrape targets: a PodMonitor's and a ServiceMonitor's, with the relabelings the operator puts before the monitor's own. */
import {
  nameOf,
  selects,
  type Container,
  type KubeObject,
  type LabelSelector,
  type PodTemplate,
} from "./objects";
import type { ObjectSet } from "./objectSet";
import { relabel, relabelingsCompile, type Relabel } from "./relabel";
import {
  endpointMeta,
  endpointOf,
  externalServices,
  podMeta,
  podName,
  podPorts,
  sanitize,
  type ServicePort,
  type Target,
} from "./scrapeDiscovery";

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
export function podMonitorTargets(pods: readonly PodTemplate[], m: KubeObject): Target[] {
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
 * A ServiceMonitor's targets (promcfg.go generateServiceMonitorConfig at v0.93.0, role endpoints): per
 * Service it selects, an endpoint per Service port and pod behind it (or per port where a controller of
 * the set, or the cluster itself, makes the pods), and each pod's other declared ports, which service
 * discovery lists too; then the operator's relabelings (port filter, node or pod from the address's
 * target, namespace, service, pod, container, targetLabels, podTargetLabels, job from the Service's name
 * or its `jobLabel` label, endpoint) and the endpoint's own.
 */
export function serviceMonitorTargets(set: ObjectSet, pods: readonly PodTemplate[], m: KubeObject): Target[] {
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
