import type { Tier } from "../config";
import { type AdmittedPod, type MeshAdmission } from "../meshes";
import { meshAdmissions } from "../meshes/models";
import { gkeApis, gkeGatewayApis, gkeManagedPrometheusApis } from "../versions";
import { chartDirOf, pullCommand } from "../deploy/chartSource";
import type { HelmTemplater } from "./helm";
import {
  podTemplateOf,
  selects,
  type Container,
  type KubeObject,
  type LabelSelector,
  type PodTemplate,
} from "./objects";

/** One Helm release of a render, templated. */
export interface TemplatedRelease {
  readonly name: string;
  readonly namespace: string;
  readonly chart: string;
  readonly version: string;
  /** Its final values, as the platform passes them. */
  readonly values: Readonly<Record<string, unknown>>;
  readonly objects: readonly KubeObject[];
  /** Helm's message when the chart refused the values (`fail`, `required`), or why a CRD chart's output is wrong. */
  readonly error?: string;
  /** A CRD chart: the platform applies its objects itself, and they must all be CRDs. */
  readonly crdsOnly?: boolean;
  /** The release skipped the chart's crds/ directory. @default false */
  readonly skipCrds?: boolean;
}

/** What a cluster receives from one render at one Kubernetes version. */
export interface ObjectSet {
  /** The render, e.g. `stacks/prod`. */
  readonly label: string;
  readonly tier: Tier;
  readonly kubeVersion: string;
  readonly apiVersions: readonly string[];
  readonly releases: readonly TemplatedRelease[];
  /** Every object: the platform's own and every release's, each release's tagged by its name. */
  readonly objects: readonly KubeObject[];
  /** The release each chart object came from, by object. */
  readonly releaseOf: ReadonlyMap<KubeObject, TemplatedRelease>;
  /** Every pod template, with what admission adds (a mesh proxy where an installed injector injects). */
  readonly pods: readonly PodTemplate[];
}

/** One Helm release as the platform installs it. */
export interface ReleaseInput {
  readonly name: string;
  readonly namespace: string;
  /** The chart's name, as its folder in a chart folder starts (`linkerd-control-plane`). */
  readonly chart: string;
  readonly version: string;
  /** Its final values, exactly as the platform passes them. */
  readonly values: Readonly<Record<string, unknown>>;
  /** The Helm repository it comes from. */
  readonly repo: string;
  /** The release skips the chart's crds/ directory. */
  readonly skipCrds: boolean;
  /**
   * A CRD chart (a helm.v4.Chart whose transforms keep only CRDs): templated like a release, and what it
   * renders must be CRDs only. @default a Helm release
   */
  readonly crdsOnly?: boolean;
}

/** What one render puts in a cluster, before any chart is templated. */
export interface ClusterInput {
  /** The render, e.g. `stacks/prod`. */
  readonly label: string;
  readonly tier: Tier;
  /** The Kubernetes objects the platform applies itself. */
  readonly objects: readonly KubeObject[];
  /** Its Helm releases. */
  readonly releases: readonly ReleaseInput[];
  /** What GKE itself serves on the cluster beyond Kubernetes' APIs. */
  readonly gke: { readonly gatewayApi: boolean; readonly managedPrometheus: boolean };
}

/** A chart folder lacks charts a render installs: says which, and the commands that fetch them. */
export class MissingChartsError extends Error {
  constructor(
    readonly chartsDir: string,
    readonly missing: readonly ReleaseInput[],
  ) {
    const unique = [...new Map(missing.map((r) => [`${r.chart}-${r.version}`, r])).values()];
    super(
      [
        `${chartsDir} lacks ${unique.map((r) => `${r.chart} ${r.version}`).join(", ")}; fetch them with:`,
        ...unique.map(
          (r) => `  ${pullCommand(chartsDir, { repo: r.repo, name: r.chart, version: r.version })}`,
        ),
      ].join("\n"),
    );
    this.name = "MissingChartsError";
  }
}

export interface ObjectSetOptions {
  readonly templater: HelmTemplater;
  readonly chartsDir: string;
  readonly kubeVersion: string;
}

/**
 * Templates every Helm release of a render with its pinned chart and the exact values the platform
 * passes, at `kubeVersion`, with the API versions the cluster serves, and joins the result with the
 * platform's own objects; then applies admission: the pods an installed injection webhook selects get
 * the proxy their mesh adds.
 */
