import type { AdmissionObject, AdmittedPod, MeshAdmission } from "./admissionModel";
import { list, obj, record } from "../json";

/**
 * Kubelet's HTTP probes of every pod that gets a mesh's proxy or is captured by its node proxy, each
 * judged by that mesh's own inbound model (`MeshAdmission.probeRefusal`). The render's invariants, the
 * policy pack and the cluster tier all ask this one function, over the objects each of them sees.
 */

/** Workloads whose pods kubelet probes for as long as they run. */
const podOwners = new Set(["Deployment", "StatefulSet", "DaemonSet"]);
const probeKinds = ["readinessProbe", "livenessProbe", "startupProbe"] as const;

/** One probe a mesh refuses: the workload, the probe and the mesh's reason. */
export interface RefusedProbe {
  readonly owner: AdmissionObject;
  readonly container: string;
  readonly probe: (typeof probeKinds)[number];
  readonly path: string;
  readonly mesh: MeshAdmission;
  /** The mesh's reason. */
  readonly reason: string;
  /** What happens and the fix, after the workload's name. */
  readonly message: string;
}

/**
 * Every probe of `objects`' workloads a mesh would refuse. `controlPlanes(chart)` gives the Helm values of
 * each release of a mesh's proxy config chart; none means the chart's defaults.
 */
export function refusedProbes(
  admissions: readonly MeshAdmission[],
  objects: readonly AdmissionObject[],
  controlPlanes: (chart: string) => readonly Readonly<Record<string, unknown>>[],
): RefusedProbe[] {
  const namespaces = new Map(
    objects.filter((o) => o.kind === "Namespace").map((o) => [o.metadata.name, obj(o.metadata)] as const),
  );
  const out: RefusedProbe[] = [];
  for (const owner of objects.filter((o) => podOwners.has(o.kind))) {
    const namespace = owner.metadata.namespace ?? "default";
    const template = obj(obj(owner.spec).template);
    const ns = namespaces.get(namespace) ?? {};
    const pod: AdmittedPod = {
      labels: record(obj(template.metadata).labels),
      annotations: record(obj(template.metadata).annotations),
      namespaceLabels: record(ns.labels),
      namespaceAnnotations: record(ns.annotations),
      workload: owner.metadata.name,
      workloadKind: owner.kind,
    };
    for (const mesh of admissions) {
      const sidecar = mesh.asksForProxy(pod);
      const captured = mesh.capturedByNodeProxy(pod);
      if (!sidecar && !captured) continue;
      const serving = mesh.servingControlPlanes(pod, controlPlanes(mesh.proxyConfigChart));
      const containers = obj(template.spec).containers;
      for (const c of list(containers)) {
        const ports = list(c.ports);
        for (const probe of probeKinds) {
          const get = obj(obj(c[probe]).httpGet);
          if (get.port === undefined) continue;
          const declared = ports.find((p) => p.name === get.port || p.containerPort === get.port);
          const portName = typeof get.port === "string" ? get.port : (declared?.name as string | undefined);
          const portNumber =
            typeof get.port === "number" ? get.port : (declared?.containerPort as number | undefined);
          const path = typeof get.path === "string" ? get.path : "/";
          const reason = mesh.probeRefusal({
            pod,
            namespace,
            sidecar,
            captured,
            portName,
            portNumber,
            path,
            objects,
            controlPlanes: serving,
          });
          if (!reason) continue;
          const message = `its ${probe} GET ${path} ${reason}. Kubelet's probes carry no mesh identity, so they would be refused and the pods never become ready: authorize the probe path as the platform's apps do (docs/mesh-policy.md)`;
          out.push({ owner, container: String(c.name), probe, path, mesh, reason, message });
        }
      }
    }
  }
  return out;
}
