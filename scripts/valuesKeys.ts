import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import { charts, istioFacts, type ChartName, type RecordedValuesKeys } from "../lib/versions";

/**
 * Reads each pinned chart's values.yaml from the reference copies and derives the key lists
 * lib/versions/values-keys.json records. `npm run record-values-keys` rewrites that file; run it
 * at every chart bump, with PLATFORM_REFERENCE_DIR pointing at the copies of the new versions.
 */

/** Where each chart's values.yaml copy is, and what the chart reads beyond its values.yaml. */
interface Source {
  /** Relative to the reference directory (PLATFORM_REFERENCE_DIR). */
  readonly file: string;
  /** Istio charts keep their defaults under this key; users set the same keys at the top. */
  readonly root?: string;
  /** Keys the chart reads that its values.yaml does not declare, with why. */
  readonly extraKnown?: Readonly<Record<string, string>>;
  /** Keys the chart passes through as free-form maps, with why. */
  readonly extraOpen?: Readonly<Record<string, string>>;
}

/** Read by the Istio charts' profile machinery rather than declared in their values.yaml. */
const istioProfile = Object.fromEntries(
  istioFacts.profileValues.map((k) => [k, "read by the chart's profile templates (files/profile-*.yaml)"]),
);

/** Files are named by chart and version; a bump renames them and fails here until the copies exist. */
export const sources: Partial<Record<ChartName, Source>> = {
  certManager: { file: `cert-manager-${charts.certManager.version}.values.yaml` },
  trustManager: { file: `trust-manager-${charts.trustManager.version}.values.yaml` },
  istioCsr: { file: `cert-manager-istio-csr-${charts.istioCsr.version}.values.yaml` },
  linkerdCrds: { file: `linkerd-crds-${charts.linkerdCrds.version}.values.yaml` },
  linkerdControlPlane: {
    file: `linkerd-control-plane-${charts.linkerdControlPlane.version}.values.yaml`,
    extraKnown: {
      // values-ha.yaml sets it; templates/config.yaml copies every value into linkerd-config, where
      // `linkerd check` reads it (pkg/healthcheck/healthcheck.go isHA, pkg/charts/linkerd2/values.go).
      highAvailability: "set by values-ha.yaml; linkerd check reads it from linkerd-config",
    },
    extraOpen: {
      // values-ha.yaml sets it; templates/heartbeat.yaml renders it (partials.resources) as the CronJob's resources.
      heartbeatResources: "set by values-ha.yaml; templates/heartbeat.yaml reads it as a resources map",
    },
  },
  linkerdViz: { file: `linkerd-viz-${charts.linkerdViz.version}.values.yaml` },
  linkerdCni: { file: `linkerd2-cni-${charts.linkerdCni.version}.values.yaml` },
  istioBase: {
    file: `istio-base-${charts.istioBase.version}.values.yaml`,
    root: "_internal_defaults_do_not_set",
    extraKnown: istioProfile,
  },
  istiod: {
    file: `istiod-${charts.istiod.version}.values.yaml`,
    root: "_internal_defaults_do_not_set",
    extraKnown: {
      ...istioProfile,
      // templates/reader-clusterrole.yaml and reader-clusterrolebinding.yaml read it with dig, default true;
      // the base chart's values.yaml declares it.
      "global.enableReaderRBAC": "read by the reader ClusterRole and binding templates (dig, default true)",
    },
    // values.yaml: "env: {}" documented as extra environment variables for the discovery container.
    extraOpen: { env: "pilot environment variables, passed through to the istiod container" },
  },
  istioCni: {
    file: `istio-cni-${charts.istioCni.version}.values.yaml`,
    root: "_internal_defaults_do_not_set",
    extraKnown: istioProfile,
    extraOpen: { env: "environment variables, passed through to the CNI agent container" },
  },
  ztunnel: {
    file: `ztunnel-${charts.ztunnel.version}.values.yaml`,
    root: "_internal_defaults_do_not_set",
    extraKnown: istioProfile,
    extraOpen: { env: "environment variables, passed through to the ztunnel container" },
  },
  istioGateway: {
    file: `istio-gateway-${charts.istioGateway.version}.values.yaml`,
    root: "_internal_defaults_do_not_set",
    extraKnown: istioProfile,
    extraOpen: { env: "environment variables, passed through to the gateway container" },
  },
  traefik: {
    file: `traefik-chart-${charts.traefik.version}-values.yaml`,
    // values.yaml service.spec: "Additional entries here will be added to the Service spec".
    extraOpen: { "service.spec": "added verbatim to the Service spec" },
  },
  ingressNginx: { file: `ingress-nginx-chart-${charts.ingressNginx.version}-values.yaml` },
  kubePrometheusStack: {
    file: `kube-prometheus-stack-${charts.kubePrometheusStack.version}.values.yaml`,
    // Chart.yaml dependencies: these keys are the subcharts' own values, which its values.yaml does not list.
    extraOpen: {
      grafana: "values of the grafana subchart (grafana/helm-charts)",
      "kube-state-metrics": "values of the kube-state-metrics subchart",
      "prometheus-node-exporter": "values of the prometheus-node-exporter subchart",
      "prometheus-windows-exporter": "values of the prometheus-windows-exporter subchart",
    },
  },
};

