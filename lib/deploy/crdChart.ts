import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { checkCrdClaims, crdCharts, type CrdChartName } from "../crds";
import { charts, isPlainRecord } from "../versions";
import { checkValueKeys, deepMerge, releaseChart, type ChartContext } from "./helmRelease";

/**
 * The annotation that makes pulumi-kubernetes force a server-side apply through other field managers'
 * conflicts (pulumi-kubernetes provider v4.25.0 pkg/await/await.go `patchForce`, pkg/metadata/annotations.go
 * `AnnotationPatchForce`): Helm's manager owns the fields of CRDs a release installed from `crds/`.
 */
export const patchForceAnnotation = "pulumi.com/patchForce";

export interface CrdChartArgs {
  readonly crdChart: CrdChartName;
  /** Its Pulumi resource name; each CRD is the resource `<name>:<CRD name>` (the provider's resource prefix). */
  readonly name: string;
  /** The namespace it is templated in; it renders only CRDs, which have none. */
  readonly namespace: string;
  /** CRD owners and where charts come from: the CRD chart must own its family. */
  readonly charts: ChartContext;
  readonly provider: k8s.Provider;
  readonly parent: pulumi.Resource;
  /** @default nothing: CRDs need only the API server */
  readonly dependsOn?: readonly pulumi.Resource[];
}

/**
 * A CRD chart (lib/crds `crdCharts`): the pinned chart, rendered by the provider with values that leave
 * nothing but CRDs, each CRD its own resource, applied server-side (pulumi-kubernetes `helm.v4.Chart`:
 * pkg/provider/helm/v4/chart.go templates the chart with its crds/ unless skipCrds, then registers each
 * object). Its transform retains every CRD on delete and forces the apply through Helm's field manager, so
 * the first apply adopts CRDs an earlier release installed from `crds/` (with server-side apply a create is
 * always a PATCH: "we currently always upsert the object", pkg/await/await.go at provider v4.25.0), and
 * a bump of the pin shows in `pulumi preview` as an update of each CRD that changes.
 */
export function crdChart(args: CrdChartArgs): k8s.helm.v4.Chart {
  const spec = crdCharts[args.crdChart];
  const pin = charts[spec.chart];
  const values = deepMerge(spec.values);
  checkCrdClaims(args.charts.owners, [
    { release: spec.release, chart: spec.chart, values, crdChart: args.crdChart },
  ]);
  checkValueKeys(spec.chart, pin.version, spec.release, values, undefined);
  const location = releaseChart({ chart: spec.chart, charts: args.charts });
  return new k8s.helm.v4.Chart(
    args.name,
    {
      name: spec.release,
      namespace: args.namespace,
      chart: location.chart,
      version: location.version,
      ...(location.repo ? { repositoryOpts: { repo: location.repo } } : {}),
      values,
      // The CRDs in crds/ (Traefik's) are what the chart is applied for.
      skipCrds: false,
    },
    {
      provider: args.provider,
      parent: args.parent,
      dependsOn: [...(args.dependsOn ?? [])],
      // retainOnDelete on the component would not reach the CRDs it registers (pulumi-kubernetes#3065):
      // each CRD gets it from the transform.
      transforms: [crdChartTransform],
    },
  );
}

const crdType = /^kubernetes:apiextensions\.k8s\.io\/v1(beta1)?:CustomResourceDefinition$/;

/**
 * What a CRD chart does to each object the provider registers under it: a CRD is retained on delete (removing
 * the chart never deletes CRDs, nor the objects in them) and force-applied; anything else is refused, so a
 * chart bump that starts rendering other objects fails the preview instead of deploying them unowned.
 */
export function crdChartTransform(
  args: pulumi.ResourceTransformArgs,
): pulumi.ResourceTransformResult | undefined {
  // The chart component itself passes through; only its children are the chart's objects.
  if (!args.custom) return undefined;
  if (!crdType.test(args.type)) {
    throw new Error(
      `${args.name} (${args.type}): a CRD chart must render nothing but CustomResourceDefinitions, and its values leave this object in. This is a defect in the platform's CRD chart values (lib/crds/crdCharts.ts); please report it.`,
    );
  }
  return {
    props: { ...args.props, metadata: withPatchForce(args.props.metadata) },
    opts: { ...args.opts, retainOnDelete: true },
  };
}

/** The object's metadata with the patchForce annotation added. */
function withPatchForce(metadata: pulumi.Input<unknown>): pulumi.Input<Record<string, unknown>> {
  const add = (m: unknown): Record<string, unknown> => {
    const meta = isPlainRecord(m) ? m : {};
    const annotations = isPlainRecord(meta.annotations) ? meta.annotations : {};
    return { ...meta, annotations: { ...annotations, [patchForceAnnotation]: "true" } };
  };
  const known = (v: unknown): boolean => !pulumi.Output.isInstance(v) && !(v instanceof Promise);
  if (known(metadata) && (!isPlainRecord(metadata) || known(metadata.annotations))) return add(metadata);
  return pulumi.output(metadata as pulumi.Input<Record<string, unknown>>).apply(add);
}
