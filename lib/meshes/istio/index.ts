import type { ConfigProblem, EnvironmentInput, PlatformConfig } from "../../config";
import type { ChartFrom } from "../../deploy";
import { showValue } from "../../config";
import { charts, compareVersions, istioFacts, istioOciCharts, istioVersions } from "../../versions";
import { plainScrape, type Mesh, type MeshConfig, type MeshRelease, type ReliedOnValue } from "../mesh";
import { autopilotProxyProblems } from "../rules";
import { LoadBalancerPort, PermissivePods } from "./manifests";

/** The label that enrols a namespace or a pod in ambient (istio-cni, cni/README.md at 1.30.3). */
const ambientModeLabel = "istio.io/dataplane-mode";
import { istioPolicy } from "./policy";

export { istioPolicy } from "./policy";
export * from "./manifests";
export * from "./alerts";

export const istioNamespace = "istio-system";
/** Named so the chart's Service is cert-manager-istio-csr, the address istiod and ztunnel are given. */
export const istioCsrRelease = "cert-manager-istio-csr";

/**
 * The revision name of the istiod installed without a revision: its webhooks also select
 * `istio.io/rev: default` (istiod chart templates/mutatingwebhook.yaml at 1.30.3).
 */
export const unrevisioned = "default";

/** A revision as istiod's values name it: none for the unrevisioned istiod. */
export function revisionValue(name: string | undefined): string | undefined {
  return name === unrevisioned ? undefined : name;
}

/** A version, where it differs from the pinned charts' (`MeshRelease.version`). */
const otherThanPin = (version: string) => (version === istioVersions[0] ? undefined : version);

/** An istiod revision as configured: a pinned version, or a newer one with its charts' source and digests. */
export type IstioRevision = NonNullable<MeshConfig["istio"]["revisions"]>[number];

/**
 * Where a chart of a revision's version comes from, where the version is not pinned: the revision's
 * repository (Istio's OCI registry unless it says) and that chart's digest. Undefined for a pinned version.
 */
export function revisionChartSource(
  revisions: readonly IstioRevision[] | undefined,
  revision: IstioRevision | undefined,
  chart: "base" | "istiod",
): ChartFrom | undefined {
  if (!revision?.charts || (istioVersions as readonly string[]).includes(revision.version)) return undefined;
  return {
    repo: revision.charts.repo ?? istioOciCharts,
    digest: revision.charts.digests[chart],
    configPath: `platform:mesh.istio.revisions.${(revisions ?? []).indexOf(revision)}.charts.digests.${chart}`,
  };
}

/** The istiod releases: one unrevisioned, or one per revision (two during a canary upgrade). */
export function istiodReleases(istio: Pick<MeshConfig["istio"], "revisions">): {
  release: string;
  revision?: string;
  version: string;
  from?: ChartFrom;
}[] {
  return istio.revisions
    ? istio.revisions.map((r) => {
        const revision = revisionValue(r.name);
        return {
          release: revision ? `istiod-${revision}` : "istiod",
          revision,
          version: r.version,
          from: revisionChartSource(istio.revisions, r, "istiod"),
        };
      })
    : [{ release: "istiod", version: istioVersions[0] }];
}

/**
 * The version of Istio's CRDs (istio-base): the newest istiod's, so a canary istiod never starts on
 * older CRDs. Istio upgrades the base chart before the canary (istio.io docs/setup/upgrade/helm).
 */
export function istioBaseVersion(istio: Pick<MeshConfig["istio"], "revisions">): string {
  return istioBaseRevision(istio)?.version ?? istioVersions[0];
}

/** The revision whose version istio-base runs at, where it is newer than the pin. */
export function istioBaseRevision(istio: Pick<MeshConfig["istio"], "revisions">): IstioRevision | undefined {
  return (istio.revisions ?? []).reduce<IstioRevision | undefined>(
    (newest, r) => (compareVersions(r.version, newest?.version ?? istioVersions[0]) > 0 ? r : newest),
    undefined,
  );
}

