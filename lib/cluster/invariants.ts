import { admittedPod, mutatingWebhooks, namespaceMap, proxyAskedFor, type ObjectSet } from "./objectSet";
import { type MeshAdmission } from "../meshes";
import { meshAdmissions } from "../meshes/models";
import { charts } from "../versions";
import {
  acmeSolversOutsideTheMesh,
  noOpenAccess,
  scrapesPassTheMesh,
  type CrossingFinding,
} from "./crossings";
import {
  nameOf,
  podTemplateOf,
  selects,
  type Container,
  type KubeObject,
  type LabelSelector,
  type PodTemplate,
} from "./objects";
import { monitorKinds, scrapeTargets } from "./scrapes";
import { certificateFactsHold } from "./certificateFacts";
import { probesAuthorized } from "./probes";
import { caKeysConfined } from "./secretReaders";

/** One thing in a render's object set that would fail or silently degrade on a cluster. */
export interface ClusterFinding {
  readonly invariant: ClusterInvariant;
  /** The object (or release) at fault, as `Kind namespace/name`. */
  readonly object: string;
  /** What is wrong and the fix. */
  readonly message: string;
}

/** The invariants over the whole object set a cluster receives. */
export const clusterInvariants = {
  "releases-template": "every release templates: no chart refuses the platform's values",
  "monitors-select": "every monitor selects a pod exposing the port it scrapes; every mesh part is scraped",
  "proxies-injected":
    "every namespace and pod that asks for a mesh proxy is selected by an installed injection webhook",
  "production-sizing":
    "in prod: requests and a memory limit on every container, two replicas of every control plane spread across zones, a disruption budget that keeps one replica and lets one go for every replicated workload",
  "references-resolve":
    "every Service a route sends to and every Linkerd Server selects a pod; every issuer, ServiceAccount, Secret and ConfigMap a pod or Certificate needs exists",
  "objects-unique": "no object is rendered twice: by two releases, or by a release and the platform",
  "scrapes-pass-the-mesh": "every monitor's scrape of a meshed pod gets through the mesh's mTLS",
  "acme-solvers-outside-the-mesh":
    "every ACME HTTP-01 solver pod stays out of the mesh, so no policy or mTLS refuses the challenge",
  "no-open-access": "no policy the platform writes lets every address in",
  "certificate-facts-hold":
    "the certificate inventory's chart facts, which certificates-renewed judges, match what each chart renders: its issuers and Certificates, the TLS Secrets and CA bundles it writes at template time, the Secrets its pods mount",
  "probes-authorized":
    "kubelet's HTTP probes of every meshed pod, the charts' included, get through the mesh's inbound policy",
  "disruption-budgets-valid": "no PodDisruptionBudget sets both minAvailable and maxUnavailable",
  "ca-keys-confined":
    "no identity but the component that owns a CA key (cert-manager; trust-manager in its trust namespace) can read the Secret that holds it",
} as const;

export type ClusterInvariant = keyof typeof clusterInvariants;

/** Every invariant over one object set. */
export function checkClusterInvariants(set: ObjectSet): ClusterFinding[] {
  return (Object.keys(checks) as ClusterInvariant[]).flatMap((k) => checks[k](set));
}

/** A crossing check's findings, under its invariant's name. */
const crossing =
  (invariant: ClusterInvariant, check: (set: ObjectSet) => CrossingFinding[]) =>
  (set: ObjectSet): ClusterFinding[] =>
    check(set).map((f) => ({ invariant, ...f }));

