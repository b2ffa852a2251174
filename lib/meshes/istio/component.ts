import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { istioProxySizing, sizingProfile, type Sizing } from "../../config";
import {
  containerResources,
  deepMerge,
  deployChart,
  newChart,
  pinnedRelease,
  single,
  jetstackWorkload,
  standaloneCharts,
  zoneSpread,
  type CertManagerRef,
  type ChartContext,
  type MonitoringRef,
  type Values,
} from "../../deploy";
import { CertificateAlerts, PlatformNamespace } from "../../manifests";
import { charts as pins, istioFacts } from "../../versions";
import { istioIdentityAlertRules } from "./alerts";
import {
  istioBaseRevision,
  istioBaseVersion,
  istioCsrRelease,
  istioNamespace,
  istiodReleases,
  revisionChartSource,
  revisionValue,
  type IstioRevision,
} from "./index";
import {
  IstioCa,
  IstioMonitors,
  MeshMtls,
  istioCaName,
  istioCaNames,
  istioCsrRootsDir,
  istioScrapeOptOut,
  istioTrustDomain,
} from "./manifests";

export interface IstioArgs {
  /** Sidecar proxies, or the ambient data plane (ztunnel). @default "sidecar" */
  readonly dataplane?: "sidecar" | "ambient";
  /** Redirect traffic with istio-cni instead of a privileged init container. @default true with ambient, else false */
  readonly cni?: boolean;
  /** Run sidecars as native sidecars, so meshed Jobs finish. @default true */
  readonly nativeSidecars?: boolean;
  /**
   * istiod revisions (two during a canary upgrade); `default` is the istiod without a revision.
   * istio-base follows the newest. @default one istiod without a revision
   */
  readonly revisions?: readonly IstioRevision[];
  /** The revision that injects app namespaces and that the base chart's webhook follows. @default the unrevisioned istiod */
  readonly defaultRevision?: string;
  /** The mesh-wide mTLS mode. @default "STRICT" */
  readonly mtls?: "STRICT" | "PERMISSIVE";
  /** Two istiods and two istio-csr replicas at least. @default false */
  readonly highAvailability?: boolean;
  /** Trust the previous root too, during a root rotation (docs/istio.md). @default false */
  readonly previousTrustAnchor?: boolean;
  /**
   * Replicas, requests and limits of istiod, istio-csr, istio-cni, ztunnel and every sidecar
   * (docs/configuration.md, "Sizing"). @default the platform's profile, one replica each
   */
  readonly sizing?: IstioSizing;
  /** CRD owners and the user's chart overrides. @default the base chart owns Istio's CRDs; GKE the Gateway API */
  readonly charts?: ChartContext;
  /** cert-manager with trust-manager: the CA and istio-csr's certificates come from it, the roots istio-csr pins from trust-manager. */
  readonly certManager: CertManagerRef;
  /** The cluster's Kubernetes provider. */
  readonly provider: k8s.Provider;
  /** Where istiod's and the proxies' metrics go. @default no monitors */
  readonly monitoring?: MonitoringRef;
  /**
   * An ingress controller runs with an Istio sidecar (Traefik, ingress-nginx): with ambient, the only
   * sidecars, which the proxies' monitor scrapes. @default false
   */
  readonly sidecarIngress?: boolean;
}

/** The sizing Istio's charts read. */
export type IstioSizing = Pick<Sizing, "proxy" | "istiod" | "istioCsr" | "istioCni" | "ztunnel">;

const standaloneSizing: IstioSizing = {
  proxy: istioProxySizing,
  istiod: single(sizingProfile.istiod),
  istioCsr: single(sizingProfile.istioCsr),
  istioCni: sizingProfile.istioCni,
  ztunnel: sizingProfile.ztunnel,
};

/** The revision ztunnel follows: the first listed (the running one during a canary upgrade). */
function ztunnelRevision(args: Pick<IstioArgs, "revisions">): string | undefined {
  return revisionValue(args.revisions?.[0]?.name);
}

/** The data-plane choices istiod, istio-csr and the CNI read. */
type DataPlane = Pick<IstioArgs, "dataplane" | "cni" | "nativeSidecars">;
const usesCni = (a: DataPlane): boolean => a.cni ?? a.dataplane === "ambient";

const gke = { global: { platform: "gke" } };
/** The image registry of a chart that reads `hub` and `global.hub` (istiod, istio-cni); ztunnel reads `hub` only. */
const imageHub = { hub: istioFacts.imageHub, global: { hub: istioFacts.imageHub } };