/** istiod's values the platform's probes and scrapes rest on, at their defaults (istiod values.yaml at 1.30.3). */
function istiodReliedOn(ambient: boolean): ReliedOnValue[] {
  return [
    {
      path: "meshConfig.enablePrometheusMerge",
      value: true,
      reason:
        "the platform's proxy monitors and meshed apps' scrapes read the metrics pilot-agent merges on port 15020",
    },
    // Ambient pods have no sidecar to rewrite probes for or to serve merged metrics.
    ...(ambient
      ? []
      : [
          {
            path: "meshConfig.defaultConfig.statusPort",
            value: istioFacts.proxyMetricsPort,
            reason: `pilot-agent serves merged metrics on the mesh's status port and the injector points prometheus.io/port at it (pkg/kube/inject/webhook.go applyPrometheusMerge); the platform's proxy monitors scrape ${istioFacts.proxyMetricsPort}`,
          },
          {
            path: "global.proxy.statusPort",
            value: istioFacts.proxyMetricsPort,
            reason: `the injector leaves this port out of inbound capture, so Prometheus's plain scrape of ${istioFacts.proxyMetricsPort} passes STRICT mTLS (files/injection-template.yaml excludeInboundPorts)`,
          },
          {
            path: "sidecarInjectorWebhook.rewriteAppHTTPProbe",
            value: true,
            reason:
              "kubelet's HTTP probes reach apps through pilot-agent, past the sidecar's mTLS and the platform's authorization policies (pkg/kube/inject/app_probe.go)",
          },
        ]),
  ];
}