const checks: Record<ClusterInvariant, (set: ObjectSet) => ClusterFinding[]> = {
  "objects-unique": (set) => {
    const seen = new Map<string, string>();
    const findings: ClusterFinding[] = [];
    for (const o of set.objects) {
      const id = `${o.apiVersion.split("/").length > 1 ? o.apiVersion.split("/")[0] : ""}/${nameOf(o)}`;
      const source = set.releaseOf.get(o)?.name ?? "the platform";
      const first = seen.get(id);
      if (first === undefined) seen.set(id, source);
      else
        findings.push({
          invariant: "objects-unique",
          object: nameOf(o),
          message: `is rendered by ${first} and by ${source}: the second install fails (Helm refuses an object another release owns) or the two fight over it; rename one or turn one off`,
        });
    }
    return findings;
  },
  "scrapes-pass-the-mesh": crossing("scrapes-pass-the-mesh", scrapesPassTheMesh),
  "acme-solvers-outside-the-mesh": crossing("acme-solvers-outside-the-mesh", acmeSolversOutsideTheMesh),
  "no-open-access": crossing("no-open-access", noOpenAccess),
  "ca-keys-confined": crossing("ca-keys-confined", caKeysConfined),
  "probes-authorized": crossing("probes-authorized", probesAuthorized),
  "certificate-facts-hold": crossing("certificate-facts-hold", certificateFactsHold),
  // policy/v1 validation refuses a budget with both (kubernetes pkg/apis/policy/validation ValidatePodDisruptionBudgetSpec).
  "disruption-budgets-valid": (set) =>
    set.objects
      .filter((o) => o.kind === "PodDisruptionBudget")
      .filter((o) => {
        const spec = (o.spec ?? {}) as { minAvailable?: unknown; maxUnavailable?: unknown };
        return spec.minAvailable !== undefined && spec.maxUnavailable !== undefined;
      })
      .map((o) => ({
        invariant: "disruption-budgets-valid",
        object: nameOf(o),
        message:
          "sets both minAvailable and maxUnavailable: the API server refuses it and the release that carries it fails; set one",
      })),
  "releases-template": (set) =>
    set.releases
      .filter((r) => r.error)
      .map((r) => ({
        invariant: "releases-template",
        object: `release ${r.namespace}/${r.name}`,
        message: `${r.chart} ${r.version} refuses the platform's values at Kubernetes ${set.kubeVersion}: ${r.error}; the install would fail, so the config must set what the chart requires or refuse it`,
      })),

  "monitors-select": (set) => {
    const findings: ClusterFinding[] = [];
    const monitors = set.objects.filter((o) => monitorKinds.has(o.kind));
    const targets = scrapeTargets(set);
    // A mesh's monitor of every proxy is a catch-all for the workloads users add later: a render may have
    // none yet, and the mesh-parts rule below judges it by what it must cover.
    for (const m of monitors.filter((o) => !isProxyCatchAll(o))) {
      endpointPorts(m).forEach((port, endpoint) => {
        if (targets.some((t) => t.monitorObject === m && t.endpoint === endpoint)) return;
        findings.push({
          invariant: "monitors-select",
          object: nameOf(m),
          message: `selects no pod exposing port ${JSON.stringify(port ?? "(any)")} that its relabelings keep, so it never scrapes anything: match the selector, namespace, port and relabelings to what the workload's pods carry, or drop the monitor where the workload is not installed`,
        });
      });
    }
    if (monitors.length === 0) return findings;
    // Where monitoring is on, every mesh part is scraped: control planes, ztunnel, and every proxy itself.
    for (const pod of set.pods.filter((p) => isMeshPart(set, p))) {
      const onPod = targets.filter((t) => t.pod === pod);
      const proxy = meshAdmissions.find((a) => a.mesh === pod.proxy);
      const part = meshPartOf(set, pod);
      const gaps = [
        // The proxy's metrics come from its own container, not from the init containers the injector adds.
        ...(proxy &&
        !onPod.some(
          (t) => t.container?.injectedBy === proxy.mesh && t.container.name === proxy.proxyContainer,
        )
          ? [`its ${proxy.mesh} proxy`]
          : []),
        // A control plane's own metrics come from its own containers: a Linkerd controller's chart-rendered
        // proxy is not one; ztunnel's only container is named as the sidecar is (ztunnel chart
        // templates/daemonset.yaml).
        ...(part &&
        !onPod.some(
          (t) =>
            t.container !== undefined &&
            t.container.injectedBy === undefined &&
            (t.container.name !== part.mesh.proxyContainer || part.chart === part.mesh.nodeProxyChart),
        )
          ? ["its own metrics"]
          : []),
      ];
      if (gaps.length > 0) {
        findings.push({
          invariant: "monitors-select",
          object: nameOf(pod.owner),
          message: `is part of the mesh, but no monitor scrapes ${gaps.join(" or ")}: add a monitor that selects its pods, port and container`,
        });
      }
    }
    return findings;
  },

  "proxies-injected": (set) => {
    const namespaces = namespaceMap(set.objects);
    const findings: ClusterFinding[] = [];
    for (const pod of set.pods) {
      const asked = proxyAskedFor(pod, namespaces);
      if (!asked || pod.proxy) continue;
      findings.push({
        invariant: "proxies-injected",
        object: nameOf(pod.owner),
        message: `asks for the ${asked.mesh} proxy, but no installed injection webhook selects it, so it runs outside the mesh: label it for the injector that is installed (a revisioned istiod selects istio.io/rev)`,
      });
    }
    // A namespace that asks for a proxy: a pod with no labels of its own there must be injected.
    for (const ns of namespaces.values()) {
      const bare: PodTemplate = {
        owner: ns,
        namespace: ns.metadata.name,
        labels: {},
        annotations: {},
        serviceAccountName: "default",
        containers: [],
        initContainers: [],
        volumes: [],
      };
      const seen = admittedPod(bare, namespaces);
      const asked = meshAdmissions.find((a) => a.asksForProxy(seen));
      if (!asked) continue;
      const injected = mutatingWebhooks(set.objects).some(
        (w) =>
          asked.isInjectionWebhook(w.name) &&
          selects(w.namespaceSelector, seen.namespaceLabels) &&
          selects(w.objectSelector, seen.labels),
      );
      if (!injected) {
        findings.push({
          invariant: "proxies-injected",
          object: nameOf(ns),
          message: `asks for the ${asked.mesh} proxy for its pods, but no installed injection webhook selects it: label it for the installed injector`,
        });
      }
    }
    return findings;
  },

  "production-sizing": (set) => {
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
  },

  "references-resolve": (set) => {
    const findings: ClusterFinding[] = [];
    const find = (kind: string, namespace: string | undefined, name: string) =>
      set.objects.find(
        (o) =>
          o.kind === kind &&
          o.metadata.name === name &&
          (namespace === undefined || o.metadata.namespace === namespace),
      );
    const push = (o: KubeObject, message: string) =>
      findings.push({ invariant: "references-resolve", object: nameOf(o), message });
    // Services that routes send to, and Linkerd Servers: each selects a pod serving the port.
    for (const o of set.objects) {
      for (const target of serviceTargets(o)) {
        const svc = find("Service", target.namespace, target.name);
        if (!svc) {
          push(
            o,
            `sends to Service ${target.namespace}/${target.name}, which nothing creates: create it or fix the name`,
          );
        } else if (!servicePods(set, svc).length) {
          push(
            o,
            `sends to Service ${target.namespace}/${target.name}, which selects no pod: requests would find no endpoint`,
          );
        }
      }
      if (
        o.kind === "Server" &&
        o.apiVersion.startsWith("policy.linkerd.io/") &&
        !renderedUnconditionally(set, o)
      ) {
        const spec = o.spec as { podSelector?: LabelSelector; port?: string | number };
        const pods = set.pods.filter(
          (p) => p.namespace === o.metadata.namespace && selects(spec.podSelector, p.labels),
        );
        if (!pods.some((p) => exposes(p, spec.port))) {
          push(
            o,
            `selects no pod serving port ${JSON.stringify(spec.port)}: its policy protects nothing; match the pods' labels and port`,
          );
        }
      }
      if (o.kind === "Certificate" && o.apiVersion.startsWith("cert-manager.io/")) {
        const ref = (o.spec as { issuerRef?: { name: string; kind?: string } }).issuerRef;
        if (
          ref &&
          !find(
            ref.kind ?? "Issuer",
            ref.kind === "ClusterIssuer" ? undefined : o.metadata.namespace,
            ref.name,
          )
        ) {
          push(
            o,
            `names ${ref.kind ?? "Issuer"} ${ref.name}, which nothing creates: the certificate is never issued`,
          );
        }
      }
    }
    // What pods mount: their ServiceAccount, and Secrets and ConfigMaps that are not optional.
    const written = writtenByControllers(set);
    for (const pod of set.pods) {
      if (
        pod.serviceAccountName !== "default" &&
        !find("ServiceAccount", pod.namespace, pod.serviceAccountName)
      ) {
        push(
          pod.owner,
          `runs as ServiceAccount ${pod.serviceAccountName}, which nothing creates: its pods are never admitted`,
        );
      }
      for (const v of pod.volumes) {
        const secret = v.secret as { secretName?: string; optional?: boolean } | undefined;
        const cm = v.configMap as { name?: string; optional?: boolean } | undefined;
        const need =
          secret?.secretName && !secret.optional
            ? ["Secret", secret.secretName]
            : cm?.name && !cm.optional
              ? ["ConfigMap", cm.name]
              : undefined;
        if (!need) continue;
        const [kind, name] = need;
        if (find(kind, pod.namespace, name) || written.has(`${kind} ${pod.namespace}/${name}`)) continue;
        push(
          pod.owner,
          `mounts ${kind} ${name}, which nothing in the set creates or writes: its pods never start`,
        );
      }
    }
    return findings;
  },
};