export async function objectSetOf(input: ClusterInput, opts: ObjectSetOptions): Promise<ObjectSet> {
  const { releases } = input;
  const platform = input.objects;
  const folders = new Map(releases.map((r) => [r, chartDirOf(opts.chartsDir, r.chart, r.version)]));
  const missing = releases.filter((r) => !folders.get(r));
  if (missing.length > 0) throw new MissingChartsError(opts.chartsDir, missing);
  const template = (r: ReleaseInput, apiVersions: readonly string[]) =>
    opts.templater.template({
      release: r.name,
      namespace: r.namespace,
      chartDir: folders.get(r) ?? "",
      values: r.values,
      skipCrds: r.skipCrds,
      kubeVersion: opts.kubeVersion,
      apiVersions,
    });

  // What the cluster serves before any release: GKE's own APIs, and the APIs of the objects the platform
  // applies itself (the plan emits an object only where its API is served: GKE's Gateway API, a
  // pre-installed Prometheus Operator, the Gateway API bundle it applies).
  const base = new Set([
    ...gkeApis,
    ...(input.gke.gatewayApi ? gkeGatewayApis : []),
    ...(input.gke.managedPrometheus ? gkeManagedPrometheusApis : []),
    ...platform.map((o) => o.apiVersion),
    ...crdApis(platform),
  ]);
  // Then what the releases that own CRDs install: templated once to read their CRDs.
  const owning = releases.filter((r) => !r.skipCrds);
  for (const first of await Promise.all(owning.map((r) => template(r, [...base].sort())))) {
    if ("objects" in first) for (const v of crdApis(first.objects)) base.add(v);
  }
  const apiVersions = [...base].sort();

  const templated: TemplatedRelease[] = await Promise.all(
    releases.map(async (r) => {
      const out = await template(r, apiVersions);
      if ("error" in out) return { ...r, objects: [], error: out.error };
      // A CRD chart's transform refuses anything else at deploy; here the templated output shows it first.
      const stray = r.crdsOnly ? out.objects.filter((o) => o.kind !== "CustomResourceDefinition") : [];
      return stray.length > 0
        ? {
            ...r,
            objects: out.objects,
            error: `a CRD chart must render nothing but CRDs, and these values render ${stray.map((o) => `${o.kind} ${o.metadata.name}`).join(", ")}`,
          }
        : { ...r, objects: out.objects };
    }),
  );
  return joinObjectSet(input, templated, opts.kubeVersion, apiVersions);
}

/**
 * The object set from releases already templated: the platform's objects and each release's (placed in
 * the release's namespace where they name none, `helm test` hooks left out), then admission applied.
 */
export function joinObjectSet(
  input: Pick<ClusterInput, "label" | "tier" | "objects">,
  templated: readonly TemplatedRelease[],
  kubeVersion: string,
  apiVersions: readonly string[],
): ObjectSet {
  const releaseOf = new Map<KubeObject, TemplatedRelease>();
  const objects: KubeObject[] = [...input.objects];
  for (const r of templated) {
    for (const o of r.objects) {
      // `helm test` pods: a release install (Pulumi's helm.v3.Release) never creates them.
      const hook = o.metadata.annotations?.["helm.sh/hook"] ?? "";
      if (/\btest(-success|-failure)?\b/.test(hook)) continue;
      // Helm sets the release namespace on namespaced objects that name none.
      // A copy either way: an object is one entry of the set, whichever release it came from.
      const placed =
        o.metadata.namespace || clusterScoped.has(o.kind)
          ? { ...o }
          : { ...o, metadata: { ...o.metadata, namespace: r.namespace } };
      releaseOf.set(placed, r);
      objects.push(placed);
    }
  }
  return {
    label: input.label,
    tier: input.tier,
    kubeVersion,
    apiVersions,
    releases: templated,
    objects,
    releaseOf,
    pods: admit(objects, templated),
  };
}

/** Kinds without a namespace, which Helm does not place in the release's. */
export const clusterScoped = new Set([
  "Namespace",
  "CustomResourceDefinition",
  "ClusterRole",
  "ClusterRoleBinding",
  "MutatingWebhookConfiguration",
  "ValidatingWebhookConfiguration",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionPolicyBinding",
  "PriorityClass",
  "StorageClass",
  "IngressClass",
  "GatewayClass",
  "ClusterIssuer",
  "Bundle",
  "ClusterPodMonitoring",
  "ClusterRules",
  "APIService",
  "PodSecurityPolicy",
]);

/** The group/versions (and group/version/Kinds) that CRDs among `objects` serve. */
function crdApis(objects: readonly KubeObject[]): string[] {
  return objects
    .filter((o) => o.kind === "CustomResourceDefinition")
    .flatMap((o) => {
      const spec = (o.spec ?? {}) as {
        group?: string;
        names?: { kind?: string };
        versions?: { name: string; served?: boolean }[];
      };
      return (spec.versions ?? [])
        .filter((v) => v.served !== false)
        .flatMap((v) => [`${spec.group}/${v.name}`, `${spec.group}/${v.name}/${spec.names?.kind}`]);
    });
}