/** istiod values: identity from istio-csr, GKE platform, Gateway API on, native sidecars, HA in prod. */
export function istiodValues(
  args: DataPlane & Pick<IstioArgs, "highAvailability" | "sizing">,
  revision?: string,
): Values {
  const s = args.sizing ?? standaloneSizing;
  const replicas = args.highAvailability ? Math.max(2, s.istiod.replicas) : s.istiod.replicas;
  return deepMerge(
    {
      ...imageHub,
      // GKE's platform profile (files/profile-platform-gke.yaml); images, the sidecars' included
      // (.ProxyImage in files/injection-template.yaml), from global.hub.
      global: {
        ...imageHub.global,
        platform: "gke",
        caAddress: istioFacts.csrAddress,
        // No istio-reader ClusterRole and binding: they let istio-reader-service-account, which no pod runs
        // as, read every Secret for multicluster remote secrets, and the platform runs one cluster per mesh
        // (templates/reader-clusterrole.yaml, reader-clusterrolebinding.yaml at 1.30.3).
        enableReaderRBAC: false,
      },
      env: {
        // Workload certificates come from cert-manager through istio-csr; istiod's own CA stays off.
        ENABLE_CA_SERVER: "false",
        // GKE serves the Gateway API CRDs; istiod implements HTTPRoute for the mesh (the default, explicit here).
        PILOT_ENABLE_GATEWAY_API: "true",
        // "auto" would wait for every kubelet to be 1.33+; forced, so meshed Jobs finish (or forced off, and Jobs are not injected).
        ENABLE_NATIVE_SIDECARS: (args.nativeSidecars ?? true) ? "true" : "false",
      },
    },
    revision ? { revision } : {},
    // With istio-cni, injected pods get istio-validation instead of istio-init (no NET_ADMIN), which
    // is what lets meshed namespaces enforce baseline (values.yaml cni.enabled).
    usesCni(args) ? { cni: { enabled: true } } : {},
    args.dataplane === "ambient" ? { profile: "ambient" } : {},
    {
      // The chart's autoscaler (autoscaleEnabled, on by default) owns the replica count, so its minimum is
      // the replica count; replicaCount is ignored while it is on (templates/deployment.yaml at 1.30.3).
      // Two or more in HA: injection and config survive a node loss; the chart's PodDisruptionBudget
      // (pdb.minAvailable 1) renders only when autoscaleMin > 1 (templates/poddisruptionbudget.yaml).
      autoscaleMin: replicas,
      // The chart's maximum is 5 (values.yaml autoscaleMax); an autoscaler whose minimum exceeds it is refused.
      ...(replicas > 5 ? { autoscaleMax: replicas } : {}),
      resources: containerResources(s.istiod),
      // The chart sets none (templates/deployment.yaml renders seccompProfile only when given at 1.30.3),
      // and Pod Security `restricted` requires one.
      seccompProfile: { type: "RuntimeDefault" },
      // Every sidecar's istio-proxy (global.proxy.resources, files/injection-template.yaml).
      global: { proxy: { resources: containerResources(s.proxy) } },
    },
    // Its pods carry app: istiod and istio.io/rev (templates/deployment.yaml).
    replicas > 1
      ? {
          topologySpreadConstraints: zoneSpread({ app: "istiod", "istio.io/rev": revision ?? "default" }),
        }
      : {},
  );
}

/** istio-base values: no multicluster reader, and the default revision where one is named. */
export function istioBaseValues(defaultRevision?: string): Values {
  return {
    // No istio-reader-service-account: only the multicluster reader binding istiod's chart renders
    // (global.enableReaderRBAC, off in istiodValues) would use it (templates/reader-serviceaccount.yaml at 1.30.3).
    global: { enableReaderRBAC: false },
    // The revision the validating webhook and unlabelled defaults follow.
    ...(defaultRevision ? { defaultRevision } : {}),
  };
}

