/**
 * Facts about the pinned Linkerd charts (charts.linkerdControlPlane, edge-26.8.3) that the platform's
 * own objects must match. They change with Linkerd versions, so they live beside the pin.
 */
export const linkerdFacts = {
  /**
   * The Gateway API versions Linkerd 2.20's line is tested with ("2.20: 1.2.1 - 1.5.1", linkerd/website
   * linkerd.io/content/2-edge/features/gateway-api.md); its policy controller reads HTTPRoutes and
   * GRPCRoutes of those versions.
   */
  gatewayApi: {
    minimum: "v1.2.1",
    maximum: "v1.5.1",
    without:
      "Linkerd's policy controller is not tested with it: routes and authorization on routes may not apply",
    source: "linkerd/website linkerd.io/content/2-edge/features/gateway-api.md",
  },
  /**
   * Admin (metrics) port names of the control-plane containers. Renamed from `admin-http` in
   * linkerd2 148fd1c16 (#14111, edge-25.6.3, 2.19+): recipes matching `admin-http` scrape nothing.
   */
  controlPlaneAdminPorts: ["dest-admin", "spval-admin", "policy-admin", "ident-admin", "injector-admin"],
  /** linkerd-viz's components' admin (metrics) port (viz/charts/linkerd-viz/templates/{metrics-api,tap,tap-injector,web}.yaml). */
  extensionAdminPort: "admin",
  /** The proxy's admin port and container (charts/partials/templates/_proxy.tpl). */
  proxyAdminPort: "linkerd-admin",
  /**
   * The admin port's number (linkerd2 edge-26.8.3 charts/linkerd-control-plane/values.yaml
   * `proxy.ports.admin`; charts/partials/templates/_proxy.tpl declares it as `linkerd-admin`).
   * NetworkPolicies name it by number: with the proxy a native sidecar, the named port is on an init
   * container, which implementations may not resolve (kubernetes/kubernetes#125285; Calico fixed it in
   * projectcalico/calico#8885).
   */
  proxyAdminPortNumber: 4191,
  proxyContainer: "linkerd-proxy",
  /** The injector makes the proxy a native sidecar unless told otherwise (linkerd-control-plane values.yaml proxy.nativeSidecar). */
  nativeSidecarDefault: true,
  /** ConfigMap the identity Deployment mounts without `optional` when identity.externalCA=true (templates/identity.yaml). */
  trustRootsConfigMap: "linkerd-identity-trust-roots",
  trustRootsKey: "ca-bundle.crt",
  /** kubernetes.io/tls Secret the chart reads with identity.issuer.scheme=kubernetes.io/tls. */
  issuerSecret: "linkerd-identity-issuer",
  /**
   * The API server's TLS endpoints the charts serve: admission webhooks and, in linkerd-viz, tap's
   * aggregated API. Each is a values key, the Service the API server calls and the kubernetes.io/tls
   * Secret its pods mount. Unless `<key>.externalSecret` is true the chart writes that Secret and the
   * CA bundle itself at template time (`genSelfSignedCert ... 365`), and only a chart upgrade renews
   * them; with `externalSecret` and `injectCaFrom: <namespace>/<Certificate>` the Secret comes from
   * cert-manager and cainjector writes the CA bundle (templates/proxy-injector-rbac.yaml,
   * templates/destination-rbac.yaml; viz/charts/linkerd-viz/templates/tap-rbac.yaml,
   * tap-injector-rbac.yaml; charts/partials/templates/_validate.tpl requires both keys together).
   */
  webhooks: {
    controlPlane: [
      { key: "proxyInjector", service: "linkerd-proxy-injector", secret: "linkerd-proxy-injector-k8s-tls" },
      { key: "profileValidator", service: "linkerd-sp-validator", secret: "linkerd-sp-validator-k8s-tls" },
      {
        key: "policyValidator",
        service: "linkerd-policy-validator",
        secret: "linkerd-policy-validator-k8s-tls",
      },
    ],
    viz: [
      { key: "tap", service: "tap", secret: "tap-k8s-tls" },
      { key: "tapInjector", service: "tap-injector", secret: "tap-injector-k8s-tls" },
    ],
  },
  /** Lifetime of a proxy's certificate, the chart's identity.issuer.issuanceLifetime default (values.yaml). */
  proxyCertificateLifetime: "24h0m0s",
  /**
   * Linkerd's Grafana dashboards on grafana.com, with the revisions Linkerd's own Grafana install
   * pins (linkerd/linkerd2 grafana/values.yaml). Not "kubernetes" (15479): it filters cAdvisor's series
   * by `kubernetes_io_hostname`, a node label only viz's own Prometheus maps (its kubernetes-nodes-cadvisor
   * job); kube-prometheus-stack's kubelet monitor does not, so every panel would stay empty. Its own
   * Kubernetes dashboards cover the same.
   */
  grafanaDashboards: {
    "linkerd-top-line": { gnetId: 15474, revision: 4 },
    "linkerd-health": { gnetId: 15486, revision: 3 },
    "linkerd-namespace": { gnetId: 15478, revision: 3 },
    "linkerd-deployment": { gnetId: 15475, revision: 6 },
    "linkerd-pod": { gnetId: 15477, revision: 3 },
    "linkerd-service": { gnetId: 15480, revision: 3 },
    "linkerd-route": { gnetId: 15481, revision: 3 },
    "linkerd-authority": { gnetId: 15482, revision: 3 },
    "linkerd-job": { gnetId: 15487, revision: 3 },
  },
  /** The label that marks the control-plane namespace (templates/namespace.yaml), which the trust roots Bundle targets. */
  controlPlaneNamespaceLabel: "linkerd.io/is-control-plane",
  /**
   * Storage versions of Linkerd's policy kinds in linkerd-crds edge-26.8.3
   * (charts/linkerd-crds/templates/policy/*.yaml): Server v1beta3, the rest v1alpha1.
   */
  policyApiVersions: {
    Server: "policy.linkerd.io/v1beta3",
    AuthorizationPolicy: "policy.linkerd.io/v1alpha1",
    MeshTLSAuthentication: "policy.linkerd.io/v1alpha1",
    NetworkAuthentication: "policy.linkerd.io/v1alpha1",
  },
  /** Pod or namespace annotation with the inbound policy where no Server applies (reference/authorization-policy.md). */
  defaultInboundPolicyAnnotation: "config.linkerd.io/default-inbound-policy",
  /**
   * Retries are HTTPRoute annotations; the Gateway API's `retry` field is experimental-channel only
   * (linkerd/website 2-edge/reference/retries.md; policy-controller outbound index parses them).
   */
  retryAnnotations: {
    on: "retry.linkerd.io/http",
    limit: "retry.linkerd.io/limit",
    timeout: "retry.linkerd.io/timeout",
  },
  /** Paths the proxy's admin server answers probes and scrapes on (linkerd2-proxy admin server). */
  proxyAdminPaths: { probes: ["/live", "/ready"], metrics: "/metrics" },
  /**
   * The proxy's inbound port, by its container port name (4143, charts/partials/templates/_proxy.tpl).
   * Meshed clients connect to it, not to the app's port: the chart's `proxy.outboundTransportMode:
   * transport-header` (charts/linkerd-control-plane/values.yaml) makes the destination controller hint
   * every non-admin port of a meshed pod as opaque transport to this port
   * (controller/api/destination/endpoint_translator.go createWeightedAddr; linkerd/website
   * 2-edge/common-errors/network-policy.md: a NetworkPolicy that blocks it blocks all meshed traffic).
   */
  proxyInboundPort: "linkerd-proxy",
  /**
   * The inbound port's number (linkerd2 edge-26.8.3 charts/linkerd-control-plane/values.yaml
   * `proxy.ports.inbound`; _proxy.tpl declares it as `linkerd-proxy`), which NetworkPolicies use for the
   * reason proxyAdminPortNumber gives.
   */
  proxyInboundPortNumber: 4143,
  /**
   * The proxy's tap (control) port, which linkerd-viz's tap server dials on every meshed pod
   * (`proxy.ports.control`, values.yaml; viz/tap/api/main.go `-tap-port` 4190). The pod declares no
   * container port for it, so it is named by number.
   */
  proxyTapPort: 4190,
  /** linkerd-viz's tap pods (viz/charts/linkerd-viz/templates/tap.yaml). */
  vizTapPodLabels: { "linkerd.io/extension": "viz", component: "tap" },
} as const;
