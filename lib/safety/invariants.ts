import { crdClaims, crdFamilies, type CrdFamily } from "../crds";
import {
  meshAdmissions,
  cidrWithin,
  refusedProbes,
  type AdmissionObject,
  type MeshGrant,
  type MeshSource,
  type AdmittedPod,
  type MeshAdmission,
} from "../meshes";
import { charts, gkeAnnotations, privateNetworks, type ChartName } from "../versions";
import { certificateInventory } from "./certificates";

/**
 * The platform's safety invariants, as pure checks over resources as Pulumi sees them. The test
 * suite asserts them on every render; the policy pack (policy/) enforces them on any Pulumi program.
 */

/** What a remote component's transforms do to the children its provider registers (a helm.v4.Chart's). */
export interface RemoteChildren {
  /** A CustomResourceDefinition among its children, after the transforms. */
  readonly crd: {
    readonly retainOnDelete: boolean;
    readonly annotations: Readonly<Record<string, string>>;
  };
  /** The transforms refuse every child that is not a CustomResourceDefinition. */
  readonly crdsOnly: boolean;
}

/** A resource as a check sees it: what a render records, and what a policy pack is given. */
export interface ResourceView {
  readonly type: string;
  readonly name: string;
  readonly inputs: Readonly<Record<string, unknown>>;
  readonly protect: boolean;
  /** Undefined where the caller cannot see it (policy packs are not told). */
  readonly retainOnDelete?: boolean;
  /**
   * For a remote component (a helm.v4.Chart), what its transforms make of the children its provider
   * registers; undefined where the caller cannot see it (a policy pack sees the children themselves).
   */
  readonly children?: RemoteChildren;
}

export const invariants = {
  "single-crd-owner": "One owner per CRD family, and no chart installs Gateway API CRDs while GKE owns them.",
  "crd-releases-retained":
    "CRDs, Helm releases that install them and the CRDs of CRD charts are retained on delete; charts keep their CRDs where they can.",
  "prod-protected": "Prod clusters have GKE deletion protection and Pulumi protect.",
  "no-plain-secrets": "No private key, token or password in plain inputs.",
  "namespace-pod-security": "Every namespace enforces a Pod Security level.",
  "jobs-finish": "Jobs in meshed namespaces can finish: native sidecars, or not injected.",
  "consistent-neg":
    "Every Service behind a Google load balancer carries one NEG annotation that every controller reaching it accepts.",
  "probes-authorized":
    "Where a Linkerd Server has routes, every HTTP probe of its pods matches a route authorized from the networks kubelet probes from.",
  "certificates-renewed":
    "Every certificate the program's components make, mount or reference has something that renews it.",
  "network-policy-admits-mesh-grants":
    "Where a NetworkPolicy isolates pods, every caller the mesh's authorization lets in from another namespace or from outside the cluster gets through it, on the port the mesh receives the call on.",
} as const;

export type InvariantName = keyof typeof invariants;

