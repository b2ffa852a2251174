import { meshAdmissions, type AdmittedPod } from "../meshes";
import { admittedPod, type ObjectSet } from "./objectSet";
import { nameOf, selects, type KubeObject, type LabelSelector, type PodTemplate } from "./objects";

/**
 * Invariants at the crossings of mesh, ingress, TLS and monitoring, over the object set a cluster
 * receives: what the mesh's admission and mTLS do to objects the platform and the charts create.
 * Each mesh's part of the answer comes from its admission model (lib/meshes/<mesh>/admission.ts).
 */

/** One crossing that fails on a cluster: the object at fault and what happens, with the fix. */
export interface CrossingFinding {
  readonly object: string;
  readonly message: string;
}

const monitorKinds = new Set(["PodMonitor", "ServiceMonitor", "PodMonitoring", "ClusterPodMonitoring"]);
const managedPrometheus = new Set(["PodMonitoring", "ClusterPodMonitoring"]);

function namespaceMap(set: ObjectSet): Map<string, KubeObject> {
  return new Map(set.objects.filter((o) => o.kind === "Namespace").map((o) => [o.metadata.name, o]));
}

/** Where a Prometheus of the set runs its pods: in a mesh, outside it, or (not in the set) unknown. */
function scraperInMesh(set: ObjectSet, monitor: KubeObject): boolean | undefined {
  // Managed Prometheus's collectors run in gmp-system, which the platform never enrols.
  if (managedPrometheus.has(monitor.kind)) return false;
  const prometheuses = set.objects.filter(
    (o) => o.kind === "Prometheus" && o.apiVersion.startsWith("monitoring.coreos.com/"),
  );
  if (prometheuses.length === 0) return undefined;
  const namespaces = namespaceMap(set);
  return prometheuses.every((p) => {
    const labels = {
      // The operator's own pod labels (pkg/prometheus/server/operator.go at v0.93.0).
      "app.kubernetes.io/name": "prometheus",
      ...((p.spec as { podMetadata?: { labels?: Record<string, string> } } | undefined)?.podMetadata
        ?.labels ?? {}),
    };
    const pod: PodTemplate = {
      owner: p,
      namespace: p.metadata.namespace ?? "default",
      labels,
      annotations: {},
      serviceAccountName: "default",
      containers: [],
      initContainers: [],
      volumes: [],
    };
    return meshAdmissions.some((a) => a.capturedByNodeProxy(admittedPod(pod, namespaces)));
  });
}

/** The ports a monitor scrapes: names or numbers, `undefined` where it names none. */
function scrapedPorts(m: KubeObject): (string | number | undefined)[] {
  const spec = (m.spec ?? {}) as {
    podMetricsEndpoints?: { port?: string; portNumber?: number }[];
    endpoints?: { port?: string | number; targetPort?: string | number }[];
  };
  if (m.kind === "PodMonitor") return (spec.podMetricsEndpoints ?? [{}]).map((e) => e.port ?? e.portNumber);
  return (spec.endpoints ?? [{}]).map((e) => e.port);
}

/** Pods a PodMonitor or PodMonitoring selects, with the relabelling that picks one container applied. */
function monitoredPods(set: ObjectSet, m: KubeObject): PodTemplate[] {
  const spec = (m.spec ?? {}) as {
    selector?: LabelSelector;
    namespaceSelector?: { any?: boolean; matchNames?: string[] };
  };
  const inScope = (ns: string) =>
    m.kind === "ClusterPodMonitoring" ||
    spec.namespaceSelector?.any === true ||
    (spec.namespaceSelector?.matchNames ?? [m.metadata.namespace]).includes(ns);
  return set.pods.filter((p) => inScope(p.namespace) && selects(spec.selector, p.labels));
}

/** A port's number on a pod, by name or as given. */
function portNumber(pod: PodTemplate, port: string | number | undefined): number | undefined {
  if (typeof port === "number") return port;
  for (const c of [...pod.containers, ...pod.initContainers])
    for (const p of c.ports ?? []) if (p.name !== undefined && p.name === port) return p.containerPort;
  return undefined;
}

interface Relabel {
  readonly action?: string;
  readonly sourceLabels?: readonly string[];
  readonly regex?: string;
  readonly replacement?: string;
  readonly targetLabel?: string;
}

/**
 * The port a PodMonitor's endpoint really scrapes on a pod, after its relabellings: a target rewritten
 * to a fixed port (`__address__` replaced by `...:<port>`, as a merged-metrics PodMonitor does) or to the
 * pod's `prometheus.io/port` annotation (Istio's envoy-stats-monitor); else the endpoint's own port.
 */
function scrapedPort(
  m: KubeObject,
  pod: PodTemplate,
  declared: string | number | undefined,
): string | number | undefined {
  const endpoints =
    (m.spec as { podMetricsEndpoints?: { relabelings?: Relabel[] }[] } | undefined)?.podMetricsEndpoints ??
    [];
  for (const e of endpoints)
    for (const r of e.relabelings ?? []) {
      if (r.targetLabel !== "__address__") continue;
      if ((r.sourceLabels ?? []).includes("__meta_kubernetes_pod_annotation_prometheus_io_port")) {
        const annotated = Number(pod.annotations["prometheus.io/port"]);
        if (Number.isInteger(annotated) && annotated > 0) return annotated;
      }
      const fixed = /:(\d+)$/.exec(r.replacement ?? "")?.[1];
      if (fixed) return Number(fixed);
    }
  return declared;
}

