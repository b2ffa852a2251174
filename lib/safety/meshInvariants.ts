import {
  type AdmissionObject,
  type MeshGrant,
  type MeshSource,
  type AdmittedPod,
  type InjectedProxy,
  type MeshAdmission,
} from "../meshes";
import { meshAdmissions, cidrWithin, refusedProbes } from "../meshes/models";
import { namespaceNameLabel, selects } from "../manifests/selectors";
import { groupBy } from "../json";
import { privateNetworks } from "../versions";
import {
  at,
  helmRelease,
  isObj,
  key,
  object,
  str,
  type Obj,
  type ResourceView,
  type Violation,
} from "./resources";

/**
 * Where the mesh meets the cluster: Jobs finish, kubelet's probes get in, and NetworkPolicies let in
 * what the mesh grants; each mesh's part answered by its own model in lib/meshes.
 */

/** String values only: what an admission webhook reads of labels and annotations. */
const stringsOf = (o: Obj): Record<string, string> =>
  Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => typeof e[1] === "string"));

/**
 * The program's Namespaces by name, as the API server holds them: their string labels and annotations,
 * and the label it sets on every namespace, its name (NamespaceDefaultLabelName, Kubernetes 1.22+).
 */
function namespacesIn(
  resources: readonly ResourceView[],
): (name: string) => { labels: Record<string, string>; annotations: Record<string, string> } {
  const byName = new Map(
    resources.filter((r) => object(r).kind === "Namespace").map((r) => [object(r).name, object(r)] as const),
  );
  return (name) => {
    const ns = byName.get(name);
    return {
      labels: { ...stringsOf(ns?.labels ?? {}), [namespaceNameLabel]: name },
      annotations: stringsOf(ns?.annotations ?? {}),
    };
  };
}

/** The Helm values of the program's releases of a chart. */
const releaseValues = (resources: readonly ResourceView[], chart: string): Obj[] =>
  resources
    .filter((r) => r.type === helmRelease && at(r.inputs, "chart") === chart)
    .map((r) => (isObj(at(r.inputs, "values")) ? (at(r.inputs, "values") as Obj) : {}));

/** What a mesh's injector adds to a pod that asks for its proxy, given the control planes serving it. */
function injectedProxies(
  resources: readonly ResourceView[],
  admission: MeshAdmission,
  pod: AdmittedPod,
  // The values of the releases of `admission.proxyConfigChart`, when the caller has them already.
  releases: readonly Obj[] = releaseValues(resources, admission.proxyConfigChart),
): InjectedProxy[] {
  if (!admission.asksForProxy(pod)) return [];
  const serving = admission.servingControlPlanes(pod, [...releases]);
  // Without a release in the program, the chart's defaults decide.
  return (serving.length > 0 ? serving : [{}]).map((values) => admission.proxy(pod, values));
}

/**
 * Jobs and CronJobs whose pods get a proxy that is not a native sidecar, decided by each mesh's own
 * admission model (lib/meshes/<mesh>/admission.ts, which the cluster tier runs too): whether the pod
 * asks for the proxy, and what the injector adds given the Helm values of the control planes serving it.
 */
export function jobsFinish(resources: readonly ResourceView[]): Violation[] {
  const namespaceOf = namespacesIn(resources);
  /** A classic sidecar: the proxy among the pod's containers, not a native (init) sidecar. */
  const keepsRunning = (admission: MeshAdmission, pod: AdmittedPod): boolean =>
    injectedProxies(resources, admission, pod).some((proxy) =>
      proxy.containers.some((c) => c.name === admission.proxyContainer),
    );
  const out: Violation[] = [];
  for (const r of resources) {
    const o = object(r);
    if (o.kind !== "Job" && o.kind !== "CronJob") continue;
    const ns = namespaceOf(o.namespace ?? "");
    const template =
      o.kind === "Job"
        ? at(r.inputs, "spec", "template")
        : at(r.inputs, "spec", "jobTemplate", "spec", "template");
    const pod: AdmittedPod = {
      labels: stringsOf((at(template, "metadata", "labels") ?? {}) as Obj),
      annotations: stringsOf((at(template, "metadata", "annotations") ?? {}) as Obj),
      namespaceLabels: ns.labels,
      namespaceAnnotations: ns.annotations,
      workload: o.name ?? "",
      workloadKind: o.kind,
    };
    const hanging = meshAdmissions.find((admission) => keepsRunning(admission, pod));
    if (hanging) {
      out.push({
        invariant: "jobs-finish",
        resource: key(r),
        message: `${o.kind} ${o.namespace}/${o.name} gets a ${hanging.title} proxy that is not a native sidecar: the proxy would keep its pods running forever. Use jobPodMetadata(mesh) on its pod template`,
      });
    }
  }
  return out;
}

