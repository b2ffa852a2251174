import { charts, istioFacts } from "../../versions";
import type {
  AdmissionObject,
  AdmittedPod,
  InjectedContainer,
  MeshAdmission,
  MeshProbe,
  MeshScrape,
} from "../admissionModel";
import { istioGrants } from "./grants";
import { istioProxyMonitorNames } from "./manifests";

/**
 * Istio's sidecar injector at 1.30.3. Its webhooks (rev.namespace., rev.object., namespace., object.
 * sidecar-injector.istio.io; istiod chart templates/mutatingwebhook.yaml) decide by their namespace and
 * object selectors which pods they are called for; the injector then skips pods that opt out with the
 * `sidecar.istio.io/inject` label or annotation set to false (pkg/kube/inject/webhook.go injectRequired).
 */
const optsOut = (pod: AdmittedPod) =>
  pod.labels["sidecar.istio.io/inject"] === "false" || pod.annotations["sidecar.istio.io/inject"] === "false";

/** The revision label, on a namespace or a pod. */
const revisionLabel = "istio.io/rev";

/** The ambient enrolment label, on a namespace or a pod (istio-cni, cni/README.md at 1.30.3). */
const dataplaneMode = "istio.io/dataplane-mode";

/** The root namespace, whose PeerAuthentication without a selector is mesh-wide. */
const rootNamespace = "istio-system";

/** Ports pilot-agent and Envoy serve outside inbound capture: 15020 (merged metrics), 15021, 15090. */
const proxyOwnPorts = new Set<string | number>([
  istioFacts.proxyMetricsPort,
  15021,
  15090,
  "http-envoy-prom",
]);

interface PeerAuthenticationSpec {
  selector?: { matchLabels?: Record<string, string> };
  mtls?: { mode?: string };
  portLevelMtls?: Record<string, { mode?: string }>;
}

/** The PeerAuthentications among the objects, found once per array: every scrape of a program asks. */
const peerAuthenticationsOf = new WeakMap<readonly AdmissionObject[], readonly AdmissionObject[]>();
function peerAuthentications(objects: readonly AdmissionObject[]): readonly AdmissionObject[] {
  const known = peerAuthenticationsOf.get(objects);
  if (known) return known;
  const found = objects.filter(
    (o) => o.kind === "PeerAuthentication" && o.apiVersion.startsWith("security.istio.io/"),
  );
  peerAuthenticationsOf.set(objects, found);
  return found;
}

/**
 * The mTLS mode a pod's port takes (pilot/pkg/security/authn/policy_applier.go ComposePeerAuthentication
 * at 1.30.3): one policy per scope, the mesh's (root namespace, no selector), the namespace's (no
 * selector or empty matchLabels) and the workload's (a selector that matches, outside the root
 * namespace); each set mode overrides the broader one and UNSET inherits it; the workload's port-level
 * mode applies to its port; PERMISSIVE without any. Of several policies in one scope the oldest wins; a
 * render has no creation times, so the first in the set stands for it.
 */
function mtlsMode(scrape: Pick<MeshScrape, "objects" | "pod" | "namespace" | "portNumber">): string {
  const policies = peerAuthentications(scrape.objects);
  const spec = (o: AdmissionObject) => (o.spec ?? {}) as PeerAuthenticationSpec;
  const wide = (o: AdmissionObject) => Object.keys(spec(o).selector?.matchLabels ?? {}).length === 0;
  const selects = (o: AdmissionObject) =>
    Object.entries(spec(o).selector?.matchLabels ?? {}).every(([k, v]) => scrape.pod.labels[k] === v);
  const outsideRoot = scrape.namespace !== rootNamespace;
  const mesh = policies.find((o) => wide(o) && o.metadata.namespace === rootNamespace);
  const namespace = policies.find((o) => wide(o) && outsideRoot && o.metadata.namespace === scrape.namespace);
  const workload = policies.find(
    (o) => !wide(o) && outsideRoot && o.metadata.namespace === scrape.namespace && selects(o),
  );
  const set = (m: { mode?: string } | undefined) => (m?.mode && m.mode !== "UNSET" ? m.mode : undefined);
  let mode = "PERMISSIVE";
  for (const o of [mesh, namespace, workload]) mode = (o && set(spec(o).mtls)) ?? mode;
  const port = scrape.portNumber === undefined ? undefined : workload && spec(workload).portLevelMtls;
  return set(port?.[String(scrape.portNumber)]) ?? mode;
}