/** Istio from its own charts, workload identity from cert-manager through istio-csr. */
export function istioMesh(config: MeshConfig): Mesh {
  const ambient = config.dataplane === "ambient";
  const cni = config.cni || ambient;
  // With istio-cni or ambient the proxy needs no NET_ADMIN init container, so `baseline` fits
  // (istio-discovery files/injection-template.yaml: istio-validation instead of istio-init).
  const meshedPodSecurity = cni ? "baseline" : "privileged";
  const releases: MeshRelease[] = [
    { release: istioCsrRelease, chart: "istioCsr" },
    {
      release: "istio-base",
      chart: "istioBase",
      version: otherThanPin(istioBaseVersion(config.istio)),
      from: revisionChartSource(config.istio.revisions, istioBaseRevision(config.istio), "base"),
    },
    ...(cni ? [{ release: "istio-cni", chart: "istioCni" } as const] : []),
    ...istiodReleases(config.istio).map((r) => ({
      release: r.release,
      chart: "istiod" as const,
      version: r.version,
      from: r.from,
      reliedOn: istiodReliedOn(ambient),
    })),
    ...(ambient ? [{ release: "ztunnel", chart: "ztunnel" } as const] : []),
  ];
  const revision = revisionValue(config.istio.defaultRevision);
  return {
    kind: "istio",
    title: "Istio",
    config,
    ownKeys: ["istio", "dataplane", "previousTrustAnchor"],
    configProblems: (input, env) => istioProblems(input, env),
    releases,
    gatewayApi: istioFacts.gatewayApi,
    crdOwners: [
      { family: "trustManager", chart: "trustManager", reason: "distributes Istio's pinned roots" },
      { family: "istio", chart: "istioBase", reason: "platform:mesh.kind is istio" },
    ],
    sizedCharts: {
      proxy: ["istiod"],
      istiod: ["istiod"],
      istioCsr: ["istioCsr"],
      istioCni: ["istioCni"],
      ztunnel: ["ztunnel"],
    },
    needsCertManager: true,
    // istio-csr reads its pinned roots from a trust-manager Bundle.
    needsTrustManager: true,
    webhookPorts: charts.istiod.webhookPorts ?? [],
    grafanaDashboards: Object.fromEntries(
      Object.entries({
        ...istioFacts.grafanaDashboards,
        ...(ambient ? istioFacts.ambientGrafanaDashboards : {}),
      }).map(([name, file]) => [`istio-${name}`, { url: `${istioFacts.grafanaDashboardsUrl}/${file}` }]),
    ),
    namespaceEnrolment: ambient
      ? { labels: { [ambientModeLabel]: "ambient" }, annotations: {} }
      : // Either label, never both: with both, istio-injection silently wins over istio.io/rev.
        {
          labels: revision ? { "istio.io/rev": revision } : { "istio-injection": "enabled" },
          annotations: {},
        },
    meshedPodSecurity,
    // istiod's injection webhooks are called only for namespaces or pods that opt in (istio-injection,
    // istio.io/rev, sidecar.istio.io/inject; templates/mutatingwebhook.yaml at 1.30.3) and its validator
    // only for Istio's own kinds: nothing else to exclude.
    unmanagedNamespaceLabels: {},
    jobPodMetadata: ambient
      ? { labels: {}, annotations: {} } // no sidecar to outlive the Job
      : // ENABLE_NATIVE_SIDECARS defaults to "auto" (every node's kubelet >= 1.33); per pod it is forced.
        config.nativeSidecars
        ? { labels: {}, annotations: { "sidecar.istio.io/nativeSidecar": "true" } }
        : // Istio's webhook selects on the label (its objectSelector), so the opt-out is a label.
          { labels: { "sidecar.istio.io/inject": "false" }, annotations: {} },
    acmeSolverPod: ambient
      ? // A pod label of "none" keeps a pod of an ambient namespace out of ztunnel (istio-cni at 1.30.3,
        // cni/README.md), so the challenge needs no mTLS under STRICT.
        { labels: { [ambientModeLabel]: "none" }, annotations: {} }
      : // cert-manager itself opts its solver pods out of the sidecar (pkg/issuer/acme/http/pod.go at v1.21.2).
        { labels: {}, annotations: {} },
    // The injector rewrites kubelet's HTTP probes to pilot-agent's status port, which probes the app
    // from inside the pod (pkg/kube/inject/app_probe.go; rewriteAppHTTPProbe true in istiod values.yaml);
    // in ambient, istio-cni lets the kubelet's probes past ztunnel (cni/README.md at 1.30.3).
    probesThroughPolicy: false,
    appScrape: (m) =>
      ambient
        ? // ztunnel takes the scrape on the app's port: in plain text it is refused under STRICT unless the
          // scraper is in the mesh too (the Prometheus this platform installs is; see istioProblems).
          plainScrape(m, false)
        : {
            // Metrics merging: the injector moves these to pilot-agent, which scrapes the app inside the pod
            // and serves its metrics with Envoy's on 15020, outside mTLS (pkg/kube/inject/webhook.go
            // applyPrometheusMerge at 1.30.3). The app's own monitor takes them; Istio's proxy monitors skip it.
            pod: {
              labels: { [istioFacts.scrapeIgnoreLabel]: "true" },
              annotations: {
                "prometheus.io/scrape": "true",
                "prometheus.io/port": String(m.port),
                "prometheus.io/path": m.path,
              },
            },
            endpoint: {
              port: istioFacts.proxyMetricsPort,
              path: istioFacts.proxyMetricsPath,
              rewriteAddress: { container: istioFacts.proxyContainer },
            },
            throughPolicy: false,
          },
    scraper:
      ambient && config.istio.mtls === "STRICT"
        ? {
            // The pod label enrols just these pods in ambient (istio-cni, cni/README.md at 1.30.3): their
            // scrapes of meshed pods then travel over ztunnel's mTLS.
            pod: { labels: { [ambientModeLabel]: "ambient" }, annotations: {} },
            // Grafana and the operator, outside the mesh, still reach Prometheus in plain text.
            objects: (scope, id, props) =>
              new PermissivePods(scope, id, { name: "prometheus-plaintext", ...props }),
          }
        : undefined,
    configWarnings: (env) => [
      ...(ambient &&
      config.istio.mtls === "STRICT" &&
      env.monitoring.backend === "existing-prometheus" &&
      env.apps.some((a) => a.metrics)
        ? [
            "platform:monitoring.backend is existing-prometheus with Istio ambient under STRICT mTLS: ztunnel refuses plain-text scrapes of meshed apps, so your Prometheus's pods must be in the ambient mesh (pod label istio.io/dataplane-mode: ambient) for apps[].metrics to be scraped",
          ]
        : []),
      // A version this package has not read: its values keys are unrecorded, so nothing checks them.
      ...(config.istio.revisions ?? [])
        .filter((r) => !(istioVersions as readonly string[]).includes(r.version))
        .map(
          (r) =>
            `Istio ${r.version} (revision ${r.name}) is not pinned by this package: the values the platform and platform:overrides.charts set on its base and istiod charts are not checked against that release's values.yaml; review them with \`helm show values ${istioOciCharts}/istiod --version ${r.version}\``,
        ),
    ],
    ingressControllerPod: (podKey) => ({
      [podKey]: {
        // The injection webhooks' objectSelector matches labels, not annotations. A revisioned istiod
        // renders only the rev.* webhooks, which select `istio.io/rev: <revision>` and never
        // `sidecar.istio.io/inject: "true"` (istiod chart templates/mutatingwebhook.yaml at 1.30.3).
        podLabels: revision ? { "istio.io/rev": revision } : { "sidecar.istio.io/inject": "true" },
        // No inbound interception: under STRICT mTLS it would demand Istio mTLS from internet clients.
        podAnnotations: { "traffic.sidecar.istio.io/includeInboundPorts": "" },
      },
    }),
    ingressControllerPodSecurity: meshedPodSecurity,
    // Istio identifies the destination by the Host header, so the controller names the Service there.
    ingressBackend: { serviceClusterIp: true, serviceHostHeader: true },
    loadBalancerPort:
      config.istio.mtls === "STRICT"
        ? (scope, id, props) => new LoadBalancerPort(scope, id, props)
        : undefined,
    policy: istioPolicy(ambient),
  };
}

/**
 * A revision's version: one this package pins, whose charts come from the chart source; or, for a canary
 * before the package pins it, a newer release at most two minors ahead (revision-based upgrades may jump
 * two minors: istio.io content/en/docs/setup/upgrade/canary/index.md) that names its charts' digests.
 */