/** The Kubernetes objects among the resources, as the meshes' models read them, and the resource of each. */
function kubeObjects(resources: readonly ResourceView[]): {
  objects: AdmissionObject[];
  viewOf: (o: AdmissionObject) => ResourceView | undefined;
} {
  const kube = resources.filter((r) => isObj(r.inputs.metadata) && typeof r.inputs.kind === "string");
  const byObject = new Map<unknown, ResourceView>(kube.map((r) => [r.inputs, r] as const));
  return { objects: kube.map((r) => r.inputs as unknown as AdmissionObject), viewOf: (o) => byObject.get(o) };
}

/**
 * Kubelet's probes of meshed pods get through the mesh's inbound policy: asked of each mesh's own model
 * (lib/meshes/probes.ts, which the cluster tier runs over the charts' objects too). On Linkerd, once
 * routes are attached to a Server, a probe is refused unless a route matching it is authorized from the
 * networks kubelet probes from (linkerd/website 2-edge/tasks/configuring-per-route-policy.md). Pods that
 * fail their probes never become ready, and a restart loop follows.
 */
export function probesAuthorized(resources: readonly ResourceView[]): Violation[] {
  const { objects, viewOf } = kubeObjects(resources);
  const values = (chart: string): Obj[] =>
    resources
      .filter((r) => r.type === helmRelease && at(r.inputs, "chart") === chart)
      .map((r) => (isObj(at(r.inputs, "values")) ? (at(r.inputs, "values") as Obj) : {}));
  return refusedProbes(meshAdmissions, objects, values).map((p) => {
    const owner = viewOf(p.owner);
    return {
      invariant: "probes-authorized" as const,
      resource: owner ? key(owner) : `${p.owner.kind}::${p.owner.metadata.name}`,
      message: `${p.owner.kind} ${p.owner.metadata.namespace}/${p.owner.metadata.name}: ${p.message}`,
    };
  });
}

/**
 * The cluster's own node and pod ranges: the platform's subnets but the proxy-only one. Callers from them
 * are pods (a NetworkPolicy admits them by namespace) or kubelet (always admitted from its node). Where
 * no subnet is in the program (a cluster made elsewhere), the private ranges stand in.
 */
function clusterRanges(resources: readonly ResourceView[]): string[] {
  const subnets = resources.filter(
    (r) =>
      r.type === "gcp:compute/subnetwork:Subnetwork" && at(r.inputs, "purpose") !== "REGIONAL_MANAGED_PROXY",
  );
  if (subnets.length === 0) return [...privateNetworks];
  return subnets.flatMap((r) => [
    ...(str(at(r.inputs, "ipCidrRange")) ? [String(at(r.inputs, "ipCidrRange"))] : []),
    ...((at(r.inputs, "secondaryIpRanges") as Obj[] | undefined) ?? []).flatMap((x) =>
      typeof x.ipCidrRange === "string" ? [x.ipCidrRange] : [],
    ),
  ]);
}

/** A selector as the API server evaluates it (matchLabels and matchExpressions), on string labels. */
const selectorMatches = (selector: unknown, labels: Obj): boolean =>
  selects(isObj(selector) ? selector : undefined, stringsOf(labels));

/**
 * Whether a NetworkPolicy rule's peer lets the source in. A namespace source is a mesh identity of any
 * workload there: a peer admits it where its namespaceSelector selects the namespace's labels (those of
 * its Namespace in the set, and the name label the API server sets), or, without one, where the policy
 * is the source's own namespace. A peer's podSelector narrows which of those pods; the grant does not
 * tell pods apart, so it is not judged here.
 */
function peerAdmits(
  peer: Obj,
  source: MeshSource,
  policyNamespace: string,
  namespaceLabels: (namespace: string) => Obj,
): boolean {
  if ("cidr" in source) {
    const block = at(peer, "ipBlock");
    const except = ((at(block, "except") as unknown[] | undefined) ?? []).map(String);
    return (
      isObj(block) &&
      cidrWithin(source.cidr, String(block.cidr)) &&
      !except.some((e) => cidrWithin(e, source.cidr) || cidrWithin(source.cidr, e))
    );
  }
  const nsSelector = at(peer, "namespaceSelector");
  if (nsSelector === undefined)
    return at(peer, "podSelector") !== undefined && source.namespace === policyNamespace;
  return selectorMatches(nsSelector, namespaceLabels(source.namespace));
}