/** Ports in a comma-separated annotation; `*` for every port. */
const portList = (value: string | undefined): string[] | undefined =>
  value === undefined
    ? undefined
    : value
        .split(",")
        .map((p) => p.trim())
        .filter((p) => p !== "");

/**
 * Whether the sidecar intercepts inbound traffic on the scraped port: the pod's
 * `traffic.sidecar.istio.io/includeInboundPorts` ("" intercepts nothing, `*` everything) and
 * `excludeInboundPorts`, as the injection template hands them to istio-init or istio-validation
 * (istio-discovery files/injection-template.yaml at 1.30.3). An uncaptured port never meets mTLS.
 */
function capturedInbound(scrape: Pick<MeshScrape, "pod" | "portNumber">): boolean {
  const a = scrape.pod.annotations;
  const port = scrape.portNumber !== undefined ? String(scrape.portNumber) : undefined;
  const include = portList(a["traffic.sidecar.istio.io/includeInboundPorts"]);
  if (include !== undefined && !include.includes("*") && (port === undefined || !include.includes(port)))
    return false;
  const exclude = portList(a["traffic.sidecar.istio.io/excludeInboundPorts"]);
  return !(port !== undefined && exclude?.includes(port));
}

/** A boolean as Go's strconv.ParseBool reads it, or undefined where it does not parse. */
function goBool(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (["1", "t", "T", "TRUE", "true", "True"].includes(value)) return true;
  if (["0", "f", "F", "FALSE", "false", "False"].includes(value)) return false;
  return undefined;
}

const everyAddress = new Set(["0.0.0.0/0", "::/0"]);

interface AuthorizationSpec {
  selector?: { matchLabels?: Record<string, string> };
  action?: string;
  rules?: {
    from?: { source?: { ipBlocks?: string[]; notPrincipals?: string[]; notIpBlocks?: string[] } }[];
    to?: { operation?: { ports?: string[] } }[];
  }[];
}

/**
 * Istio's policies that let every address in: an ALLOW rule with no source or an every-address block,
 * and a port a PeerAuthentication opens to plain text (PERMISSIVE) without a DENY policy of the same
 * workload that refuses plain text on it from all but named sources (`notPrincipals: ["*"]` with
 * `notIpBlocks`).
 */
function istioOpenAccess(
  objects: readonly AdmissionObject[],
): { object: AdmissionObject; message: string }[] {
  const istio = objects.filter((o) => o.apiVersion.startsWith("security.istio.io/"));
  const authz = istio.filter((o) => o.kind === "AuthorizationPolicy");
  const out: { object: AdmissionObject; message: string }[] = [];
  for (const o of authz) {
    const spec = (o.spec ?? {}) as AuthorizationSpec;
    if ((spec.action ?? "ALLOW") !== "ALLOW") continue;
    for (const rule of spec.rules ?? []) {
      const from = rule.from ?? [];
      if (from.length === 0 || from.some((f) => (f.source?.ipBlocks ?? []).some((b) => everyAddress.has(b))))
        out.push({ object: o, message: "has an ALLOW rule any address matches (no source, or 0.0.0.0/0)" });
    }
  }
  const sameSelector = (a: AdmissionObject, b: AdmissionObject) =>
    a.metadata.namespace === b.metadata.namespace &&
    JSON.stringify((a.spec as AuthorizationSpec | undefined)?.selector?.matchLabels ?? {}) ===
      JSON.stringify((b.spec as PeerAuthenticationSpec | undefined)?.selector?.matchLabels ?? {});
  for (const pa of istio.filter((o) => o.kind === "PeerAuthentication")) {
    const ports = Object.entries((pa.spec as PeerAuthenticationSpec | undefined)?.portLevelMtls ?? {})
      .filter(([, m]) => m.mode === "PERMISSIVE" || m.mode === "DISABLE")
      .map(([port]) => port);
    for (const port of ports) {
      const guarded = authz.some((d) => {
        const spec = (d.spec ?? {}) as AuthorizationSpec;
        return (
          spec.action === "DENY" &&
          sameSelector(d, pa) &&
          (spec.rules ?? []).some(
            (r) =>
              (r.from ?? []).some(
                (f) =>
                  (f.source?.notPrincipals ?? []).includes("*") &&
                  (f.source?.notIpBlocks ?? []).every((b) => !everyAddress.has(b)),
              ) && (r.to ?? []).some((t) => (t.operation?.ports ?? []).includes(port)),
          )
        );
      });
      if (!guarded)
        out.push({
          object: pa,
          message: `opens port ${port} to plain text, and no DENY policy of the same workload refuses plain text there from all but named sources: every address reaches it`,
        });
    }
  }
  return out;
}