export interface Violation {
  readonly invariant: InvariantName;
  /** `type::name` of the resource at fault. */
  readonly resource: string;
  readonly message: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const at = (v: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((cur, p) => (isObj(cur) ? cur[p] : undefined), v);
const key = (r: ResourceView) => `${r.type}::${r.name}`;
/** A string input as-is; anything else is not a usable name. */
const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

const helmRelease = "kubernetes:helm.sh/v3:Release";
/** A chart the provider renders and applies object by object: the platform's CRD charts. */
const helmChart = "kubernetes:helm.sh/v4:Chart";
const gkeCluster = "gcp:container/cluster:Cluster";

/** Every violation of every invariant among these resources. */
export function checkInvariants(resources: readonly ResourceView[]): Violation[] {
  return (Object.keys(invariants) as InvariantName[]).flatMap((name) => checks[name](resources));
}

/** One check per invariant, over all the resources of a program. */
export const checks: Record<InvariantName, (resources: readonly ResourceView[]) => Violation[]> = {
  "single-crd-owner": singleCrdOwner,
  "crd-releases-retained": crdReleasesRetained,
  "prod-protected": prodProtected,
  "no-plain-secrets": noPlainSecrets,
  "namespace-pod-security": namespacePodSecurity,
  "jobs-finish": jobsFinish,
  "consistent-neg": consistentNeg,
  "probes-authorized": probesAuthorized,
  "certificates-renewed": certificatesRenewed,
  "network-policy-admits-mesh-grants": networkPolicyAdmitsMeshGrants,
};

/** The certificate inventory's entries that nothing renews (lib/safety/certificates.ts). */
function certificatesRenewed(resources: readonly ResourceView[]): Violation[] {
  return certificateInventory(resources)
    .filter((e) => e.renewer === undefined)
    .map((e) => ({
      invariant: "certificates-renewed" as const,
      resource: e.resource,
      message: `${e.certificate} (${e.purpose}) from ${e.source} has nothing that renews it${e.evidence ? ` (${e.evidence})` : ""}: when it expires, whatever trusts it fails; issue it with a cert-manager Certificate (for Linkerd's webhooks: <webhook>.externalSecret and injectCaFrom)`,
    }));
}

/** The pinned chart a Helm release installs, by chart name. */
function chartOf(r: ResourceView): ChartName | undefined {
  const chart = at(r.inputs, "chart");
  return (Object.keys(charts) as ChartName[]).find((c) => charts[c].chart === chart);
}

/** The families a Helm release or a helm.v4.Chart installs, from its values and whether it skips crds/. */
function releaseClaims(r: ResourceView): CrdFamily[] {
  const chart = chartOf(r);
  const values = at(r.inputs, "values");
  return chart ? crdClaims(chart, isObj(values) ? values : {}, at(r.inputs, "skipCrds") === true) : [];
}

/** Helm releases, and the charts the provider applies (CRD charts): everything that installs a chart's CRDs. */
const installsCharts = (r: ResourceView): boolean => r.type === helmRelease || r.type === helmChart;

/** A Kubernetes object's kind and metadata, from a render's inputs or a policy's props. */
function object(r: ResourceView): {
  kind?: string;
  name?: string;
  namespace?: string;
  labels: Obj;
  annotations: Obj;
} {
  const kind = at(r.inputs, "kind");
  const metadata = at(r.inputs, "metadata");
  return {
    kind: typeof kind === "string" ? kind : undefined,
    name: typeof at(metadata, "name") === "string" ? (at(metadata, "name") as string) : undefined,
    namespace:
      typeof at(metadata, "namespace") === "string" ? (at(metadata, "namespace") as string) : undefined,
    labels: isObj(at(metadata, "labels")) ? (at(metadata, "labels") as Obj) : {},
    annotations: isObj(at(metadata, "annotations")) ? (at(metadata, "annotations") as Obj) : {},
  };
}

function singleCrdOwner(resources: readonly ResourceView[]): Violation[] {
  const out: Violation[] = [];
  const gkeOwnsGateway = resources.some(
    (r) => r.type === gkeCluster && at(r.inputs, "gatewayApiConfig", "channel") === "CHANNEL_STANDARD",
  );
  /** Per family, each owner: a Helm release, or the program's own CRD objects (a bundle), as one. */
  const owners = new Map<CrdFamily, { label: string; resources: string[] }[]>();
  const add = (family: CrdFamily, owner: { label: string; resources: string[] }) =>
    owners.set(family, [...(owners.get(family) ?? []), owner]);
  for (const r of resources.filter(installsCharts)) {
    for (const family of releaseClaims(r)) add(family, { label: key(r), resources: [key(r)] });
  }
  // Where the children of a helm.v4.Chart are seen (a policy pack), they are that chart's, not a second owner:
  // the provider names each `<chart resource name>:<object name>` (pkg/provider/yaml/v2/yaml.go Register,
  // its resource prefix the chart's name by default, pkg/provider/helm/v4/chart.go).
  const chartPrefixes = resources.filter((r) => r.type === helmChart).map((r) => `${r.name}:`);
  const handWritten = new Map<CrdFamily, string[]>();
  for (const r of resources) {
    const group = at(r.inputs, "spec", "group");
    if (object(r).kind !== "CustomResourceDefinition" || typeof group !== "string") continue;
    if (chartPrefixes.some((p) => r.name.startsWith(p))) continue;
    const family = (Object.keys(crdFamilies) as CrdFamily[]).find((f) =>
      (crdFamilies[f].groups as readonly string[]).includes(group),
    );
    if (family) handWritten.set(family, [...(handWritten.get(family) ?? []), key(r)]);
  }
  for (const [family, crds] of handWritten) {
    add(family, {
      label: crds.length === 1 ? crds[0] : `${crds.length} CustomResourceDefinitions (${crds[0]}, ...)`,
      resources: crds,
    });
  }
  for (const [family, list] of owners) {
    if (list.length > 1) {
      out.push({
        invariant: "single-crd-owner",
        resource: list[1].resources[0],
        message: `${crdFamilies[family].title} CRDs are installed by ${list.length} owners: ${list.map((o) => o.label).join(", ")}`,
      });
    }
  }
  if (gkeOwnsGateway) {
    for (const owner of owners.get("gatewayApi") ?? []) {
      out.push({
        invariant: "single-crd-owner",
        resource: owner.resources[0],
        message: `${owner.label} installs Gateway API CRDs, but GKE owns them (gatewayApiConfig.channel CHANNEL_STANDARD); removing it would delete every route`,
      });
    }
  }
  return out;
}

function crdReleasesRetained(resources: readonly ResourceView[]): Violation[] {
  const out: Violation[] = [];
  for (const r of resources) {
    if (object(r).kind === "CustomResourceDefinition" && r.retainOnDelete === false) {
      out.push({
        invariant: "crd-releases-retained",
        resource: key(r),
        message: `${key(r)} is not retainOnDelete: removing it from the stack would delete every object of its kind`,
      });
    }
  }
  for (const r of resources.filter((x) => x.type === helmChart)) {
    const claims = releaseClaims(r);
    // retainOnDelete does not reach a component's children (pulumi-kubernetes#3065): only its transforms retain them.
    if (claims.length === 0 || r.children === undefined || r.children.crd.retainOnDelete) continue;
    out.push({
      invariant: "crd-releases-retained",
      resource: key(r),
      message: `${key(r)} applies the ${claims.map((f) => crdFamilies[f].title).join(", ")} CRDs, but its transforms do not retain them on delete: removing it from the stack would delete them and every object in them`,
    });
  }
  for (const r of resources.filter((x) => x.type === helmRelease)) {
    const claims = releaseClaims(r);
    if (claims.length === 0) continue;
    if (r.retainOnDelete === false) {
      out.push({
        invariant: "crd-releases-retained",
        resource: key(r),
        message: `${key(r)} installs the ${claims.map((f) => crdFamilies[f].title).join(", ")} CRDs but is not retainOnDelete: removing it from the stack would delete them and every object in them`,
      });
    }
    // Charts with a keep switch keep their CRDs on uninstall (helm.sh/resource-policy: keep).
    const chart = chartOf(r);
    if (
      (chart === "certManager" || chart === "trustManager") &&
      at(r.inputs, "values", "crds", "keep") === false
    ) {
      out.push({
        invariant: "crd-releases-retained",
        resource: key(r),
        message: `${key(r)} sets crds.keep false: an uninstall would delete its CRDs`,
      });
    }
  }
  return out;
}

function prodProtected(resources: readonly ResourceView[]): Violation[] {
  return resources
    .filter((r) => r.type === gkeCluster && at(r.inputs, "resourceLabels", "environment") === "prod")
    .filter((r) => at(r.inputs, "deletionProtection") !== true || !r.protect)
    .map((r) => ({
      invariant: "prod-protected" as const,
      resource: key(r),
      message: `prod cluster ${key(r)} needs deletionProtection true (has ${String(at(r.inputs, "deletionProtection"))}) and Pulumi protect (has ${String(r.protect)})`,
    }));
}

/** Keys that hold a secret value (names of Secrets, like `existingSecret`, are not matched). */
const secretKeys = /(password|passwd|token|clientSecret|privateKey|apiKey|key\.pem|tls\.key)$/i;

function noPlainSecrets(resources: readonly ResourceView[]): Violation[] {
  const out: Violation[] = [];
  const walk = (r: ResourceView, v: unknown, path: string): void => {
    if (typeof v === "string") {
      if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(v)) {
        out.push({
          invariant: "no-plain-secrets",
          resource: key(r),
          message: `${key(r)} has a private key in plain input ${path}`,
        });
      }
      return;
    }
    if (Array.isArray(v)) return v.forEach((x, i) => walk(r, x, `${path}[${i}]`));
    if (!isObj(v)) return;
    for (const [k, child] of Object.entries(v)) {
      if (secretKeys.test(k) && typeof child === "string" && child !== "" && child !== "[secret]") {
        out.push({
          invariant: "no-plain-secrets",
          resource: key(r),
          message: `${key(r)} has ${path ? `${path}.` : ""}${k} in plain input; pass it as a Pulumi secret`,
        });
        continue;
      }
      walk(r, child, path ? `${path}.${k}` : k);
    }
  };
  for (const r of resources) walk(r, r.inputs, "");
  return out;
}

const podSecurityLevels = new Set(["privileged", "baseline", "restricted"]);

function namespacePodSecurity(resources: readonly ResourceView[]): Violation[] {
  const unlabelled = resources
    .filter((r) => object(r).kind === "Namespace" && r.type.startsWith("kubernetes:"))
    .filter((r) => !podSecurityLevels.has(String(object(r).labels["pod-security.kubernetes.io/enforce"])))
    .map((r) => ({
      invariant: "namespace-pod-security" as const,
      resource: key(r),
      message: `namespace ${object(r).name} has no pod-security.kubernetes.io/enforce label (privileged, baseline or restricted)`,
    }));
  // Helm creates a namespace with no labels at all.
  const helmCreated = resources
    .filter((r) => r.type === helmRelease && at(r.inputs, "createNamespace") === true)
    .map((r) => ({
      invariant: "namespace-pod-security" as const,
      resource: key(r),
      message: `${key(r)} has Helm create namespace ${String(at(r.inputs, "namespace"))}, without Pod Security labels; create the namespace as its own resource, labelled`,
    }));
  return [...unlabelled, ...helmCreated];
}

/** String values only: what an admission webhook reads of labels and annotations. */
const stringsOf = (o: Obj): Record<string, string> =>
  Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => typeof e[1] === "string"));

