import type { RenderResult, RenderedResource } from "../../lib/render";
import { RELEASE, waitsFor } from "../helpers";

/**
 * Crossings in the order of deployment, which the object set does not show: what a meshed pod needs
 * exists before the pod is created. Checked on every render of the matrix; each message names the
 * resource and what it must wait for.
 */
export function renderCrossings(result: RenderResult): string[] {
  const problems: string[] = [];
  const releases = result.resources.filter((r) => r.type === RELEASE);
  const chartOf = (r: RenderedResource) => String(r.inputs.chart);
  const named = (chart: string) => releases.filter((r) => chartOf(r) === chart);
  // What meshed pods need first: the injector (the istiod of the namespace's revision), and ztunnel
  // where it captures pods.
  const prerequisites = [...named("linkerd-control-plane"), ...named("istiod"), ...named("ztunnel")];
  if (prerequisites.length === 0) return problems;
  const meshed = result.resources.filter((r) => {
    if (r.inputs.kind !== "Namespace") return false;
    const meta = r.inputs.metadata as {
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
    };
    return (
      meta.annotations?.["linkerd.io/inject"] === "enabled" ||
      meta.labels?.["istio-injection"] === "enabled" ||
      meta.labels?.["istio.io/rev"] !== undefined ||
      meta.labels?.["istio.io/dataplane-mode"] === "ambient"
    );
  });
  const controllers = [...named("traefik"), ...named("ingress-nginx")];
  for (const r of [...meshed, ...controllers]) {
    const waits = waitsFor(result, r);
    // A namespace on a revision needs that revision's istiod (its `rev.*` webhooks inject it; the
    // revision `default` is the unrevisioned istiod); otherwise any istiod's injector will do.
    const revision = (r.inputs.metadata as { labels?: Record<string, string> } | undefined)?.labels?.[
      "istio.io/rev"
    ];
    const istiod =
      revision === undefined
        ? undefined
        : named("istiod").find(
            (i) => String(i.inputs.name) === (revision === "default" ? "istiod" : `istiod-${revision}`),
          );
    const missing = prerequisites.filter(
      (p) =>
        !waits.has(p.key) &&
        !(chartOf(p) === "istiod" && (istiod ? p !== istiod : named("istiod").some((i) => waits.has(i.key)))),
    );
    for (const p of missing)
      problems.push(
        `${r.name} does not wait for ${p.name}: its pods could start before the mesh can take them`,
      );
  }
  // Linkerd's policy controller looks for the route CRDs once, at start.
  for (const cp of named("linkerd-control-plane")) {
    const waits = waitsFor(result, cp);
    const routeCrds = result.resources.filter(
      (r) =>
        (r.inputs.kind === "Job" && (r.inputs.metadata as { name?: string }).name === "linkerd-route-crds") ||
        (r.inputs.kind === "CustomResourceDefinition" &&
          String((r.inputs.metadata as { name?: string }).name).endsWith(".gateway.networking.k8s.io")),
    );
    if (!routeCrds.some((r) => waits.has(r.key)))
      problems.push(`${cp.name} does not wait for the route CRDs its policy controller looks for at start`);
  }
  return problems;
}
