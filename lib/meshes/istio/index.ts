import type { ConfigProblem, EnvironmentInput, PlatformConfig } from "../../config";
import { showValue } from "../../config";
import { charts, istioFacts, istioVersions } from "../../versions";
import type { Mesh, MeshConfig, MeshRelease } from "../mesh";
import { autopilotProxyProblems } from "../rules";
import { LoadBalancerPort } from "./manifests";
import { istioPolicy } from "./policy";

export { istioPolicy } from "./policy";
export * from "./manifests";

export const istioNamespace = "istio-system";
/** Named so the chart's Service is cert-manager-istio-csr, the address istiod and ztunnel are given. */
export const istioCsrRelease = "cert-manager-istio-csr";

/** The istiod releases: one unrevisioned, or one per revision (two during a canary upgrade). */
export function istiodReleases(
  istio: Pick<MeshConfig["istio"], "revisions">,
): { release: string; revision?: string; version: string }[] {
  return istio.revisions
    ? istio.revisions.map((r) => ({ release: `istiod-${r.name}`, revision: r.name, version: r.version }))
    : [{ release: "istiod", version: istioVersions[0] }];
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
    { release: "istio-base", chart: "istioBase" },
    ...(cni ? [{ release: "istio-cni", chart: "istioCni" } as const] : []),
    ...istiodReleases(config.istio).map((r) => ({
      release: r.release,
      chart: "istiod" as const,
      version: r.version,
    })),
    ...(ambient ? [{ release: "ztunnel", chart: "ztunnel" } as const] : []),
  ];
  const revision = config.istio.defaultRevision;
  return {
    kind: "istio",
    title: "Istio",
    config,
    ownKeys: ["istio", "dataplane"],
    configProblems: (input, env) => istioProblems(input, env),
    releases,
    crdOwners: [{ family: "istio", chart: "istioBase", reason: "platform:mesh.kind is istio" }],
    needsCertManager: true,
    needsTrustManager: false,
    webhookPorts: charts.istiod.webhookPorts ?? [],
    grafanaDashboards: Object.fromEntries(
      Object.entries({
        ...istioFacts.grafanaDashboards,
        ...(ambient ? istioFacts.ambientGrafanaDashboards : {}),
      }).map(([name, file]) => [`istio-${name}`, { url: `${istioFacts.grafanaDashboardsUrl}/${file}` }]),
    ),
    namespaceEnrolment: ambient
      ? { labels: { "istio.io/dataplane-mode": "ambient" }, annotations: {} }
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

function istioProblems(input: EnvironmentInput, config: PlatformConfig): ConfigProblem[] {
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
  const wanted = input.mesh?.istio?.defaultRevision;
  if (wanted !== undefined && !names.includes(wanted)) {
    problems.push({
      path: "platform:mesh.istio.defaultRevision",
      problem: `${showValue(wanted)} is not one of mesh.istio.revisions`,
      allowed: names.join(", ") || "none: list mesh.istio.revisions first",
      fix: "name one of the revisions",
    });
  }
  if (ambient && input.mesh?.cni === false) {
    problems.push({
      path: "platform:mesh.cni",
      problem: "is false, but Istio ambient redirects traffic only through istio-cni",
      fix: "remove platform:mesh.cni, or use the sidecar data plane",
    });
  }
  return problems;
}