/**
 * Jobs and CronJobs whose pods get a proxy that is not a native sidecar, decided by each mesh's own
 * admission model (lib/meshes/<mesh>/admission.ts, which the cluster tier runs too): whether the pod
 * asks for the proxy, and what the injector adds given the Helm values of the control planes serving it.
 */
function jobsFinish(resources: readonly ResourceView[]): Violation[] {
  const namespaces = new Map(
    resources.filter((r) => object(r).kind === "Namespace").map((r) => [object(r).name, object(r)] as const),
  );
  const controlPlanes = (chart: string): Obj[] =>
    resources
      .filter((r) => r.type === helmRelease && at(r.inputs, "chart") === chart)
      .map((r) => (isObj(at(r.inputs, "values")) ? (at(r.inputs, "values") as Obj) : {}));
  /** A classic sidecar: the proxy among the pod's containers, not a native (init) sidecar. */
  const keepsRunning = (admission: MeshAdmission, pod: AdmittedPod): boolean => {
    if (!admission.asksForProxy(pod)) return false;
    const serving = admission.servingControlPlanes(pod, controlPlanes(admission.proxyConfigChart));
    // Without a release in the program, the chart's defaults decide.
    return (serving.length > 0 ? serving : [{}]).some((values) =>
      admission.proxy(pod, values).containers.some((c) => c.name === admission.proxyContainer),
    );
  };
  const out: Violation[] = [];
  for (const r of resources) {
    const o = object(r);
    if (o.kind !== "Job" && o.kind !== "CronJob") continue;
    const ns = namespaces.get(o.namespace) ?? { labels: {}, annotations: {} };
    const template =
      o.kind === "Job"
        ? at(r.inputs, "spec", "template")
        : at(r.inputs, "spec", "jobTemplate", "spec", "template");
    const pod: AdmittedPod = {
      labels: stringsOf((at(template, "metadata", "labels") ?? {}) as Obj),
      annotations: stringsOf((at(template, "metadata", "annotations") ?? {}) as Obj),
      namespaceLabels: stringsOf(ns.labels),
      namespaceAnnotations: stringsOf(ns.annotations),
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

const gceIngressClasses = new Set(["gce", "gce-internal", "gce-regional-external", "gce-multi-cluster"]);

/**
 * An Ingress GKE's own controller serves: one of its classes (reference gke-gateway.md), or no class
 * at all, which GKE serves with an external Application Load Balancer.
 */
function isGceIngress(r: ResourceView): boolean {
  const annotated = object(r).annotations[gkeAnnotations.ingressClass];
  const className = at(r.inputs, "spec", "ingressClassName");
  if (annotated === undefined && className === undefined) return true;
  return gceIngressClasses.has(String(annotated)) || gceIngressClasses.has(String(className));
}

function consistentNeg(resources: readonly ResourceView[]): Violation[] {
  const gkeGateways = new Set(
    resources
      .filter(
        (r) =>
          object(r).kind === "Gateway" &&
          String(at(r.inputs, "spec", "gatewayClassName")).startsWith("gke-l7"),
      )
      .map((r) => `${object(r).namespace}/${object(r).name}`),
  );
  /** Service `ns/name` → what reaches it: GCE Ingress, and the ports GKE Gateway uses. */
  const reached = new Map<string, { gce: boolean; ports: Set<number> }>();
  const mark = (svc: string, f: (e: { gce: boolean; ports: Set<number> }) => void) => {
    const e = reached.get(svc) ?? { gce: false, ports: new Set<number>() };
    f(e);
    reached.set(svc, e);
  };
  for (const r of resources) {
    const o = object(r);
    if (o.kind === "HTTPRoute") {
      const parents = (at(r.inputs, "spec", "parentRefs") ?? []) as Obj[];
      const onGke = parents.some((p) => gkeGateways.has(`${str(p.namespace) ?? o.namespace}/${str(p.name)}`));
      if (!onGke) continue;
      for (const rule of (at(r.inputs, "spec", "rules") ?? []) as Obj[]) {
        for (const b of (rule.backendRefs ?? []) as Obj[]) {
          if (b.kind === undefined || b.kind === "Service")
            mark(`${str(b.namespace) ?? o.namespace}/${str(b.name)}`, (e) => e.ports.add(Number(b.port)));
        }
      }
    }
    if (o.kind === "Ingress" && isGceIngress(r)) {
      const backends = [
        at(r.inputs, "spec", "defaultBackend"),
        ...((at(r.inputs, "spec", "rules") ?? []) as Obj[]).flatMap((rule) =>
          ((at(rule, "http", "paths") ?? []) as Obj[]).map((p) => p.backend),
        ),
      ];
      for (const b of backends) {
        const name = at(b, "service", "name");
        if (typeof name === "string") mark(`${o.namespace}/${name}`, (e) => (e.gce = true));
      }
    }
  }
  const out: Violation[] = [];
  for (const r of resources) {
    const o = object(r);
    if (o.kind !== "Service") continue;
    const need = reached.get(`${o.namespace}/${o.name}`);
    if (!need) continue;
    let neg: unknown;
    try {
      neg = JSON.parse(str(o.annotations[gkeAnnotations.neg]) ?? "");
    } catch {
      neg = undefined;
    }
    const ports = isObj(at(neg, "exposed_ports")) ? (at(neg, "exposed_ports") as Obj) : {};
    const problems = [
      ...(need.gce && at(neg, "ingress") !== true ? ['GCE Ingress needs "ingress": true'] : []),
      ...[...need.ports]
        .filter((p) => !(String(p) in ports))
        .map((p) => `GKE Gateway needs exposed_ports ${p}`),
    ];
    if (problems.length > 0) {
      out.push({
        invariant: "consistent-neg",
        resource: key(r),
        message: `Service ${o.namespace}/${o.name} has ${gkeAnnotations.neg} ${JSON.stringify(o.annotations[gkeAnnotations.neg] ?? null)}: ${problems.join("; ")}`,
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
function probesAuthorized(resources: readonly ResourceView[]): Violation[] {
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

/** Whether a selector (its `matchLabels`) selects pods with these labels. */
const selects = (selector: unknown, podLabels: Obj): boolean =>
  Object.entries((at(selector, "matchLabels") ?? {}) as Obj).every(([k, v]) => podLabels[k] === v);

/** Whether a NetworkPolicy rule's peer lets the source in. */
function peerAdmits(peer: Obj, source: MeshSource, policyNamespace: string): boolean {
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
  const labels = at(nsSelector, "matchLabels") as Obj | undefined;
  return (
    at(nsSelector, "matchExpressions") === undefined &&
    Object.entries(labels ?? {}).every(
      ([k, v]) => k === "kubernetes.io/metadata.name" && v === source.namespace,
    )
  );
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

/**
 * A mesh grant is worth nothing if the NetworkPolicy in front of the pods drops the connection first:
 * a caller from another namespace (Linkerd's meshed calls arrive on the proxy's inbound port: the
 * transport header, linkerd/website 2-edge/common-errors/network-policy.md), or a load balancer's
 * range. Where a NetworkPolicy selects the pods, one of them must admit each such grant on its port.
 * Callers from the cluster's own ranges (kubelet, Prometheus) are pods or the node: a NetworkPolicy
 * admits those by namespace, or always (the node), so they are judged by the tests, not here.
 */
function networkPolicyAdmitsMeshGrants(resources: readonly ResourceView[]): Violation[] {
  const policies = resources.filter(
    (r) => object(r).kind === "NetworkPolicy" && r.type.startsWith("kubernetes:"),
  );
  if (policies.length === 0) return [];
  const isolating = (r: ResourceView) => {
    const types = at(r.inputs, "spec", "policyTypes") as unknown[] | undefined;
    return types === undefined ? true : types.includes("Ingress");
  };
  const out: Violation[] = [];
  for (const grant of meshGrants(resources, clusterRanges(resources))) {
    const applying = policies.filter(
      (p) =>
        object(p).namespace === grant.namespace &&
        isolating(p) &&
        selects(at(p.inputs, "spec", "podSelector"), grant.podLabels),
    );
    if (applying.length === 0) continue;
    const admitted = grant.ports.every((port) =>
      applying.some((p) =>
        ((at(p.inputs, "spec", "ingress") as Obj[] | undefined) ?? []).some((rule) => {
          const from = rule.from as Obj[] | undefined;
          const ports = rule.ports as Obj[] | undefined;
          const sourceOk =
            from === undefined ||
            from.length === 0 ||
            from.some((peer) => peerAdmits(peer, grant.source, grant.namespace));
          const portOk =
            ports === undefined ||
            ports.length === 0 ||
            ports.some((q) => q.port === undefined || q.port === port);
          return sourceOk && portOk;
        }),
      ),
    );
    if (admitted) continue;
    const who =
      "cidr" in grant.source
        ? `clients from ${grant.source.cidr}`
        : `workloads of namespace ${grant.source.namespace}`;
    out.push({
      invariant: "network-policy-admits-mesh-grants",
      resource: key(grant.resource),
      message: `${grant.by} lets ${who} into pods of ${grant.namespace}, but no NetworkPolicy there (${applying.map((p) => object(p).name).join(", ")}) admits them on port ${grant.ports.join(", ")}: their connections would be dropped before the mesh sees them. Let them in with the NetworkPolicy (docs/mesh-policy.md, "Namespace isolation"), or remove the grant`,
    });
  }
  return out;
}