/** Every mesh's grants (lib/meshes/<mesh>/grants.ts), each with the resource that holds its object. */
function meshGrants(
  resources: readonly ResourceView[],
  cluster: readonly string[],
): (MeshGrant & { readonly resource: ResourceView })[] {
  const { objects, viewOf } = kubeObjects(resources);
  const external = (cidr: string) =>
    cidr !== "0.0.0.0/0" && cidr !== "::/0" && !cluster.some((c) => cidrWithin(cidr, c));
  return meshAdmissions.flatMap((mesh) =>
    mesh.grants(objects, external).flatMap((g) => {
      const resource = viewOf(g.object);
      return resource ? [{ ...g, resource }] : [];
    }),
  );
}

/** Pods a NetworkPolicy may select: their namespace and labels. */
export interface NetworkPolicyTarget {
  readonly namespace: string;
  readonly podLabels: Readonly<Record<string, unknown>>;
}

/** Whether the NetworkPolicies in front of the pods let the source in on the port, and which isolate them. */
export interface NetworkPolicyModel {
  (target: NetworkPolicyTarget, source: MeshSource, port: number | string): boolean;
  /** The names of the NetworkPolicies that isolate the pods' ingress; none: every connection gets in. */
  policiesOf(target: NetworkPolicyTarget): string[];
}

/** Where each workload kind holds its pod template (a Pod is its own). */
const podTemplatePaths: Readonly<Record<string, readonly string[]>> = {
  Pod: [],
  Deployment: ["spec", "template"],
  ReplicaSet: ["spec", "template"],
  StatefulSet: ["spec", "template"],
  DaemonSet: ["spec", "template"],
  Job: ["spec", "template"],
  CronJob: ["spec", "jobTemplate", "spec", "template"],
};

/**
 * The container ports of the program's pods in a namespace whose labels include the given ones, by
 * name: their containers' and init containers' (native sidecars among them), and those of the proxy a
 * mesh's injector adds (lib/meshes/<mesh>/admission.ts). A name the pods declare with more than one
 * number is left out: it means no one port. The program is indexed once and each target answered once,
 * so a model asked about every grant of 1,000 apps stays linear in the program.
 */
function namedPortsIn(
  resources: readonly ResourceView[],
): (target: NetworkPolicyTarget) => Map<string, number> {
  const namespaceOf = namespacesIn(resources);
  const workloads = new Map<
    string,
    { readonly name: string; readonly kind: string; readonly template: unknown }[]
  >();
  for (const r of resources) {
    const o = object(r);
    const path = podTemplatePaths[o.kind ?? ""];
    if (path === undefined || !r.type.startsWith("kubernetes:")) continue;
    const here = workloads.get(o.namespace ?? "") ?? [];
    here.push({
      name: o.name ?? "",
      kind: o.kind ?? "",
      template: path.length === 0 ? r.inputs : at(r.inputs, ...path),
    });
    workloads.set(o.namespace ?? "", here);
  }
  const releases = new Map(
    meshAdmissions.map((a) => [a, releaseValues(resources, a.proxyConfigChart)] as const),
  );
  const answered = new Map<string, Map<string, number>>();
  return (target) => {
    const key = JSON.stringify([target.namespace, Object.entries(target.podLabels).sort()]);
    const known = answered.get(key);
    if (known) return known;
    const ns = namespaceOf(target.namespace);
    const numbers = new Map<string, Set<number>>();
    const declare = (ports: unknown) => {
      for (const p of Array.isArray(ports) ? ports : []) {
        const name = str(at(p, "name"));
        const number = at(p, "containerPort");
        if (name !== undefined && typeof number === "number")
          numbers.set(name, (numbers.get(name) ?? new Set<number>()).add(number));
      }
    };
    for (const w of workloads.get(target.namespace) ?? []) {
      const labels = stringsOf((at(w.template, "metadata", "labels") ?? {}) as Obj);
      if (!Object.entries(target.podLabels).every(([k, v]) => labels[k] === v)) continue;
      for (const c of [
        ...((at(w.template, "spec", "containers") as unknown[] | undefined) ?? []),
        ...((at(w.template, "spec", "initContainers") as unknown[] | undefined) ?? []),
      ])
        declare(at(c, "ports"));
      const pod: AdmittedPod = {
        labels,
        annotations: stringsOf((at(w.template, "metadata", "annotations") ?? {}) as Obj),
        namespaceLabels: ns.labels,
        namespaceAnnotations: ns.annotations,
        workload: w.name,
        workloadKind: w.kind,
      };
      for (const admission of meshAdmissions)
        for (const proxy of injectedProxies(resources, admission, pod, releases.get(admission)))
          for (const c of [...proxy.containers, ...proxy.initContainers]) declare(c.ports);
    }
    const result = new Map(
      [...numbers].filter(([, n]) => n.size === 1).map(([name, n]) => [name, [...n][0]] as const),
    );
    answered.set(key, result);
    return result;
  };
}