function revisionVersionProblems(revisions: readonly IstioRevision[]): ConfigProblem[] {
  const pinned = istioVersions as readonly string[];
  const newestMinor = Number(istioVersions[0].split(".")[1]);
  return revisions.flatMap((r, i): ConfigProblem[] => {
    const at = `platform:mesh.istio.revisions.${i}`;
    if (pinned.includes(r.version)) {
      return r.charts
        ? [
            {
              path: `${at}.charts`,
              problem: `is set, but ${r.version} is a version this package pins, whose charts come from platform:chartSource: the setting would not apply`,
              fix: `remove ${at}.charts (a digest for a pinned chart goes in platform:chartSource.digests)`,
            },
          ]
        : [];
    }
    const minor = Number(r.version.split(".")[1]);
    if (compareVersions(r.version, istioVersions[0]) < 0 || minor > newestMinor + 2) {
      return [
        {
          path: `${at}.version`,
          problem: `${showValue(r.version)} is neither a version this package pins nor a newer Istio within two minors of ${istioVersions[0]}, which a canary may move to`,
          allowed: `${pinned.join(", ")}, or a release from ${istioVersions[0]} to 1.${newestMinor + 2}.x with ${at}.charts`,
          fix: `use ${istioVersions[0]}, or a newer release with its charts' digests`,
        },
      ];
    }
    if (!r.charts) {
      return [
        {
          path: `${at}.charts`,
          problem: `is missing: ${r.version} is not pinned by this package (it pins ${pinned.join(", ")}), so the platform needs the digests of the charts you reviewed`,
          allowed:
            "{ digests: { base: sha256:..., istiod: sha256:... } }, and optionally repo (default oci://ghcr.io/istio/release/charts)",
          fix: `add ${at}.charts with the digests \`helm pull ${istioOciCharts}/istiod --version ${r.version}\` prints (and the same for base), or upgrade gke-mesh-platform to a release that pins ${r.version}`,
        },
      ];
    }
    return [];
  });
}

function istioProblems(input: EnvironmentInput | undefined, config: PlatformConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const ambient = config.mesh.dataplane === "ambient";
  if (ambient && config.cluster.mode === "autopilot") {
    problems.push({
      path: "platform:mesh.dataplane",
      problem:
        '"ambient" needs istio-cni and the privileged ztunnel DaemonSet, which Autopilot does not admit',
      allowed: '"sidecar" on Autopilot',
      fix: 'set platform:mesh.dataplane to "sidecar", or platform:cluster.mode to "standard" for ambient',
    });
  } else {
    problems.push(...autopilotProxyProblems(config, "istio", "istio-cni"));
  }
  const names = (config.mesh.istio.revisions ?? []).map((r) => r.name);
  if (new Set(names).size !== names.length) {
    problems.push({
      path: "platform:mesh.istio.revisions",
      problem: `names a revision twice (${names.join(", ")})`,
      fix: "give each revision its own name",
    });
  }
  problems.push(...revisionVersionProblems(config.mesh.istio.revisions ?? []));
  const wanted = input ? input.mesh?.istio?.defaultRevision : config.mesh.istio.defaultRevision;
  if (wanted !== undefined && !names.includes(wanted)) {
    problems.push({
      path: "platform:mesh.istio.defaultRevision",
      problem: `${showValue(wanted)} is not one of mesh.istio.revisions`,
      allowed: names.join(", ") || "none: list mesh.istio.revisions first",
      fix: "name one of the revisions",
    });
  }
  const metered = config.apps.filter((a) => a.metrics).map((a) => `${a.namespace}/${a.name}`);
  if (
    ambient &&
    config.mesh.istio.mtls === "STRICT" &&
    config.monitoring.backend === "managed-prometheus" &&
    metered.length > 0
  ) {
    problems.push({
      path: "platform:monitoring.backend",
      problem: `is "managed-prometheus" with Istio ambient under STRICT mTLS: ztunnel refuses the plain-text scrapes Managed Prometheus's collectors (gmp-system, outside the mesh) make of ${metered.join(", ")}, so their metrics would never arrive`,
      allowed:
        '"prometheus" (the platform\'s Prometheus joins the ambient mesh to scrape), or mesh.istio.mtls "PERMISSIVE"',
      fix: 'set platform:monitoring.backend to "prometheus", or platform:mesh.istio.mtls to "PERMISSIVE", or remove the apps\' metrics',
    });
  }
  if (ambient && input?.mesh?.cni === false) {
    problems.push({
      path: "platform:mesh.cni",
      problem: "is false, but Istio ambient redirects traffic only through istio-cni",
      fix: "remove platform:mesh.cni, or use the sidecar data plane",
    });
  }
  return problems;
}
