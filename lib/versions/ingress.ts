/**
 * The ingress controllers' mesh identities, which authorization rules let through to exposed apps. Both
 * charts name their service account after the release's full name, and with a release named like the
 * chart that is the release name (traefik 41.3.0 `serviceAccount.name: ""`, templates/_helpers.tpl;
 * ingress-nginx 4.15.1 `serviceAccount.create`, templates/_helpers.tpl).
 */
export const ingressControllerIdentities = {
  traefik: { namespace: "traefik", serviceAccount: "traefik" },
  "ingress-nginx": { namespace: "ingress-nginx", serviceAccount: "ingress-nginx" },
} as const;

/**
 * The ingress controllers' pods, in their namespaces (`ingressControllerIdentities`): what a
 * NetworkPolicy selects to let an ingress controller reach the apps it exposes (traefik 41.3.0
 * templates/_helpers.tpl `traefik.labelselector`; ingress-nginx 4.15.1 templates/_helpers.tpl
 * `ingress-nginx.selectorLabels` and templates/controller-deployment.yaml's component).
 */
export const ingressControllerPods = {
  traefik: { "app.kubernetes.io/name": "traefik" },
  "ingress-nginx": { "app.kubernetes.io/name": "ingress-nginx", "app.kubernetes.io/component": "controller" },
} as const;

/**
 * The port cert-manager's ACME HTTP-01 solver pods serve the challenge on, which the ingress controller
 * forwards Let's Encrypt's request to (cert-manager v1.21.1 pkg/issuer/acme/http/http.go
 * `acmeSolverListenPort`; its Service targets it, pkg/issuer/acme/http/service.go).
 */
export const acmeHttp01SolverPort = 8089;

/**
 * An ACME HTTP-01 solver pod as its namespace's quota counts it: cert-manager's defaults, which the
 * platform keeps (cert-manager v1.21.2 internal/apis/config/controller/v1alpha1/defaults.go
 * `defaultACMEHTTP01SolverResource*`); one runs per pending challenge, in the Ingress's namespace, outside
 * every mesh (each mesh's `acmeSolverPod`).
 */
export const acmeSolverPodShape = { cpuRequestMillis: 10, memoryRequestMi: 64, memoryLimitMi: 64 } as const;
