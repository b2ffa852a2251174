/**
 * The upstream facts only the doctor reads off a live cluster: how GKE, Helm, Pulumi's Kubernetes
 * provider and cert-manager mark the objects they own, and how a Job's container can stop a classic
 * sidecar proxy. Each fact names the upstream file at the tag it was read. lib/versions/index.ts does not
 * re-export them, so `import "gke-mesh-platform"` does not load them (test/entryPoints.test.ts); the
 * doctor imports this file directly.
 */

/**
 * The marks of GKE's addon manager on the Gateway API CRDs it installs and reconciles: the annotation
 * (or label) `components.gke.io/component-name: gateway-api-crds`, and the label
 * `addonmanager.kubernetes.io/mode` (GoogleCloudPlatform/gke-gateway-api 4e177184
 * self-upgrades/upgrade-gateway-api-crds.sh, which writes both and refuses a CRD whose mode is not
 * `NewerRevision`; a GKE dump in traefik/traefik-helm-chart#1183; ../shared/reference/gke-gateway.md 2.3).
 */
export const gkeCrdMarks = {
  componentName: "components.gke.io/component-name",
  gatewayApiComponent: "gateway-api-crds",
  addonManagerMode: "addonmanager.kubernetes.io/mode",
} as const;

/** The controller GKE's own GatewayClasses name (gke-gateway.md 2.1: `kubectl get gatewayclass` on GKE). */
export const gkeGatewayController = "networking.gke.io/gateway";

/**
 * GKE's GatewayClasses that program Application Load Balancers, which reach pods through standalone
 * NEGs: every `gke-l7-*` class (gke-gateway.md 2.1); the safety invariant `consistent-neg` reads them the
 * same way (lib/safety/invariants.ts).
 */
export const gkeL7ClassPrefix = "gke-l7";

/**
 * Ingress classes GKE's own Ingress controller serves (kubernetes/ingress-gce acbcf5d6
 * pkg/annotations/ingress.go; gke-gateway.md 3.4); an Ingress with no class at all is served by it too,
 * as the safety invariant `consistent-neg` reads it (lib/safety/invariants.ts).
 */
export const gceIngressClasses = [
  "gce",
  "gce-internal",
  "gce-regional-external",
  "gce-multi-cluster",
] as const;

/** GKE's default connection draining of a backend without BackendConfig or GCPBackendPolicy: none (gke-gateway.md 2.4). */
export const gkeDefaultDrainingSeconds = 0;

/**
 * How Helm 3 marks what it owns, and what it keeps on uninstall (helm/helm v3.19.4): the ownership
 * label and annotations it checks before adopting an object (pkg/action/validate.go), the resource
 * policy that keeps an object on uninstall and upgrade (pkg/kube/resource_policy.go,
 * pkg/action/resource_policy.go), and its release storage: a Secret of type `helm.sh/release.v1` named
 * `sh.helm.release.v1.<release>.v<revision>`, labelled owner, name, status and version, whose `release`
 * key is the release as gzipped JSON in base64 (pkg/storage/driver/secrets.go, pkg/storage/driver/util.go,
 * pkg/storage/storage.go). CRDs in a chart's `crds/` folder are not in the release's manifest: Helm
 * installs them once and neither upgrades nor deletes them (pkg/action/install.go, pkg/action/uninstall.go).
 */
export const helmMarks = {
  managedByLabel: "app.kubernetes.io/managed-by",
  managedByValue: "Helm",
  releaseName: "meta.helm.sh/release-name",
  releaseNamespace: "meta.helm.sh/release-namespace",
  resourcePolicy: "helm.sh/resource-policy",
  keep: "keep",
  releaseSecretType: "helm.sh/release.v1",
  releaseKey: "release",
} as const;

/**
 * Pulumi's Kubernetes provider applies server-side with a field manager named `pulumi-kubernetes-<random>`
 * (`pulumi-kubernetes` with client-side apply), and labels `app.kubernetes.io/managed-by: pulumi` only what
 * it creates with client-side apply (pulumi/pulumi-kubernetes v4.25.0 provider/pkg/provider/provider.go
 * fieldManagerName and Check; provider/pkg/metadata/labels.go SetManagedByLabel).
 */
export const pulumiMarks = {
  fieldManagerPrefix: "pulumi-kubernetes",
  managedByValue: "pulumi",
} as const;

/**
 * cert-manager's cainjector fills a webhook configuration's `caBundle` from the `ca.crt` of the Secret
 * of the Certificate named by `inject-ca-from`, or of the Secret named by `inject-ca-from-secret`
 * (cert-manager/cert-manager v1.21.2 pkg/controller/cainjector/sources.go, pkg/apis/certmanager/v1/types.go).
 */
export const certManagerInjection = {
  fromCertificate: "cert-manager.io/inject-ca-from",
  fromSecret: "cert-manager.io/inject-ca-from-secret",
} as const;

/**
 * What a Job's container can run to stop a classic (non-native) sidecar proxy when it is done, so its
 * pod completes: `linkerd-await --shutdown` (or `-S`), a POST to Linkerd's proxy admin `/shutdown`
 * (disabled by default since linkerd2 PR #12705; linkerd/website linkerd.io/content/2-edge/tasks/graceful-shutdown.md),
 * or a POST to Istio's pilot-agent `/quitquitquit` (istio/istio 1.30.3 pilot/cmd/pilot-agent/status/server.go).
 * A command that names one is taken as the Job's quit hook.
 */
export const proxyQuitHooks: readonly RegExp[] = [
  /linkerd-await\b.*\s(-S|--shutdown)\b/,
  /localhost:4191\/shutdown\b/,
  /\/quitquitquit\b/,
];