/**
 * The program's NetworkPolicies as the API server's semantics apply them to a connection: pods no
 * isolating policy selects take every connection; the others take one that some rule of a policy
 * selecting them admits, by its peer (`peerAdmits`: a namespace's workloads or an address range; a
 * peer's podSelector is not judged, a namespace source standing for any of its workloads) and port (a
 * number, or a container port's name). A name, in the policy or asked about, is judged by the number
 * the pods declare for it (`namedPorts`, init containers and the injected proxy among them), so a
 * policy's 4143 admits what asks for `linkerd-proxy` and the other way round; a name the pods do not
 * declare matches only itself. Traffic from the pods' own node (kubelet) is always admitted and not
 * modelled.
 */
export function networkPolicyModel(resources: readonly ResourceView[]): NetworkPolicyModel {
  // By namespace, as a policy applies only to pods of its own.
  const policies = groupBy(
    resources.filter((r) => object(r).kind === "NetworkPolicy" && r.type.startsWith("kubernetes:")),
    (r) => object(r).namespace ?? "",
  );
  const namedPorts = namedPortsIn(resources);
  const namespaceOf = namespacesIn(resources);
  const namespaceLabels = (namespace: string): Obj => namespaceOf(namespace).labels;
  const isolating = (r: ResourceView) => {
    const types = at(r.inputs, "spec", "policyTypes") as unknown[] | undefined;
    return types === undefined ? true : types.includes("Ingress");
  };
  const applying = (target: NetworkPolicyTarget) =>
    (policies.get(target.namespace) ?? []).filter(
      (p) => isolating(p) && selectorMatches(at(p.inputs, "spec", "podSelector"), target.podLabels as Obj),
    );
  const admits = (target: NetworkPolicyTarget, source: MeshSource, port: number | string): boolean => {
    const policiesHere = applying(target);
    if (policiesHere.length === 0) return true;
    const names = namedPorts(target);
    const means = (p: unknown): unknown => (typeof p === "string" ? (names.get(p) ?? p) : p);
    return policiesHere.some((p) =>
      ((at(p.inputs, "spec", "ingress") as Obj[] | undefined) ?? []).some((rule) => {
        const from = rule.from as Obj[] | undefined;
        const ports = rule.ports as Obj[] | undefined;
        const sourceOk =
          from === undefined ||
          from.length === 0 ||
          from.some((peer) => peerAdmits(peer, source, target.namespace, namespaceLabels));
        const portOk =
          ports === undefined ||
          ports.length === 0 ||
          ports.some((q) => q.port === undefined || q.port === port || means(q.port) === means(port));
        return sourceOk && portOk;
      }),
    );
  };
  return Object.assign(admits, {
    policiesOf: (target: NetworkPolicyTarget) => applying(target).map((p) => String(object(p).name)),
  });
}

/** Every mesh's grants in the program (`MeshAdmission.grants`), external ranges judged against the cluster's own. */
export function meshGrantsOf(resources: readonly ResourceView[]): MeshGrant[] {
  return meshGrants(resources, clusterRanges(resources));
}

/**
 * A mesh grant is worth nothing if the NetworkPolicy in front of the pods drops the connection first:
 * a caller from another namespace (Linkerd's meshed calls arrive on the proxy's inbound port: the
 * transport header, linkerd/website 2-edge/common-errors/network-policy.md), or a load balancer's
 * range. Where a NetworkPolicy selects the pods, one of them must admit each such grant on its port.
 * Callers from the cluster's own ranges (kubelet, Prometheus) are pods or the node: a NetworkPolicy
 * admits those by namespace, or always (the node), so they are judged by the tests, not here.
 */
export function networkPolicyAdmitsMeshGrants(resources: readonly ResourceView[]): Violation[] {
  const admits = networkPolicyModel(resources);
  const out: Violation[] = [];
  for (const grant of meshGrants(resources, clusterRanges(resources))) {
    const target = { namespace: grant.namespace, podLabels: grant.podLabels };
    const applying = admits.policiesOf(target);
    if (applying.length === 0) continue;
    const admitted = grant.ports.every((port) => admits(target, grant.source, port));
    if (admitted) continue;
    const who =
      "cidr" in grant.source
        ? `clients from ${grant.source.cidr}`
        : `workloads of namespace ${grant.source.namespace}`;
    out.push({
      invariant: "network-policy-admits-mesh-grants",
      resource: key(grant.resource),
      message: `${grant.by} lets ${who} into pods of ${grant.namespace}, but no NetworkPolicy there (${applying.join(", ")}) admits them on port ${grant.ports.join(", ")}: their connections would be dropped before the mesh sees them. Let them in with the NetworkPolicy (docs/mesh-policy.md, "Namespace isolation"), or remove the grant`,
    });
  }
  return out;
}
