import { meshAdmissions } from "../../meshes/models";
import { charts } from "../../versions";
import type { ClusterFinding } from "../findings";
import type { ObjectSet } from "../objectSet";
import {
  nameOf,
  selects,
  type Container,
  type KubeObject,
  type LabelSelector,
  type PodTemplate,
} from "../objects";

/** `production-sizing`: in prod, requests and a memory limit on every container, two replicas of every control plane spread across zones, a disruption budget that keeps one replica and lets one go. */
export function productionSizing(set: ObjectSet): ClusterFinding[] {
  if (set.tier !== "prod") return [];
  const findings: ClusterFinding[] = [];
  const push = (o: KubeObject, message: string) =>
    findings.push({ invariant: "production-sizing", object: nameOf(o), message });
  // An autoscaled Deployment runs at least its autoscaler's minimum.
  const hpaMinimum = new Map(
    set.objects
      .filter((o) => o.kind === "HorizontalPodAutoscaler")
      .map((o) => {
        const spec = o.spec as { scaleTargetRef?: { name?: string }; minReplicas?: number };
        return [`${o.metadata.namespace}/${spec.scaleTargetRef?.name}`, spec.minReplicas ?? 1] as const;
      }),
  );
  const pdbs = set.objects.filter((o) => o.kind === "PodDisruptionBudget");
  for (const pod of set.pods) {
    const containers = [...pod.initContainers, ...pod.containers];
    const unrequested = containers
      .filter((c) => !c.resources?.requests?.cpu || !c.resources?.requests?.memory)
      .map((c) => c.name);
    if (unrequested.length > 0) {
      push(
        pod.owner,
        `containers without CPU and memory requests: ${unrequested.join(", ")}; the scheduler places them blind and they are first to be evicted: set requests (and a memory limit)`,
      );
    }
    const unlimited = containers.filter((c) => !c.resources?.limits?.memory).map((c) => c.name);
    if (unlimited.length > 0) {
      push(
        pod.owner,
        `containers without a memory limit: ${unlimited.join(", ")}; a leak in one takes memory from every pod on its node until the kernel kills at random: set a memory limit`,
      );
    }
    const autoscaled = hpaMinimum.get(`${pod.namespace}/${pod.owner.metadata.name}`);
    const replicas = autoscaled ?? pod.replicas;
    const release = set.releaseOf.get(pod.owner);
    const controlPlane =
      release !== undefined && controlPlaneCharts.has(release.chart) && pod.owner.kind === "Deployment";
    if (controlPlane && (replicas ?? 1) < 2) {
      push(
        pod.owner,
        `is a control plane (release ${release.name}) with ${replicas ?? 1} replica: one node drain stops it; run two or more, or an autoscaler with a minimum of two`,
      );
    }
    if (replicas === undefined || replicas < 2) continue;
    // A PodDisruptionBudget without a selector selects no pod (policy/v1).
    const budget = pdbs.find((p) => {
      const selector = (p.spec as { selector?: LabelSelector }).selector;
      return (
        p.metadata.namespace === pod.namespace && selector !== undefined && selects(selector, pod.labels)
      );
    });
    if (!budget) {
      push(
        pod.owner,
        "runs several replicas but no PodDisruptionBudget selects them: a node upgrade may evict them all at once; add one",
      );
    } else {
      const kept = keptThroughDrain(budget, replicas);
      if (kept < 1) {
        push(
          pod.owner,
          `its PodDisruptionBudget ${budget.metadata.name} keeps none of its ${replicas} replicas through a drain: set minAvailable 1 or maxUnavailable 1`,
        );
      } else if (kept >= replicas) {
        push(
          pod.owner,
          `its PodDisruptionBudget ${budget.metadata.name} lets none of its ${replicas} replicas go: every node drain and upgrade stalls on it; allow one (maxUnavailable 1)`,
        );
      }
    }
    if (controlPlane && !spreadAcrossZones(pod)) {
      push(
        pod.owner,
        "runs several replicas of a control plane but nothing spreads them across zones: one zone outage may take them all; add a topologySpreadConstraint (or pod anti-affinity) on topology.kubernetes.io/zone selecting its pods",
      );
    }
  }
  // Pods the Prometheus Operator makes from a custom resource: their containers' resources are the resource's.
  for (const o of set.objects.filter((x) => operatorWorkloads.has(x.kind))) {
    const r = (o.spec as { resources?: Container["resources"] } | undefined)?.resources;
    if (!r?.requests?.cpu || !r.requests.memory || !r.limits?.memory) {
      push(
        o,
        "sets no CPU and memory requests and memory limit for the pods its operator makes: set spec.resources",
      );
    }
  }
  return findings;
}

/** Custom resources the Prometheus Operator turns into StatefulSets whose containers take `spec.resources`. */
const operatorWorkloads = new Set(["Prometheus", "Alertmanager"]);

/** How many of `replicas` pods a PodDisruptionBudget keeps through a voluntary disruption (rounded up, as the disruption controller does). */
function keptThroughDrain(pdb: KubeObject, replicas: number): number {
  const spec = pdb.spec as { minAvailable?: number | string; maxUnavailable?: number | string };
  const scaled = (v: number | string) =>
    typeof v === "number" ? v : Math.ceil((Number(v.replace("%", "")) * replicas) / 100);
  if (spec.minAvailable !== undefined) return scaled(spec.minAvailable);
  // Neither set: nothing is kept (policy/v1 has no default).
  if (spec.maxUnavailable === undefined) return 0;
  return replicas - scaled(spec.maxUnavailable);
}

/** A topology spread or a pod anti-affinity on the zone key that selects the workload's own pods. */
function spreadAcrossZones(pod: PodTemplate): boolean {
  const spec = ((pod.owner.spec as { template?: { spec?: Record<string, unknown> } } | undefined)?.template
    ?.spec ?? {}) as {
    topologySpreadConstraints?: { topologyKey?: string; labelSelector?: LabelSelector }[];
    affinity?: {
      podAntiAffinity?: {
        requiredDuringSchedulingIgnoredDuringExecution?: {
          topologyKey?: string;
          labelSelector?: LabelSelector;
        }[];
        preferredDuringSchedulingIgnoredDuringExecution?: {
          podAffinityTerm?: { topologyKey?: string; labelSelector?: LabelSelector };
        }[];
      };
    };
  };
  const zone = "topology.kubernetes.io/zone";
  const terms = [
    ...(spec.topologySpreadConstraints ?? []),
    ...(spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []),
    ...(spec.affinity?.podAntiAffinity?.preferredDuringSchedulingIgnoredDuringExecution ?? []).map(
      (p) => p.podAffinityTerm ?? {},
    ),
  ];
  // A term without a selector counts no pods, so it spreads nothing.
  return terms.some(
    (t) => t.topologyKey === zone && t.labelSelector !== undefined && selects(t.labelSelector, pod.labels),
  );
}

/**
 * Charts that run a control plane, which must survive a node drain in prod: cert-manager and
 * trust-manager (every certificate and trust bundle), the ingress controllers (all inbound traffic), and
 * each mesh's own.
 */
const controlPlaneCharts = new Set([
  charts.certManager.chart,
  charts.trustManager.chart,
  charts.traefik.chart,
  charts.ingressNginx.chart,
  ...meshAdmissions.flatMap((m) => m.controlPlaneCharts),
]);
