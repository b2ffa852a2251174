import { checkValueKeys, finalValues, istiodReleases, type ChartContext } from "../addons";
import { ConfigError, type PlatformConfig } from "../config";
import { checkCrdClaims, crdValues, needsCertManager, type CrdOwners } from "../crds";
import { charts, type ChartName } from "../versions";

/** Every Helm release the environment installs, by release name. */
export function plannedReleases(config: PlatformConfig): Record<string, ChartName> {
  const releases: Record<string, ChartName> = {};
  if (needsCertManager(config)) releases["cert-manager"] = "certManager";
  if (config.mesh.kind === "linkerd") {
    releases["trust-manager"] = "trustManager";
    releases["linkerd-crds"] = "linkerdCrds";
    releases["linkerd-control-plane"] = "linkerdControlPlane";
    if (config.mesh.cni) releases["linkerd-cni"] = "linkerdCni";
    if (config.mesh.dashboard) releases["linkerd-viz"] = "linkerdViz";
  }
  if (config.mesh.kind === "istio") {
    releases["cert-manager-istio-csr"] = "istioCsr";
    releases["istio-base"] = "istioBase";
    for (const r of istiodReleases(config.mesh.istio)) releases[r.release] = "istiod";
    if (config.mesh.cni || config.mesh.dataplane === "ambient") releases["istio-cni"] = "istioCni";
    if (config.mesh.dataplane === "ambient") releases.ztunnel = "ztunnel";
  }
  if (config.monitoring.backend === "prometheus") releases["kube-prometheus-stack"] = "kubePrometheusStack";
  if (config.ingress.kind === "traefik") releases.traefik = "traefik";
  if (config.ingress.kind === "ingress-nginx") releases["ingress-nginx"] = "ingressNginx";
  return releases;
}

/**
 * The chart context, with every override checked before any resource exists: it names a release
 * this environment installs; every key it sets is one the pinned chart has; it leaves CRD flags alone unless it says so; and even then, the values
 * it produces must not install CRDs another owner has.
 */
export function chartContext(config: PlatformConfig, owners: CrdOwners): ChartContext {
  const context: ChartContext = { owners, overrides: config.overrides.charts };
  const releases = plannedReleases(config);
  for (const [release, override] of Object.entries(config.overrides.charts)) {
    const at = `platform:overrides.charts.${release}`;
    const chart = releases[release];
    if (!chart) {
      throw new ConfigError([
        {
          path: at,
          problem: `names no Helm release of this environment`,
          allowed: Object.keys(releases).join(", ") || "none: this environment installs no chart",
          fix: "use one of those release names, or remove the override",
        },
      ]);
    }
    // An istiod revision may run another Istio version than the pin (a canary upgrade).
    const version =
      (config.mesh.kind === "istio"
        ? istiodReleases(config.mesh.istio).find((r) => r.release === release)?.version
        : undefined) ?? charts[chart].version;
    checkValueKeys(chart, version, release, override.values, override);
    const owned = pathsOf(crdValues(chart, owners));
    const touched = pathsOf(override.values).filter((p) => owned.includes(p));
    if (touched.length > 0 && !override.overrideCrdFlags) {
      throw new ConfigError([
        {
          path: `${at}.values.${touched[0]}`,
          problem: `is decided by CRD ownership (lib/crds), so the platform would overwrite it`,
          allowed: `values other than ${owned.join(", ")}`,
          fix: `remove it, or set ${at}.overrideCrdFlags to true to take responsibility for the CRDs`,
        },
      ]);
    }
    checkCrdClaims(owners, [{ release, chart, values: finalValues(chart, {}, context, release) }]);
  }
  return context;
}

function pathsOf(values: Record<string, unknown>, prefix = ""): string[] {
  return Object.entries(values).flatMap(([k, v]) =>
    v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length > 0
      ? pathsOf(v as Record<string, unknown>, `${prefix}${k}.`)
      : [`${prefix}${k}`],
  );
}