/** A webhook of a MutatingWebhookConfiguration, as far as admission reads it. */
export interface Webhook {
  readonly name: string;
  readonly namespaceSelector?: LabelSelector;
  readonly objectSelector?: LabelSelector;
  readonly rules?: readonly {
    readonly resources?: readonly string[];
    readonly operations?: readonly string[];
  }[];
}

/** Every webhook of the set's MutatingWebhookConfigurations. */
export function mutatingWebhooks(objects: readonly KubeObject[]): Webhook[] {
  return objects
    .filter((o) => o.kind === "MutatingWebhookConfiguration")
    .flatMap((o) => (o.webhooks ?? []) as Webhook[]);
}

/** The set's Namespaces, by name. */
export function namespaceMap(objects: readonly KubeObject[]): Map<string, KubeObject> {
  return new Map(objects.filter((o) => o.kind === "Namespace").map((o) => [o.metadata.name, o]));
}

/** The mutating webhooks in the set that are a mesh's injector, with that mesh's admission model. */
function injectors(objects: readonly KubeObject[]): { webhook: Webhook; admission: MeshAdmission }[] {
  return mutatingWebhooks(objects).flatMap((webhook) => {
    const admission = meshAdmissions.find((a) => a.isInjectionWebhook(webhook.name));
    return admission ? [{ webhook, admission }] : [];
  });
}

/** A pod and its namespace's metadata, as admission sees them. */
export function admittedPod(pod: PodTemplate, namespaces: ReadonlyMap<string, KubeObject>): AdmittedPod {
  const ns = namespaces.get(pod.namespace);
  return {
    labels: pod.labels,
    annotations: pod.annotations,
    // The API server labels every namespace with its name.
    namespaceLabels: { "kubernetes.io/metadata.name": pod.namespace, ...ns?.metadata.labels },
    namespaceAnnotations: { ...ns?.metadata.annotations },
    workload: pod.owner.metadata.name,
    workloadKind: pod.owner.kind,
  };
}

/** Every pod template in the set, with the proxy an installed injector adds where it selects the pod. */
function admit(objects: readonly KubeObject[], releases: readonly TemplatedRelease[]): PodTemplate[] {
  const namespaces = namespaceMap(objects);
  const hooks = injectors(objects);
  const installed = new Set(releases.filter((r) => !r.error).map((r) => r.chart));
  return objects.flatMap((o) => {
    const template = podTemplateOf(o);
    if (!template) return [];
    const seen = admittedPod(template, namespaces);
    // Pods a node proxy captures (Istio ambient), where that node proxy is installed.
    const capturer = meshAdmissions.find(
      (a) => a.nodeProxyChart !== undefined && installed.has(a.nodeProxyChart) && a.capturedByNodeProxy(seen),
    );
    const pod: PodTemplate = capturer ? { ...template, captured: capturer.mesh } : template;
    // hostNetwork pods are never injected; both injectors skip them.
    const hostNetwork =
      ((o.spec as { template?: { spec?: { hostNetwork?: boolean } } } | undefined)?.template?.spec
        ?.hostNetwork ?? false) === true;
    const hook = hostNetwork
      ? undefined
      : hooks.find(
          ({ webhook, admission }) =>
            selects(webhook.namespaceSelector, seen.namespaceLabels) &&
            selects(webhook.objectSelector, seen.labels) &&
            admission.injects(seen),
        );
    if (!hook) return [pod];
    const controlPlane = releases.find((r) => r.chart === hook.admission.proxyConfigChart);
    const proxy = hook.admission.proxy(seen, controlPlane?.values ?? {});
    const asContainer = (c: (typeof proxy.containers)[number]): Container => ({
      name: c.name,
      ports: c.ports,
      listens: c.listens,
      resources: c.resources,
      injectedBy: hook.admission.mesh,
    });
    return [
      {
        ...pod,
        labels: { ...pod.labels, ...proxy.labels },
        annotations: { ...pod.annotations, ...proxy.annotations },
        containers: [...pod.containers, ...proxy.containers.map(asContainer)],
        initContainers: [...proxy.initContainers.map(asContainer), ...pod.initContainers],
        proxy: hook.admission.mesh,
        // A sidecar-injected pod is never captured by the node proxy (istio-cni, cni/README.md at 1.30.3).
        captured: undefined,
      },
    ];
  });
}

/** Whether a pod asks some mesh for a proxy, and which. */
export function proxyAskedFor(
  pod: PodTemplate,
  namespaces: ReadonlyMap<string, KubeObject>,
): MeshAdmission | undefined {
  const seen = admittedPod(pod, namespaces);
  return meshAdmissions.find((a) => a.asksForProxy(seen));
}