/** istio-csr values: sign with the platform's istio-ca Issuer, for every istiod revision. */
export function istioCsrValues(
  args: Pick<IstioArgs, "dataplane" | "revisions" | "highAvailability" | "sizing">,
): Values {
  const s = args.sizing ?? standaloneSizing;
  // Every workload certificate (one hour) comes from istio-csr: in prod never from a single pod, and a
  // drain keeps one (templates/poddisruptionbudget.yaml at v0.17.0; pods labelled app: cert-manager-istio-csr).
  const sizing = {
    ...s.istioCsr,
    replicas: args.highAvailability ? Math.max(2, s.istioCsr.replicas) : s.istioCsr.replicas,
  };
  return {
    ...jetstackWorkload(sizing, { app: istioCsrRelease }),
    app: {
      certmanager: {
        namespace: istioNamespace,
        issuer: { name: istioCaName, kind: "Issuer", group: "cert-manager.io" },
      },
      tls: {
        trustDomain: istioTrustDomain,
        // The roots are pinned, from trust-manager's copy of the root certificate, not taken from
        // whatever the issuer answers; without it istio-csr warns that rotating the chain "will be very
        // difficult" (cmd/app/options/options.go at v0.17.0). The file may hold two roots during a rotation.
        rootCAFile: `${istioCsrRootsDir}/${istioCaNames.trustRootsKey}`,
      },
      server: {
        // istiod's default global.multiCluster.clusterName.
        clusterID: "Kubernetes",
        // ztunnel asks for certificates on behalf of the pods on its node (istio-csr values.yaml).
        ...(args.dataplane === "ambient" ? { caTrustedNodeAccounts: `${istioNamespace}/ztunnel` } : {}),
      },
      istio: {
        revisions: (args.revisions ?? [{ name: "default" }]).map((r) => r.name),
        namespace: istioNamespace,
      },
    },
    // The trust-manager ConfigMap with the roots, mounted where rootCAFile points, as istio-csr's install
    // guide mounts its root (cert-manager/website content/docs/usage/istio-csr/installation.md); istio-csr
    // watches the file and republishes the roots when they change (pkg/tls/rootca/rootca.go at v0.17.0).
    volumes: [{ name: "root-ca", configMap: { name: istioCaNames.trustRoots } }],
    volumeMounts: [{ name: "root-ca", mountPath: istioCsrRootsDir, readOnly: true }],
  };
}

/**
 * Istio from its own Helm charts, with workload identity from cert-manager through istio-csr: the
 * CA and istio-csr exist before istiod starts; `base` owns Istio's CRDs (kept); istio-cni and
 * ztunnel run for the ambient data plane (or CNI sidecars) on GKE's paths; a mesh-wide
 * PeerAuthentication and Istio's own monitors.
 */
export class Istio extends pulumi.ComponentResource {
  readonly namespace = istioNamespace;
  readonly base: k8s.helm.v3.Release;
  readonly istiod: readonly k8s.helm.v3.Release[];
  /** The release that owns Istio's CRDs: objects of Istio's kinds wait for it. */
  readonly crds: k8s.helm.v3.Release;
  /** The istiod that injects app namespaces. */
  readonly injector: k8s.helm.v3.Release;
  /** ztunnel, with the ambient data plane: it carries every enrolled pod's traffic. */
  readonly ztunnel?: k8s.helm.v3.Release;
  /** What meshed pods wait for: the injecting istiod, and with ambient ztunnel (istio-cni comes before istiod). */
  readonly podPrerequisites: readonly pulumi.Resource[];

