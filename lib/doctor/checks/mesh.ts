import {
  admittedPod,
  podTemplateOf,
  selects,
  type KubeObject,
  type LabelSelector,
  type PodTemplate,
} from "../../cluster";
import { type AdmittedPod, type MeshAdmission } from "../../meshes";
import { meshAdmissions } from "../../meshes/models";
import { helmMarks } from "../../versions/doctorFacts";
import type { HelmRelease } from "../helm";
import { annotationsOf, at, isObj, list, str, type Json } from "../objects";

/**
 * The meshes as the live cluster runs them, through each mesh's admission model (lib/meshes
 * `MeshAdmission`, citing its injector at the pinned tag): which installed webhooks are a mesh's injector,
 * which pods and namespaces ask for a proxy, and what the proxy the injector adds looks like.
 */

/** One webhook of a MutatingWebhookConfiguration that is a mesh's proxy injector. */
export interface Injector {
  readonly admission: MeshAdmission;
  readonly configuration: KubeObject;
  readonly name: string;
  readonly namespaceSelector?: LabelSelector;
  readonly objectSelector?: LabelSelector;
  readonly service?: { readonly namespace: string; readonly name: string };
  readonly failurePolicy: string;
}

/** Every mesh injector among the cluster's mutating webhooks. */
export function injectorsOf(configurations: readonly KubeObject[]): Injector[] {
  return configurations.flatMap((configuration) =>
    list(configuration.webhooks).flatMap((w): Injector[] => {
      const name = str(w.name) ?? "";
      const admission = meshAdmissions.find((a) => a.isInjectionWebhook(name));
      if (!admission) return [];
      const service = at(w, "clientConfig", "service");
      return [
        {
          admission,
          configuration,
          name,
          namespaceSelector: isObj(w.namespaceSelector) ? w.namespaceSelector : undefined,
          objectSelector: isObj(w.objectSelector) ? w.objectSelector : undefined,
          service: isObj(service)
            ? { namespace: str(service.namespace) ?? "", name: str(service.name) ?? "" }
            : undefined,
          // The API server's default (admissionregistration.k8s.io/v1).
          failurePolicy: str(w.failurePolicy) ?? "Fail",
        },
      ];
    }),
  );
}

/** The injectors that would be called for this pod and add their mesh's proxy. */
export function injectorsFor(injectors: readonly Injector[], pod: AdmittedPod): Injector[] {
  return injectors.filter(
    (i) =>
      selects(i.namespaceSelector, pod.namespaceLabels) &&
      selects(i.objectSelector, pod.labels) &&
      i.admission.injects(pod),
  );
}

/** The cluster's namespaces by name, as admission reads them. */
export function namespacesByName(namespaces: readonly KubeObject[]): Map<string, KubeObject> {
  return new Map(namespaces.map((n) => [n.metadata.name, n]));
}

/** A pod template (or a pod) and its namespace, as an injection webhook sees them. */
export function admitted(template: PodTemplate, namespaces: ReadonlyMap<string, KubeObject>): AdmittedPod {
  return admittedPod(template, namespaces);
}

/** A namespace alone, as an injection webhook sees a pod there that says nothing itself. */
export function admittedNamespace(namespace: KubeObject): AdmittedPod {
  return {
    labels: {},
    annotations: {},
    namespaceLabels: { "kubernetes.io/metadata.name": namespace.metadata.name, ...namespace.metadata.labels },
    namespaceAnnotations: { ...namespace.metadata.annotations },
    workload: "",
    workloadKind: "Pod",
  };
}

/**
 * The metadata that makes a pod or namespace ask for a mesh's proxy: each label and annotation without
 * which it would not ask. Said in messages, so no mesh's keys are named here.
 */
export function enrolmentKeys(admission: MeshAdmission, pod: AdmittedPod): string[] {
  const without = (field: keyof AdmittedPod, key: string): AdmittedPod => {
    const copy = { ...(pod[field] as Record<string, string>) };
    delete copy[key];
    return { ...pod, [field]: copy };
  };
  const fields = {
    labels: "label",
    annotations: "annotation",
    namespaceLabels: "namespace label",
    namespaceAnnotations: "namespace annotation",
  } as const;
  return (Object.keys(fields) as (keyof typeof fields)[]).flatMap((field) =>
    Object.entries(pod[field])
      .filter(([k]) => !admission.asksForProxy(without(field, k)))
      .map(([k, v]) => `${fields[field]} ${k}: ${v}`),
  );
}

const isTemplate = (p: KubeObject | PodTemplate): p is PodTemplate =>
  Array.isArray((p as { containers?: unknown }).containers) && (p as { owner?: unknown }).owner !== undefined;

/** Whether a pod spec has the mesh's proxy, as a container or a (native sidecar) init container. */
export function hasProxy(pod: KubeObject | PodTemplate, admission: MeshAdmission): boolean {
  const template = isTemplate(pod) ? pod : podTemplateOf(pod);
  if (!template) return false;
  return [...template.containers, ...template.initContainers].some(
    (c) => c.name === admission.proxyContainer,
  );
}

/**
 * The values the injector's control plane runs with, which shape the proxy (native sidecars, resources):
 * the Helm release that installed its webhook configuration, else the release of the mesh's control-plane
 * chart, else none (the admission model then takes the chart's defaults).
 */
export function controlPlaneValues(
  injector: Injector,
  releases: readonly HelmRelease[] | undefined,
): { values: Readonly<Json>; from?: HelmRelease } {
  const a = annotationsOf(injector.configuration);
  const byOwner = releases?.find(
    (r) => r.name === a[helmMarks.releaseName] && r.namespace === a[helmMarks.releaseNamespace],
  );
  const from = byOwner ?? releases?.find((r) => r.chart === injector.admission.proxyConfigChart);
  return { values: from?.values ?? {}, from };
}
