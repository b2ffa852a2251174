import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { App, Chart } from "cdk8s";

/** A Kubernetes object as cdk8s synthesizes it. */
export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

type Create = (name: string, object: KubeObject, opts: pulumi.CustomResourceOptions) => pulumi.CustomResource;

/** A synthesized object is the JSON form of the typed Args: the same fields, plain values. */
function args<T>(o: KubeObject): T {
  return o as unknown as T;
}

/** Kinds with a typed `@pulumi/kubernetes` class, so each gets that class's await logic and schema. */
const typed: Record<string, Create> = {
  "v1/Namespace": (n, o, opts) => new k8s.core.v1.Namespace(n, args<k8s.core.v1.NamespaceArgs>(o), opts),
  "v1/ConfigMap": (n, o, opts) => new k8s.core.v1.ConfigMap(n, args<k8s.core.v1.ConfigMapArgs>(o), opts),
  "v1/Service": (n, o, opts) => new k8s.core.v1.Service(n, args<k8s.core.v1.ServiceArgs>(o), opts),
  "v1/ServiceAccount": (n, o, opts) =>
    new k8s.core.v1.ServiceAccount(n, args<k8s.core.v1.ServiceAccountArgs>(o), opts),
  "v1/ResourceQuota": (n, o, opts) =>
    new k8s.core.v1.ResourceQuota(n, args<k8s.core.v1.ResourceQuotaArgs>(o), opts),
  "apps/v1/Deployment": (n, o, opts) =>
    new k8s.apps.v1.Deployment(n, args<k8s.apps.v1.DeploymentArgs>(o), opts),
  "batch/v1/Job": (n, o, opts) => new k8s.batch.v1.Job(n, args<k8s.batch.v1.JobArgs>(o), opts),
  "batch/v1/CronJob": (n, o, opts) => new k8s.batch.v1.CronJob(n, args<k8s.batch.v1.CronJobArgs>(o), opts),
  "policy/v1/PodDisruptionBudget": (n, o, opts) =>
    new k8s.policy.v1.PodDisruptionBudget(n, args<k8s.policy.v1.PodDisruptionBudgetArgs>(o), opts),
  "networking.k8s.io/v1/Ingress": (n, o, opts) =>
    new k8s.networking.v1.Ingress(n, args<k8s.networking.v1.IngressArgs>(o), opts),
  "networking.k8s.io/v1/NetworkPolicy": (n, o, opts) =>
    new k8s.networking.v1.NetworkPolicy(n, args<k8s.networking.v1.NetworkPolicyArgs>(o), opts),
  "apiextensions.k8s.io/v1/CustomResourceDefinition": (n, o, opts) =>
    new k8s.apiextensions.v1.CustomResourceDefinition(
      n,
      args<k8s.apiextensions.v1.CustomResourceDefinitionArgs>(o),
      opts,
    ),
};

const custom: Create = (n, o, opts) =>
  new k8s.apiextensions.CustomResource(n, args<k8s.apiextensions.CustomResourceArgs>(o), opts);

/**
 * The Pulumi type of an object's `@pulumi/kubernetes` resource, as its class registers it: the core group
 * as `core/v1`, every other group as its apiVersion (the typed classes and `CustomResource` alike).
 */
export function kubernetesType(o: Pick<KubeObject, "apiVersion" | "kind">): string {
  return `kubernetes:${o.apiVersion.includes("/") ? o.apiVersion : `core/${o.apiVersion}`}:${o.kind}`;
}

/** URNs known when the program starts: components registered directly under the stack (`rememberTopLevelUrn`). */
const knownUrns = new WeakMap<pulumi.Resource, string>();

/**
 * Remembers the URN of a resource registered directly under the stack, which its type and name fix
 * (`urn:pulumi:<stack>::<project>::<type>::<name>`), so objects that were its children can be aliased
 * to their old URNs as plain strings (`DeployChartOptions.formerParent`).
 */
export function rememberTopLevelUrn(resource: pulumi.Resource, type: string, name: string): void {
  knownUrns.set(resource, `urn:pulumi:${pulumi.getStack()}::${pulumi.getProject()}::${type}::${name}`);
}

/** A Kubernetes object as its `@pulumi/kubernetes` resource: the typed class where there is one. */
export function kubernetesResource(
  name: string,
  object: KubeObject,
  opts: pulumi.CustomResourceOptions,
): pulumi.CustomResource {
  return (typed[`${object.apiVersion}/${object.kind}`] ?? custom)(name, object, opts);
}