export const istioAdmission: MeshAdmission = {
  mesh: "istio",
  title: "Istio",
  proxyConfigChart: "istiod",
  // istio-csr signs every workload certificate (one-hour lifetime): without it no pod starts.
  controlPlaneCharts: ["istiod", "cert-manager-istio-csr"],
  scrapedCharts: ["istiod", "ztunnel"],
  // Istio's injector writes no label per kind of owner.
  ownerLabels: [],
  // cert-manager's solver pod opts out of Istio's sidecar itself (pkg/issuer/acme/http/pod.go at v1.21.2).
  acmeSolverDefaults: { labels: {}, annotations: { "sidecar.istio.io/inject": "false" } },
  secretReaders: [
    {
      component: "istiod",
      chart: charts.istiod.chart,
      podLabel: ["app", "istiod"],
      ownNamespaceOnly: false,
      reason:
        "the mesh's control plane, which already configures every proxy: it gets, lists and watches every Secret for Gateways' credentials and remote clusters, and may also create, update and delete every Secret of its namespace (its own CA's, and the intermediate CA the platform keeps there), whatever the values (istio 1.30.3 manifests/charts/istio-control/istio-discovery/templates/clusterrole.yaml, role.yaml)",
    },
  ],
  proxyContainer: istioFacts.proxyContainer,
  proxyMonitors: [
    `PodMonitor ${istioProxyMonitorNames.operator}`,
    `ClusterPodMonitoring ${istioProxyMonitorNames.managed}`,
  ],
  // istio-csr writes the root certificate into every namespace (pkg/controller/configmap.go at v0.17.0);
  // istiod's own namespace controller does not run with its CA off (pilot/pkg/bootstrap/server.go at 1.30.3).
  nodeProxyChart: "ztunnel",
  // A sidecar-injected pod is never captured, and a pod label of "none" opts out (cni/README.md at 1.30.3).
  capturedByNodeProxy: (pod) =>
    pod.labels[dataplaneMode] !== "none" &&
    (pod.labels[dataplaneMode] === "ambient" || pod.namespaceLabels[dataplaneMode] === "ambient"),
  openAccess: istioOpenAccess,
  // A revisioned istiod renders only the rev.* injection webhooks, which select istio.io/rev
  // (istiod chart templates/mutatingwebhook.yaml at 1.30.3).
  injectorHint: "a revisioned istiod selects istio.io/rev",
  // Istio's policies guard the workload, not one port a selector names.
  servedPort: () => undefined,
  scrapeRefusal(scrape: MeshScrape) {
    if (!scrape.sidecar && !scrape.captured) return undefined;
    if (mtlsMode(scrape) !== "STRICT") return undefined;
    // The sidecar's own ports take plain scrapes; the app's port takes mTLS only.
    const own = [scrape.port, scrape.portNumber].some((p) => p !== undefined && proxyOwnPorts.has(p));
    if (scrape.sidecar && own) return undefined;
    if (scrape.sidecar && !capturedInbound(scrape)) return undefined;
    if (scrape.captured && scrape.scraperInMesh !== false) return undefined;
    return scrape.sidecar
      ? `its port ${JSON.stringify(scrape.port ?? "(every port)")} takes only mTLS under STRICT, and Prometheus is outside the mesh: scrape the sidecar's merged metrics (15020, /stats/prometheus) instead`
      : "ztunnel takes only mTLS under STRICT, and this scraper is outside the ambient mesh: enrol the scraper's pods (istio.io/dataplane-mode: ambient)";
  },
  grants: istioGrants,
  probeRefusal(probe: MeshProbe) {
    // In ambient, istio-cni lets the node's probes past ztunnel (cni/README.md at 1.30.3).
    if (!probe.sidecar) return undefined;
    // The injector rewrites HTTP probes to pilot-agent, which probes the app from inside the pod, unless
    // the pod's annotation or the control plane's values turn it off (pkg/kube/inject/app_probe.go).
    const values = (probe.controlPlanes[0]?.sidecarInjectorWebhook ?? {}) as {
      rewriteAppHTTPProbe?: unknown;
    };
    const asked = goBool(probe.pod.annotations["sidecar.istio.io/rewriteAppHTTPProbers"]);
    if (asked ?? values.rewriteAppHTTPProbe !== false) return undefined;
    if (mtlsMode(probe) !== "STRICT" || !capturedInbound(probe)) return undefined;
    return `reaches the sidecar unrewritten (sidecar.istio.io/rewriteAppHTTPProbers or sidecarInjectorWebhook.rewriteAppHTTPProbe off), and its port ${JSON.stringify(probe.portName ?? probe.portNumber)} takes only mTLS under STRICT: kubelet has no mesh identity. Leave probe rewriting on`;
  },
  writtenInto: (namespace, installed) =>
    installed.has("cert-manager-istio-csr") ? [`ConfigMap ${namespace}/istio-ca-root-cert`] : [],
  isInjectionWebhook: (name) => name.endsWith("sidecar-injector.istio.io"),
  asksForProxy: (pod) =>
    !optsOut(pod) &&
    (pod.labels["sidecar.istio.io/inject"] === "true" ||
      pod.labels["istio.io/rev"] !== undefined ||
      pod.namespaceLabels["istio-injection"] === "enabled" ||
      pod.namespaceLabels["istio.io/rev"] !== undefined),
  injects: (pod) => !optsOut(pod),
  // An istiod serves the pods of its revision: the namespace's istio.io/rev, else the pod's (the
  // rev.namespace and rev.object webhooks of istiod 1.30.3 templates/mutatingwebhook.yaml).
  servingControlPlanes(pod, controlPlanes) {
    const revision = pod.namespaceLabels[revisionLabel] ?? pod.labels[revisionLabel];
    const serving = controlPlanes.filter((values) => (values.revision || undefined) === revision);
    return serving.length > 0 ? serving : controlPlanes;
  },
  proxy(pod, values) {
    const global = (values.global ?? {}) as {
      proxy?: { resources?: { requests?: Record<string, string>; limits?: Record<string, string> } };
    };
    // The chart's defaults for global.proxy.resources (istio-discovery values.yaml): 100m/128Mi, limits 2000m/1024Mi.
    const resources = {
      requests: global.proxy?.resources?.requests ?? { cpu: "100m", memory: "128Mi" },
      limits: global.proxy?.resources?.limits ?? { cpu: "2000m", memory: "1024Mi" },
    };
    const env = (values.env ?? {}) as Record<string, string>;
    // The pod's annotation, "true" or "false", takes precedence over the mesh-wide flag (pkg/kube/inject/inject.go at 1.30.3).
    const asked = pod.annotations["sidecar.istio.io/nativeSidecar"];
    const native = asked === "true" || (asked !== "false" && env.ENABLE_NATIVE_SIDECARS === "true");
    // The injection template declares only Envoy's stats port (files/injection-template.yaml:
    // http-envoy-prom 15090); pilot-agent also serves merged metrics on 15020 and readiness on 15021.
    const proxy: InjectedContainer = {
      name: istioFacts.proxyContainer,
      ports: [{ name: "http-envoy-prom", containerPort: 15090 }],
      listens: [15020, 15021],
      resources,
    };
    const cni = ((values.cni ?? {}) as { enabled?: boolean }).enabled === true;
    const init: InjectedContainer = { name: cni ? "istio-validation" : "istio-init", ports: [], resources };
    return {
      containers: native ? [] : [proxy],
      initContainers: native ? [init, proxy] : [init],
      labels: {
        // Every injected pod carries it (files/injection-template.yaml); Istio's monitors select on it.
        "security.istio.io/tlsMode": "istio",
        "service.istio.io/canonical-name":
          pod.labels["app.kubernetes.io/name"] ?? pod.labels.app ?? pod.workload,
      },
      annotations: {
        // Metrics merging: the agent serves the app's and Envoy's metrics on 15020 (pkg/kube/inject).
        "prometheus.io/scrape": "true",
        "prometheus.io/port": "15020",
        "prometheus.io/path": "/stats/prometheus",
      },
    };
  },
};
