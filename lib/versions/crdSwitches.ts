import type { ChartName } from "./charts";

/**
 * The CRDs the pinned charts serve, and the switches in each chart that install them: upstream facts of
 * each chart at its pin, beside the pin, so a bump that moves a switch touches this folder only.
 * lib/crds decides from them who owns each family; `test/crds/claims.test.ts` templates every switch
 * with the real helm and holds these facts to what the chart renders.
 */

/** CRD families the platform knows, each by the API groups its CRDs serve. */
export const crdFamilies = {
  gatewayApi: { title: "Gateway API", groups: ["gateway.networking.k8s.io"] },
  certManager: { title: "cert-manager", groups: ["cert-manager.io", "acme.cert-manager.io"] },
  trustManager: { title: "trust-manager", groups: ["trust.cert-manager.io"] },
  linkerd: { title: "Linkerd", groups: ["linkerd.io", "policy.linkerd.io", "workload.linkerd.io"] },
  istio: {
    title: "Istio",
    groups: ["networking.istio.io", "security.istio.io", "telemetry.istio.io", "extensions.istio.io"],
  },
  // Traefik Hub's CRDs come in the same chart's crds/ (traefik v41.3.0 crds/hub.traefik.io_*.yaml).
  traefik: { title: "Traefik", groups: ["traefik.io", "hub.traefik.io"] },
  prometheusOperator: { title: "Prometheus Operator", groups: ["monitoring.coreos.com"] },
  gke: {
    title: "GKE's own",
    groups: ["networking.gke.io", "cloud.google.com", "monitoring.googleapis.com"],
  },
} as const;

export type CrdFamily = keyof typeof crdFamilies;

/** The CRD family that serves an API group, if the platform knows one. */
export function crdFamilyOf(group: string): CrdFamily | undefined {
  return (Object.keys(crdFamilies) as CrdFamily[]).find((f) =>
    (crdFamilies[f].groups as readonly string[]).includes(group),
  );
}

/** A chart value as Helm's `if` reads it: a non-empty string is true ("false" too); unset falls back. */
export type HelmFlag = (path: string, fallback: boolean) => boolean;

/** Reads `values` as Helm's `if` does, by dot-separated path. */
export function helmFlag(values: Readonly<Record<string, unknown>>): HelmFlag {
  return (path, fallback) => {
    let cur: unknown = values;
    for (const p of path.split(".")) cur = (cur as Record<string, unknown> | undefined)?.[p];
    if (cur === undefined || cur === null) return fallback;
    return typeof cur === "string" ? cur.length > 0 : Boolean(cur);
  };
}

/** One chart's CRD switches. */
export interface ChartCrdSwitches {
  /** The families a release installs with its values (read as Helm's `if` reads them), its chart's crds/ skipped or not. */
  claims(flag: HelmFlag, skipCrds: boolean, values: Readonly<Record<string, unknown>>): CrdFamily[];
  /**
   * Values that make the chart install exactly the families `owned` says its release owns, and nothing
   * else. Absent where no value switches its CRDs.
   */
  values?(owned: (family: CrdFamily) => boolean): Record<string, unknown>;
}

/** The CRD switches of every pinned chart that installs CRDs; a chart not listed installs none. */
export const chartCrdSwitches: Partial<Record<ChartName, ChartCrdSwitches>> = {
  linkerdCrds: {
    // The guard is `ternary .Values.enableXRoutes .Values.installGatewayAPI (hasKey ...)`; installGatewayAPI defaults to false.
    claims: (flag) => {
      const base = flag("installGatewayAPI", false);
      const gateway = ["enableHttpRoutes", "enableTlsRoutes", "enableTcpRoutes"].some((k) => flag(k, base));
      return gateway ? ["linkerd", "gatewayApi"] : ["linkerd"];
    },
    // All four are set so every supported chart version reads them: edge-25.3.1 honours only
    // installGatewayAPI; up to 2.17 only the enable*Routes keys exist (reference mesh-charts.md 1.2).
    // enableHttpRoutes also guards GRPCRoute. Linkerd never owns the Gateway API here.
    values: () => ({
      installGatewayAPI: false,
      enableHttpRoutes: false,
      enableTlsRoutes: false,
      enableTcpRoutes: false,
    }),
  },
  certManager: {
    claims: (flag) => (flag("crds.enabled", false) || flag("installCRDs", false) ? ["certManager"] : []),
    // crds.keep adds helm.sh/resource-policy: keep, so an uninstall leaves the CRDs and every object in them.
    values: (owned) => ({ crds: { enabled: owned("certManager"), keep: true } }),
  },
  trustManager: {
    claims: (flag) => (flag("crds.enabled", true) ? ["trustManager"] : []),
    values: (owned) => ({ crds: { enabled: owned("trustManager"), keep: true } }),
  },
  kubePrometheusStack: {
    // Its crds subchart keeps them in crds/ (charts/crds/crds/ at 88.5.3), which --skip-crds skips too.
    claims: (flag, skipCrds) => (!skipCrds && flag("crds.enabled", true) ? ["prometheusOperator"] : []),
    // Off unless the release itself owns them; the prometheus-operator-crds CRD chart (kube-prometheus-stack with
    // every template off) does wherever the platform does.
    values: (owned) => ({ crds: { enabled: owned("prometheusOperator") } }),
  },
  istioBase: {
    // templates/crds.yaml at 1.30.3 renders files/crd-all.gen.yaml whatever base.enableCRDTemplates says
    // (templated, or verbatim when off); only a namespace-scoped install leaves cluster objects out.
    claims: (_flag, _skipCrds, values) => {
      const scope = (values.global as Record<string, unknown> | undefined)?.resourceScope ?? "all";
      return scope === "all" || scope === "cluster" ? ["istio"] : [];
    },
  },
  traefik: {
    // Its crds/ directory: Traefik's own CRDs only from chart 40.2.0 on (no Gateway API).
    claims: (_flag, skipCrds) => (skipCrds ? [] : ["traefik"]),
  },
};