/** Every Pod- and ServiceMonitor scrape of a meshed pod passes the mesh's mTLS. */
export function scrapesPassTheMesh(set: ObjectSet): CrossingFinding[] {
  const findings: CrossingFinding[] = [];
  const namespaces = namespaceMap(set);
  for (const m of set.objects.filter((o) => monitorKinds.has(o.kind) && o.kind !== "ServiceMonitor")) {
    const inMesh = scraperInMesh(set, m);
    for (const declared of scrapedPorts(m)) {
      for (const pod of monitoredPods(set, m)) {
        const port = scrapedPort(m, pod, declared);
        for (const mesh of meshAdmissions) {
          const refusal = mesh.scrapeRefusal({
            pod: admittedPod(pod, namespaces),
            namespace: pod.namespace,
            sidecar: pod.proxy === mesh.mesh,
            captured: pod.captured === mesh.mesh,
            port,
            portNumber: portNumber(pod, port),
            scraperInMesh: inMesh,
            objects: set.objects,
          });
          if (refusal)
            findings.push({
              object: nameOf(m),
              message: `scrapes ${nameOf(pod.owner)}, which ${mesh.mesh} refuses: ${refusal}`,
            });
        }
      }
    }
  }
  return findings;
}

/** cert-manager's HTTP-01 solver pod's own metadata (pkg/issuer/acme/http/pod.go at v1.21.1). */
const solverLabels = { "acme.cert-manager.io/http01-solver": "true" };
const solverAnnotations = { "sidecar.istio.io/inject": "false" };

interface Http01Solver {
  readonly http01?: {
    readonly ingress?: {
      readonly podTemplate?: {
        readonly metadata?: {
          readonly labels?: Record<string, string>;
          readonly annotations?: Record<string, string>;
        };
      };
    };
  };
}

/**
 * ACME HTTP-01 solver pods, which cert-manager runs in each Certificate's namespace, stay out of the
 * mesh: a meshed solver is refused by a deny-by-default namespace or by STRICT mTLS, and the
 * certificate is never issued.
 */
export function acmeSolversOutsideTheMesh(set: ObjectSet): CrossingFinding[] {
  const findings: CrossingFinding[] = [];
  const namespaces = namespaceMap(set);
  const issuers = set.objects.filter(
    (o) => (o.kind === "ClusterIssuer" || o.kind === "Issuer") && o.apiVersion.startsWith("cert-manager.io/"),
  );
  const webhooks = set.objects
    .filter((o) => o.kind === "MutatingWebhookConfiguration")
    .flatMap(
      (o) =>
        (o.webhooks ?? []) as {
          name: string;
          namespaceSelector?: LabelSelector;
          objectSelector?: LabelSelector;
        }[],
    );
  const installed = new Set(set.releases.filter((r) => !r.error).map((r) => r.chart));
  for (const cert of set.objects.filter(
    (o) => o.kind === "Certificate" && o.apiVersion.startsWith("cert-manager.io/"),
  )) {
    const ref = (cert.spec as { issuerRef?: { name: string; kind?: string } }).issuerRef;
    const issuer = issuers.find(
      (i) =>
        i.metadata.name === ref?.name &&
        i.kind === (ref?.kind ?? "Issuer") &&
        (i.kind === "ClusterIssuer" || i.metadata.namespace === cert.metadata.namespace),
    );
    const solvers = (
      (issuer?.spec as { acme?: { solvers?: Http01Solver[] } } | undefined)?.acme?.solvers ?? []
    ).filter((s) => s.http01?.ingress);
    for (const solver of solvers) {
      const template = solver.http01?.ingress?.podTemplate?.metadata ?? {};
      const owner: KubeObject = {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "cm-acme-http-solver", namespace: cert.metadata.namespace },
      };
      const pod: AdmittedPod = admittedPod(
        {
          owner,
          namespace: cert.metadata.namespace ?? "default",
          labels: { ...solverLabels, ...template.labels },
          annotations: { ...solverAnnotations, ...template.annotations },
          serviceAccountName: "default",
          containers: [],
          initContainers: [],
          volumes: [],
        },
        namespaces,
      );
      for (const mesh of meshAdmissions) {
        const injected = webhooks.some(
          (w) =>
            mesh.isInjectionWebhook(w.name) &&
            selects(w.namespaceSelector, pod.namespaceLabels) &&
            selects(w.objectSelector, pod.labels) &&
            mesh.injects(pod),
        );
        const captured =
          mesh.nodeProxyChart !== undefined &&
          installed.has(mesh.nodeProxyChart) &&
          mesh.capturedByNodeProxy(pod);
        if (injected || captured)
          findings.push({
            object: nameOf(cert),
            message: `is issued over ACME HTTP-01 by ${nameOf(issuer ?? owner)}, whose solver pod in ${cert.metadata.namespace} would join the ${mesh.mesh} mesh, where a deny-by-default policy or STRICT mTLS refuses the challenge: opt it out in the solver's podTemplate (Mesh.acmeSolverPod)`,
          });
      }
    }
  }
  return findings;
}

/**
 * No policy the platform writes lets every address in: each mesh's admission model says which of its
 * objects would (`MeshAdmission.openAccess`). User rules name identities only, so none is excused.
 */
export function noOpenAccess(set: ObjectSet): CrossingFinding[] {
  const platform = set.objects.filter((x) => !set.releaseOf.has(x));
  return meshAdmissions.flatMap((m) =>
    m.openAccess(platform).map((f) => ({ object: nameOf(f.object), message: f.message })),
  );
}