/**
 * Objects a chart renders whatever its values, for a component the platform turns off, which select
 * nothing and do nothing: linkerd-viz's Server for its own Prometheus, rendered even with
 * `prometheus.enabled: false` (viz/charts/linkerd-viz/templates/prometheus-policy.yaml at edge-26.8.3).
 */
const unconditional: readonly { chart: string; kind: string; name: string }[] = [
  { chart: "linkerd-viz", kind: "Server", name: "prometheus-admin" },
];

function renderedUnconditionally(set: ObjectSet, o: KubeObject): boolean {
  const release = set.releaseOf.get(o);
  return unconditional.some(
    (u) => u.chart === release?.chart && u.kind === o.kind && u.name === o.metadata.name,
  );
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

/** Each endpoint's port, by name or number (`undefined` where it names none), in the monitor's order. */
function endpointPorts(m: KubeObject): (string | number | undefined)[] {
  const spec = (m.spec ?? {}) as {
    podMetricsEndpoints?: { port?: string; portNumber?: number }[];
    endpoints?: { port?: string | number }[];
  };
  if (m.kind === "PodMonitor") return (spec.podMetricsEndpoints ?? [{}]).map((e) => e.port ?? e.portNumber);
  return (spec.endpoints ?? [{}]).map((e) => e.port);
}

/** One of the meshes' monitors of every proxy, over every namespace. */
function isProxyCatchAll(m: KubeObject): boolean {
  const everyNamespace =
    m.kind === "ClusterPodMonitoring" ||
    (m.spec as { namespaceSelector?: { any?: boolean } } | undefined)?.namespaceSelector?.any === true;
  return (
    everyNamespace && meshAdmissions.some((a) => a.proxyMonitors.includes(`${m.kind} ${m.metadata.name}`))
  );
}

/** Whether a container of the pod declares the port, by name or number. */
function exposes(pod: PodTemplate, port: string | number | undefined): boolean {
  if (port === undefined) return true;
  return [...pod.containers, ...pod.initContainers].some((c) =>
    (c.ports ?? []).some((p) => p.name === port || p.containerPort === port),
  );
}

function servicePods(set: ObjectSet, svc: KubeObject): PodTemplate[] {
  const selector = (svc.spec as { selector?: Record<string, string> } | undefined)?.selector;
  if (!selector || Object.keys(selector).length === 0) return [];
  return set.pods.filter(
    (p) => p.namespace === svc.metadata.namespace && selects({ matchLabels: selector }, p.labels),
  );
}

/** A pod of a mesh chart whose own metrics monitoring must cover: a control plane, ztunnel. */
function meshPartOf(set: ObjectSet, pod: PodTemplate): { mesh: MeshAdmission; chart: string } | undefined {
  const chart = set.releaseOf.get(pod.owner)?.chart;
  const mesh = chart === undefined ? undefined : meshAdmissions.find((m) => m.scrapedCharts.includes(chart));
  return mesh && chart !== undefined ? { mesh, chart } : undefined;
}

/** Control planes, ztunnel, and every pod with a proxy: what the mesh's monitors must cover. */
function isMeshPart(set: ObjectSet, pod: PodTemplate): boolean {
  // Jobs run and finish; only what keeps running is scraped.
  if (pod.owner.kind === "Job" || pod.owner.kind === "CronJob") return false;
  return pod.proxy !== undefined || meshPartOf(set, pod) !== undefined;
}

/** The Services a route, an Ingress or an IngressRoute sends to, with their namespace. */
function serviceTargets(o: KubeObject): { namespace: string; name: string }[] {
  const ns = o.metadata.namespace ?? "default";
  if (o.kind === "HTTPRoute") {
    const rules =
      (
        o.spec as {
          rules?: { backendRefs?: { name: string; kind?: string; group?: string; namespace?: string }[] }[];
        }
      ).rules ?? [];
    return rules.flatMap((r) =>
      (r.backendRefs ?? [])
        .filter((b) => (b.kind ?? "Service") === "Service" && (b.group ?? "") === "")
        .map((b) => ({ namespace: b.namespace ?? ns, name: b.name })),
    );
  }
  if (o.kind === "Ingress" && o.apiVersion === "networking.k8s.io/v1") {
    const spec = o.spec as {
      rules?: { http?: { paths?: { backend?: { service?: { name: string } } }[] } }[];
    };
    return (spec.rules ?? []).flatMap((r) =>
      (r.http?.paths ?? []).flatMap((p) =>
        p.backend?.service ? [{ namespace: ns, name: p.backend.service.name }] : [],
      ),
    );
  }
  if (o.kind === "IngressRoute") {
    const routes =
      (o.spec as { routes?: { services?: { name: string; kind?: string; namespace?: string }[] }[] })
        .routes ?? [];
    return routes.flatMap((r) =>
      (r.services ?? [])
        .filter((s) => (s.kind ?? "Service") === "Service")
        .map((s) => ({ namespace: s.namespace ?? ns, name: s.name })),
    );
  }
  return [];
}

/**
 * Secrets and ConfigMaps that controllers in the set write, so pods may mount them though no template
 * creates them: each with the controller that writes it.
 */
function writtenByControllers(set: ObjectSet): Set<string> {
  const out = new Set<string>();
  const namespaces = [...namespaceMap(set.objects).keys(), ...new Set(set.pods.map((p) => p.namespace))];
  const installed = new Set(set.releases.map((r) => r.chart));
  for (const ns of namespaces) {
    // Kubernetes' root CA publisher writes it into every namespace.
    out.add(`ConfigMap ${ns}/kube-root-ca.crt`);
    for (const mesh of meshAdmissions)
      for (const written of mesh.writtenInto(ns, installed)) out.add(written);
  }
  for (const o of set.objects) {
    // kube-webhook-certgen Jobs write the Secret named by --secret-name (kube-prometheus-stack
    // templates/prometheus-operator/admission-webhooks/job-patch/job-createSecret.yaml).
    const job = o.kind === "Job" ? podTemplateOf(o) : undefined;
    for (const c of job?.containers ?? []) {
      const args = (c as { args?: string[] }).args ?? [];
      const name = args.find((a) => a.startsWith("--secret-name="))?.slice("--secret-name=".length);
      const ns =
        args.find((a) => a.startsWith("--namespace="))?.slice("--namespace=".length) ?? o.metadata.namespace;
      if (name) out.add(`Secret ${ns}/${name}`);
    }
    // cert-manager writes each Certificate's secretName.
    if (o.kind === "Certificate" && o.apiVersion.startsWith("cert-manager.io/")) {
      out.add(`Secret ${o.metadata.namespace}/${(o.spec as { secretName: string }).secretName}`);
    }
    // trust-manager writes each Bundle's target into the namespaces its selector matches.
    if (o.kind === "Bundle" && o.apiVersion.startsWith("trust.cert-manager.io/")) {
      const target = (
        o.spec as { target?: { configMap?: unknown; secret?: unknown; namespaceSelector?: LabelSelector } }
      ).target;
      for (const ns of namespaceMap(set.objects).values()) {
        if (
          !selects(target?.namespaceSelector, {
            "kubernetes.io/metadata.name": ns.metadata.name,
            ...ns.metadata.labels,
          })
        )
          continue;
        if (target?.configMap) out.add(`ConfigMap ${ns.metadata.name}/${o.metadata.name}`);
        if (target?.secret) out.add(`Secret ${ns.metadata.name}/${o.metadata.name}`);
      }
    }
  }
  return out;
}