/** A fresh cdk8s chart to describe objects in; `deployChart` turns it into Pulumi resources. */
export function newChart(id: string): Chart {
  return new Chart(new App(), id, { disableResourceNameHashes: true });
}

export interface DeployChartOptions {
  readonly provider: k8s.Provider;
  readonly parent: pulumi.Resource;
  /** Every object waits for these (e.g. the release that installs its CRDs and webhook). */
  readonly dependsOn?: readonly pulumi.Resource[];
  /** Namespaces created elsewhere: objects in them wait for them. */
  readonly namespaces?: ReadonlyMap<string, pulumi.Resource>;
  /** Retain on delete, for objects whose deletion loses data (CRDs). @default false */
  readonly retainOnDelete?: boolean;
  /** Where the objects were before (another parent), so moving them replaces nothing. @default none */
  readonly aliases?: readonly pulumi.Alias[];
  /**
   * The parent the objects had before, so moving them under `parent` replaces nothing: each is aliased
   * to its URN under it. Where that parent's URN is known (`rememberTopLevelUrn`), the alias is that URN
   * as a plain string; otherwise it is the parent's URN as an Output, and the SDK makes the old URN
   * for each object, several Outputs each that live as long as the program. @default none
   */
  readonly formerParent?: pulumi.Resource;
}

/** The Pulumi resources of a deployed chart, by `kind/namespace/name`. */
export type DeployedObjects = ReadonlyMap<string, pulumi.CustomResource>;

export function objectKey(o: Pick<KubeObject, "kind" | "metadata">): string {
  return `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;
}

/**
 * Deploys a cdk8s chart into Pulumi: every synthesized object becomes its own Pulumi resource (typed
 * where `@pulumi/kubernetes` has a class, `CustomResource` otherwise), with its own state, diff and
 * dependencies. Objects in a namespace the chart also creates wait for that Namespace.
 */
export function deployChart(prefix: string, chart: Chart, opts: DeployChartOptions): DeployedObjects {
  const objects = synth(chart);
  const namespaces = new Map<string, pulumi.Resource>(opts.namespaces ?? []);
  const former = opts.formerParent;
  const formerUrn = former ? knownUrns.get(former) : undefined;
  // The URN a child of the former parent had, less the child's type and name.
  const formerPrefix = formerUrn ? `${formerUrn.slice(0, formerUrn.lastIndexOf("::"))}$` : undefined;
  // (The parent's URN, not the parent: an alias holding a resource makes the SDK walk its whole object graph.)
  const formerAlias: pulumi.Alias | undefined = former && !formerPrefix ? { parent: former.urn } : undefined;
  const out = new Map<string, pulumi.CustomResource>();
  // Namespaces first, so objects inside them can depend on them.
  const ordered = [
    ...objects.filter((o) => o.kind === "Namespace"),
    ...objects.filter((o) => o.kind !== "Namespace"),
  ];
  for (const o of ordered) {
    const ns = o.metadata.namespace;
    const nsDep = ns !== undefined ? namespaces.get(ns) : undefined;
    const name = resourceName(prefix, o);
    const aliases = [
      ...(opts.aliases ?? []),
      ...(formerPrefix ? [`${formerPrefix}${kubernetesType(o)}::${name}`] : []),
      ...(formerAlias ? [formerAlias] : []),
    ];
    const resource = kubernetesResource(name, o, {
      provider: opts.provider,
      parent: opts.parent,
      // Once each: the namespace may also be among the chart's own dependencies.
      dependsOn: [...new Set([...(opts.dependsOn ?? []), ...(nsDep ? [nsDep] : [])])],
      retainOnDelete: opts.retainOnDelete,
      ...(aliases.length > 0 ? { aliases } : {}),
    });
    if (o.kind === "Namespace") namespaces.set(o.metadata.name, resource);
    out.set(objectKey(o), resource);
  }
  return out;
}

/** The objects a chart synthesizes, resolved to plain JSON. */
export function synth(chart: Chart): KubeObject[] {
  return chart.toJson() as KubeObject[];
}

function resourceName(prefix: string, o: KubeObject): string {
  const ns = o.metadata.namespace ? `${o.metadata.namespace}-` : "";
  return `${prefix}-${o.kind.toLowerCase()}-${ns}${o.metadata.name}`;
}
