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