  constructor(name: string, args: IstioArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:addons:Istio", name, {}, opts);
    const charts = args.charts ?? standaloneCharts({ istio: "istioBase" });
    const base = { provider: args.provider, parent: this, charts };
    const ambient = args.dataplane === "ambient";
    const cni = usesCni(args);

    const nsChart = newChart("istio-system");
    new PlatformNamespace(nsChart, "namespace", {
      name: istioNamespace,
      // istio-cni and ztunnel are privileged node agents that run here; istiod alone, given its seccomp
      // profile, fits restricted.
      podSecurity: cni ? "privileged" : "restricted",
    });
    // Retained: it holds the release that owns Istio's CRDs.
    const ns = [...deployChart(`${name}-ns`, nsChart, { ...base, retainOnDelete: true }).values()];

    const trustManager = args.certManager.trustManager;
    if (!trustManager)
      throw new Error(
        "Istio needs trust-manager for its pinned roots: create CertManager with trustManager: true",
      );
    const caChart = newChart("istio-ca");
    new IstioCa(caChart, "ca", {
      namespace: istioNamespace,
      trustNamespace: args.certManager.namespace,
      previousTrustAnchor: args.previousTrustAnchor,
    });
    // The Bundle waits for trust-manager, which itself waits for cert-manager.
    const ca = [
      ...deployChart(`${name}-ca`, caChart, {
        ...base,
        dependsOn: [args.certManager.certManager, trustManager, ...ns],
      }).values(),
    ];

    const csr = pinnedRelease({
      ...base,
      chart: "istioCsr",
      name: istioCsrRelease,
      namespace: args.certManager.namespace,
      values: istioCsrValues(args),
      dependsOn: [args.certManager.certManager, ...ca],
    });

    const baseVersion = istioBaseVersion(args);
    this.base = pinnedRelease({
      ...base,
      chart: "istioBase",
      name: "istio-base",
      // Istio's CRDs at the newest istiod's version, upgraded before a canary istiod starts on them.
      ...(baseVersion !== pins.istioBase.version ? { version: baseVersion } : {}),
      from: revisionChartSource(args.revisions, istioBaseRevision(args), "base"),
      namespace: istioNamespace,
      values: istioBaseValues(args.defaultRevision),
      dependsOn: ns,
    });

    const cniRelease = cni
      ? pinnedRelease({
          ...base,
          chart: "istioCni",
          name: "istio-cni",
          namespace: istioNamespace,
          values: deepMerge(gke, imageHub, {
            // Set explicitly: the chart detects GKE only from a live cluster's version string, which a
            // rendered install does not have (istio-cni README: required with helm template).
            cniBinDir: "/home/kubernetes/bin",
            // GKE admits system-node-critical pods outside kube-system only with a ResourceQuota for them.
            resourceQuotas: { enabled: true },
            resources: containerResources((args.sizing ?? standaloneSizing).istioCni),
            ...(ambient ? { profile: "ambient" } : {}),
          }),
          dependsOn: [this.base],
        })
      : undefined;

    this.istiod = istiodReleases(args).map((r) =>
      pinnedRelease({
        ...base,
        chart: "istiod",
        name: r.release,
        version: r.version,
        from: r.from,
        namespace: istioNamespace,
        values: istiodValues(args, r.revision),
        // istio-csr must answer before istiod asks it for certificates; CRDs and the CNI come first.
        dependsOn: [this.base, csr, ...(cniRelease ? [cniRelease] : [])],
      }),
    );
    const injectorIndex = Math.max(
      0,
      (args.revisions ?? []).findIndex((r) => r.name === args.defaultRevision),
    );
    this.injector = this.istiod[injectorIndex];
    this.crds = this.base;

    if (ambient) {
      this.ztunnel = pinnedRelease({
        ...base,
        chart: "ztunnel",
        name: "ztunnel",
        namespace: istioNamespace,
        values: deepMerge(gke, {
          hub: istioFacts.imageHub,
          // Certificates for the pods on each node come from istio-csr too.
          caAddress: istioFacts.csrAddress,
          profile: "ambient",
          resources: containerResources((args.sizing ?? standaloneSizing).ztunnel),
          // Scraped by its own monitor (IstioMonitors), not a second time by the proxies'.
          ...(args.monitoring ? { podLabels: { ...istioScrapeOptOut } } : {}),
          // The first listed revision's istiod serves it (templates/daemonset.yaml at 1.30.3 derives its XDS
          // and CA addresses from `revision`): during a canary that is the running one, so ztunnel, which
          // every ambient pod of its node depends on, restarts once, when the old revision is dropped.
          ...(ztunnelRevision(args) ? { revision: ztunnelRevision(args) } : {}),
        }),
        dependsOn: [this.injector, ...(cniRelease ? [cniRelease] : [])],
      });
    }
    this.podPrerequisites = [this.injector, ...(this.ztunnel ? [this.ztunnel] : [])];

    const policy = newChart("istio-mtls");
    new MeshMtls(policy, "mtls", { namespace: istioNamespace, mode: args.mtls ?? "STRICT" });
    deployChart(`${name}-mtls`, policy, { ...base, dependsOn: [this.base, ...ns] });

    if (args.monitoring) {
      const monitors = newChart("istio-monitors");
      new IstioMonitors(monitors, "monitors", {
        namespace: istioNamespace,
        backend: args.monitoring.backend,
        selectorLabels: args.monitoring.selectorLabels,
        ztunnel: ambient,
        sidecars: !ambient || (args.sidecarIngress ?? false),
      });
      new CertificateAlerts(monitors, "identity-alerts", {
        ...args.monitoring,
        name: "istio-identity",
        namespace: istioNamespace,
        rules: istioIdentityAlertRules({
          namespace: istioNamespace,
          trustNamespace: args.certManager.namespace,
        }),
      });
      deployChart(`${name}-monitors`, monitors, {
        ...base,
        dependsOn: [...ns, ...(args.monitoring.crdOwner ? [args.monitoring.crdOwner] : [])],
      });
    }
    this.registerOutputs({});
  }
}
