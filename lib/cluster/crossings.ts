import { type AdmittedPod } from "../meshes";
import { meshAdmissions } from "../meshes/models";
import { admittedPod, mutatingWebhooks, namespaceMap, type ObjectSet } from "./objectSet";
import { nameOf, selects, type KubeObject, type PodTemplate } from "./objects";
import { managedMonitorKinds, scrapeTargets } from "./scrapes";

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

/** Where a Prometheus of the set runs its pods: in a mesh, outside it, or (not in the set) unknown. */
function scraperInMesh(set: ObjectSet, monitor: KubeObject): boolean | undefined {
  // Managed Prometheus's collectors run in gmp-system, which the platform never enrols.
  if (managedMonitorKinds.has(monitor.kind)) return false;
  const prometheuses = set.objects.filter(
    (o) => o.kind === "Prometheus" && o.apiVersion.startsWith("monitoring.coreos.com/"),
  );
  if (prometheuses.length === 0) return undefined;
  const namespaces = namespaceMap(set.objects);
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

/** Every monitor's scrape of a meshed pod passes the mesh's mTLS, at the port it really reaches. */
export function scrapesPassTheMesh(set: ObjectSet): CrossingFinding[] {
  const findings: CrossingFinding[] = [];
  const namespaces = namespaceMap(set.objects);
  const inMesh = new Map<KubeObject, boolean | undefined>();
  for (const t of scrapeTargets(set)) {
    const pod = t.pod;
    if (!pod) continue;
    if (!inMesh.has(t.monitorObject)) inMesh.set(t.monitorObject, scraperInMesh(set, t.monitorObject));
    const declared = [...pod.containers, ...pod.initContainers]
      .flatMap((c) => c.ports ?? [])
      .find((p) => p.containerPort === t.port);
    for (const mesh of meshAdmissions) {
      const refusal = mesh.scrapeRefusal({
        pod: admittedPod(pod, namespaces),
        namespace: pod.namespace,
        sidecar: pod.proxy === mesh.mesh,
        captured: pod.captured === mesh.mesh,
        port: declared?.name ?? t.port,
        portNumber: t.port,
        path: t.path,
        scraperInMesh: inMesh.get(t.monitorObject),
        objects: set.objects,
      });
      if (refusal)
        findings.push({
          object: t.monitor,
          message: `scrapes ${nameOf(pod.owner)}, which ${mesh.mesh} refuses: ${refusal}`,
        });
    }
  }
  // One finding per monitor, pod and reason: a pod's replicas and ports say the same thing.
  return [...new Map(findings.map((f) => [`${f.object}\n${f.message}`, f])).values()];
}

/**
 * cert-manager's HTTP-01 solver pod's own metadata (pkg/issuer/acme/http/pod.go at v1.21.2): its label,
 * and what it carries for each mesh (`MeshAdmission.acmeSolverDefaults`).
 */
const solverLabels = Object.assign(
  { "acme.cert-manager.io/http01-solver": "true" },
  ...meshAdmissions.map((a) => a.acmeSolverDefaults.labels),
) as Record<string, string>;
const solverAnnotations = Object.assign(
  {},
  ...meshAdmissions.map((a) => a.acmeSolverDefaults.annotations),
) as Record<string, string>;

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
  const namespaces = namespaceMap(set.objects);
  const issuers = set.objects.filter(
    (o) => (o.kind === "ClusterIssuer" || o.kind === "Issuer") && o.apiVersion.startsWith("cert-manager.io/"),
  );
  const webhooks = mutatingWebhooks(set.objects);
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