/** Pinned charts with no recorded key list, and why; their values are checked by the tests that render them. */
export const unrecorded: Partial<Record<ChartName, string>> = {};

/**
 * Kubernetes fields the charts render verbatim (`toYaml`) into their objects: any field of the
 * Kubernetes type is valid below them, whatever example values.yaml shows.
 */
const passThrough =
  /^(resources|nodeSelector|affinity|tolerations|securityContext|podSecurityContext|containerSecurityContext|annotations|labels|env|extraArgs|extraEnv|livenessProbe|readinessProbe|startupProbe|strategy|updateStrategy|topologySpreadConstraints|meshConfig)$|(Annotations|Labels|SecurityContext|NodeSelector|Resources)$/;

type Tree = Record<string, unknown>;
const isMap = (v: unknown): v is Tree => typeof v === "object" && v !== null && !Array.isArray(v);

/** The key lists of one values.yaml: every key (commented-out ones included) and the free-form ones. */
export function keysOf(valuesYaml: string, source: Source): { known: string[]; open: string[] } {
  const parsed = (YAML.parse(valuesYaml) ?? {}) as Tree;
  const doc = source.root && isMap(parsed[source.root]) ? (parsed[source.root] as Tree) : parsed;
  const real = new Set<string>();
  const open = new Set<string>(Object.keys(source.extraOpen ?? {}));
  const walk = (node: Tree, at: string): void => {
    for (const [k, v] of Object.entries(node)) {
      const p = at ? `${at}.${k}` : k;
      real.add(p);
      // Below a list, a key with no default, an empty map or a Kubernetes field, the chart takes any shape.
      if (v === null || Array.isArray(v) || (isMap(v) && Object.keys(v).length === 0) || passThrough.test(k))
        open.add(p);
      else if (isMap(v)) walk(v, p);
    }
  };
  walk(doc, "");
  const rootPrefix = source.root ? `${source.root}.` : "";
  const documented = new Set(
    [...commentedPaths(valuesYaml)]
      .filter((p) => p.startsWith(rootPrefix))
      .map((p) => p.slice(rootPrefix.length)),
  );
  // A key documented only as a comment (`# annotations: {}`) takes whatever its comment shows.
  for (const p of documented) if (!real.has(p)) open.add(p);
  const known = new Set([...real, ...documented, ...Object.keys(source.extraKnown ?? {}), ...open]);
  return { known: [...known].sort(), open: [...open].sort() };
}

/** Key paths of a values.yaml, commented-out keys included, placed by their indentation. */
function commentedPaths(valuesYaml: string): Set<string> {
  const paths = new Set<string>();
  const stack: { indent: number; key: string }[] = [];
  for (const line of valuesYaml.split("\n")) {
    // Commented keys start lowercase, as values keys do: "# NOTE:" and "# Examples:" are prose.
    const m = /^(\s*)(#\s?)?([A-Za-z_][\w-]*):(\s|$)/.exec(line);
    if (m && m[2] && !/^[a-z]/.test(m[3])) continue;
    if (!m || (m[2] && /^\s*#\s?-/.test(line))) continue;
    const indent = m[1].length;
    while (stack.length > 0 && stack[stack.length - 1].indent >= indent) stack.pop();
    paths.add([...stack.map((s) => s.key), m[3]].join("."));
    if (!m[2]) stack.push({ indent, key: m[3] });
  }
  return paths;
}

/** The whole record, from the copies in `dir`. */
export function record(dir: string): Record<string, RecordedValuesKeys> {
  const out: Record<string, RecordedValuesKeys> = {};
  for (const [name, source] of Object.entries(sources) as [ChartName, Source][]) {
    const pin = charts[name];
    const keys = keysOf(fs.readFileSync(path.join(dir, source.file), "utf8"), source);
    out[name] = { chart: pin.chart, version: pin.version, source: pin.source, ...keys };
  }
  return out;
}

export const recordFile = path.resolve(__dirname, "../lib/versions/values-keys.json");

if (require.main === module) {
  const dir =
    process.env.PLATFORM_REFERENCE_DIR ?? path.resolve(__dirname, "../../shared/reference/upstream");
  if (!fs.existsSync(dir)) {
    console.error(
      `No values.yaml copies at ${dir}: set PLATFORM_REFERENCE_DIR to the directory that holds them.`,
    );
    process.exit(1);
  }
  fs.writeFileSync(recordFile, `${JSON.stringify(record(dir), null, 2)}\n`);
  console.log(
    `Recorded the values keys of ${Object.keys(sources).length} charts in ${path.relative(process.cwd(), recordFile)}.`,
  );
}
