import type { ChartName } from "./charts";
import { linkerdFacts } from "./linkerd";

/**
 * What each pinned chart, and the controllers it runs, does with TLS certificates, given a release's
 * final values: the certificates it makes (and what renews each), the TLS Secrets its pods mount that
 * something else must write, and the cert-manager issuers it renders. Read from each chart's templates
 * and its controllers' code at the pinned version; each fact names its source. The certificate
 * inventory (lib/safety/certificates.ts) joins these with the program's own objects.
 */

/** A cert-manager issuer reference, with the namespace an Issuer lives in. */
export interface IssuerReference {
  readonly name: string;
  readonly kind: "Issuer" | "ClusterIssuer";
  /** The Issuer's namespace; ignored for a ClusterIssuer. */
  readonly namespace: string;
}

/** A certificate a chart or one of its controllers makes. */
export interface MadeCertificate {
  /** Where it is held: `Secret <namespace>/<name>`, `in memory: ...`, or a CA bundle. */
  readonly certificate: string;
  readonly purpose: string;
  /** Its lifetime, as a Go duration or in words. */
  readonly lifetime: string;
  /** How long before expiry it is renewed. @default not renewed */
  readonly renewBefore?: string;
  /** The Secret it is written to, where other issuers may sign from it. */
  readonly secret?: { readonly namespace: string; readonly name: string };
  /** The cert-manager issuer that signs it: its chain comes from the program's and charts' issuers. */
  readonly issuerRef?: IssuerReference;
  /** Who signs it, where cert-manager does not. */
  readonly signedBy?: string;
  /** What renews it; absent where nothing does before it expires. */
  readonly renewer?: string;
  /** The upstream file at the pinned tag this fact comes from. */
  readonly evidence: string;
}

/** A TLS Secret a chart's pods mount that the chart does not write: a cert-manager Certificate must. */
export interface MountedSecret {
  readonly namespace: string;
  readonly name: string;
  readonly purpose: string;
  readonly evidence: string;
}

/** A cert-manager issuer a chart renders. */
export interface ChartIssuer extends IssuerReference {
  readonly selfSigned?: boolean;
  /** The Secret a CA issuer signs from. */
  readonly caSecret?: string;
}

export interface ChartCertificates {
  readonly made: readonly MadeCertificate[];
  readonly mounted: readonly MountedSecret[];
  readonly issuers: readonly ChartIssuer[];
}

/** A release as the facts read it: its name, namespace and final values. */
export interface ReleaseView {
  readonly name: string;
  readonly namespace: string;
  readonly values: Readonly<Record<string, unknown>>;
}

const none: ChartCertificates = { made: [], mounted: [], issuers: [] };

/**
 * The chain a chart's cert-manager mode makes for its admission webhook (kube-prometheus-stack's and
 * ingress-nginx's templates write the same one): a self-signed Issuer, a CA Certificate `<base>-root-cert`
 * from it (`<rootKey>.duration`, five years by default) and an Issuer `<base>-root-issuer` signing with it.
 */
function webhookCaChain(
  r: ReleaseView,
  base: string,
  caPurpose: string,
  rootKey: string,
  evidence: string,
): { readonly root: MadeCertificate; readonly issuers: ChartIssuer[] } {
  const root = `${base}-root-cert`;
  return {
    root: {
      certificate: `Secret ${r.namespace}/${root}`,
      purpose: caPurpose,
      lifetime: value(r.values, `${rootKey}.duration`, "43800h0m0s"),
      renewBefore: certManagerDefaults.renewBefore,
      secret: { namespace: r.namespace, name: root },
      issuerRef: { name: `${base}-self-signed-issuer`, kind: "Issuer", namespace: r.namespace },
      renewer: "cert-manager",
      evidence,
    },
    issuers: [
      { name: `${base}-self-signed-issuer`, kind: "Issuer", namespace: r.namespace, selfSigned: true },
      { name: `${base}-root-issuer`, kind: "Issuer", namespace: r.namespace, caSecret: root },
    ],
  };
}

/** A Go duration (`8760h`, `8760h0m0s`, `30m`) in seconds, or undefined for anything else. */
export function goDurationSeconds(text: string): number | undefined {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(text);
  if (!m || text === "") return undefined;
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

/** A value at a dotted path, or the chart's default where the release leaves it unset. */
function value<T>(values: Readonly<Record<string, unknown>>, path: string, fallback: T): T {
  let cur: unknown = values;
  for (const p of path.split(".")) {
    cur = cur !== null && typeof cur === "object" ? (cur as Record<string, unknown>)[p] : undefined;
  }
  return cur === undefined || cur === null || cur === "" ? fallback : (cur as T);
}

/** Helm's usual fullname: the release name when it contains the chart's name, else `<release>-<chart>`. */
function fullname(release: string, chart: string): string {
  return release.includes(chart) ? release : `${release}-${chart}`;
}

/** cert-manager's defaults for a Certificate without duration or renewBefore (pkg/apis/certmanager/v1/const.go, pkg/util/pki/renewaltime.go at v1.21.2). */
export const certManagerDefaults = {
  duration: "2160h0m0s",
  renewBefore: "a third of its lifetime",
} as const;

const linkerdTag = "linkerd/linkerd2 edge-26.8.3";

/** Linkerd's webhook certificates, from the chart (template time) or from a Certificate (externalSecret). */
function linkerdWebhooks(
  r: ReleaseView,
  webhooks: readonly { key: string; service: string; secret: string }[],
  evidence: string,
): ChartCertificates {
  const made: MadeCertificate[] = [];
  const mounted: MountedSecret[] = [];
  for (const w of webhooks) {
    const purpose = `${w.service} webhook's serving certificate`;
    if (value(r.values, `${w.key}.externalSecret`, false)) {
      mounted.push({ namespace: r.namespace, name: w.secret, purpose, evidence });
      if (
        !value(r.values, `${w.key}.injectCaFrom`, "") &&
        !value(r.values, `${w.key}.injectCaFromSecret`, "")
      ) {
        made.push({
          certificate: `CA bundle of ${w.service}`,
          purpose: `the CA the API server trusts to call ${w.service}`,
          lifetime: "that of the given caBundle",
          signedBy: `${w.key}.caBundle, a chart value`,
          evidence,
        });
      }
      continue;
    }
    made.push({
      certificate: `Secret ${r.namespace}/${w.secret}`,
      purpose,
      lifetime: "8760h0m0s",
      signedBy: "itself, at template time (genSelfSignedCert)",
      // Nothing renews it: only a chart upgrade generates a new one.
      evidence,
    });
  }
  return { made, mounted, issuers: [] };
}

/** Facts per pinned chart. A chart absent here makes, mounts and renders no certificate. */
const facts: Partial<Record<ChartName, (r: ReleaseView) => ChartCertificates>> = {
  certManager: (r) => ({
    made: [
      {
        certificate: `Secret ${r.namespace}/${fullname(r.name, "cert-manager")}-webhook-ca`,
        purpose: "cert-manager webhook's serving CA (cainjector writes it into the webhook configurations)",
        lifetime: "8760h0m0s",
        renewBefore: "a third of its lifetime",
        signedBy: "itself (cert-manager-webhook's dynamic serving CA)",
        renewer: "cert-manager-webhook, at two thirds of the CA's life",
        evidence:
          "cert-manager/cert-manager v1.21.2 pkg/server/tls/authority/authority.go; deploy/charts/cert-manager/templates/webhook-deployment.yaml (--dynamic-serving-ca-secret-name)",
      },
    ],
    mounted: [],
    issuers: [],
  }),

  trustManager: (r) => {
    const name = value(r.values, "nameOverride", "trust-manager");
    const evidence =
      "cert-manager/trust-manager v0.24.0 deploy/charts/trust-manager/templates/certificate.yaml";
    if (value(r.values, "app.webhook.tls.helmCert.enabled", false)) {
      return {
        made: [
          {
            certificate: `Secret ${r.namespace}/${name}-tls`,
            purpose: "trust-manager webhook's serving certificate",
            lifetime: "87600h0m0s",
            signedBy: "a CA generated at template time (genCA), not kept",
            evidence: "cert-manager/trust-manager v0.24.0 deploy/charts/trust-manager/templates/webhook.yaml",
          },
        ],
        mounted: [],
        issuers: [],
      };
    }
    return {
      made: [
        {
          certificate: `Secret ${r.namespace}/${name}-tls`,
          purpose: "trust-manager webhook's serving certificate",
          lifetime: value(r.values, "app.webhook.tls.certificate.duration", certManagerDefaults.duration),
          renewBefore: certManagerDefaults.renewBefore,
          secret: { namespace: r.namespace, name: `${name}-tls` },
          issuerRef: { name, kind: "Issuer", namespace: r.namespace },
          renewer: "cert-manager",
          evidence,
        },
      ],
      mounted: [],
      issuers: [{ name, kind: "Issuer", namespace: r.namespace, selfSigned: true }],
    };
  },

  istioCsr: (r) => {
    const evidence = "cert-manager/istio-csr v0.17.0";
    const issuerRef: IssuerReference = {
      name: value(r.values, "app.certmanager.issuer.name", "istio-ca"),
      kind: value(r.values, "app.certmanager.issuer.kind", "Issuer"),
      namespace: value(r.values, "app.certmanager.namespace", "istio-system"),
    };
    const istioNamespace = value(r.values, "app.istio.namespace", "istio-system");
    const rootCAFile = value<string>(r.values, "app.tls.rootCAFile", "");
    const made: MadeCertificate[] = [
      {
        certificate: "in memory: istio-csr's serving certificate",
        purpose: "the gRPC endpoint istiod, proxies and ztunnel ask for certificates",
        lifetime: value(r.values, "app.tls.certificateDuration", "1h"),
        renewBefore: "a third of its lifetime",
        issuerRef,
        renewer: "istio-csr, at two thirds of its life",
        evidence: `${evidence} pkg/tls/tls.go`,
      },
      {
        certificate: "in memory: workload certificates (sidecars, gateways, ztunnel)",
        purpose: "mesh identity (SPIFFE) of every workload",
        lifetime: value(r.values, "app.server.maxCertificateDuration", "1h"),
        renewBefore: "half of its lifetime",
        issuerRef,
        renewer: "each proxy's istio-agent (or ztunnel), before expiry",
        evidence: `${evidence} pkg/server/server.go; istio/istio 1.30.3 pilot/cmd/pilot-agent/options/options.go (SECRET_GRACE_PERIOD_RATIO 0.5)`,
      },
      {
        certificate: "ConfigMap istio-ca-root-cert, in every namespace",
        purpose: "the mesh's roots, which proxies and istiod trust",
        lifetime: "that of the roots",
        signedBy: rootCAFile
          ? `the roots pinned in ${rootCAFile} (app.tls.rootCAFile)`
          : "whatever CA the issuer answers with (no app.tls.rootCAFile)",
        renewer: rootCAFile
          ? "istio-csr, whenever the pinned file changes"
          : "istio-csr, from each issuer answer",
        evidence: `${evidence} pkg/controller/configmap.go, pkg/tls/rootca/rootca.go`,
      },
    ];
    if (String(value(r.values, "app.tls.istiodCertificateEnable", true)) !== "false") {
      made.push({
        certificate: `Secret ${istioNamespace}/istiod-tls`,
        purpose: "istiod's serving certificate (xDS, injection and validation webhooks)",
        lifetime: value(r.values, "app.tls.istiodCertificateDuration", "1h"),
        renewBefore: value(r.values, "app.tls.istiodCertificateRenewBefore", "30m"),
        issuerRef,
        renewer:
          String(value(r.values, "app.tls.istiodCertificateEnable", true)) === "dynamic"
            ? "istio-csr's Certificate, by cert-manager"
            : "cert-manager (the chart's Certificate istiod)",
        evidence: `${evidence} deploy/charts/istio-csr/templates/certificate.yaml`,
      });
    }
    return { made, mounted: [], issuers: [] };
  },

  istiod: (r) => ({
    made: [
      {
        certificate: `CA bundle of istiod's webhooks (release ${r.name})`,
        purpose: "the CA the API server trusts to call istiod's injection and validation webhooks",
        lifetime: "that of the mesh's roots",
        signedBy: "the mesh's roots, which istiod reads from istio-ca-root-cert",
        renewer: "istiod, which patches the bundle whenever its roots change",
        evidence:
          "istio/istio 1.30.3 pkg/webhooks/webhookpatch.go; pilot/pkg/bootstrap/server.go (hasCustomTLSCerts)",
      },
      ...(value<string>(r.values, "env.ENABLE_CA_SERVER", "true") === "false"
        ? []
        : [
            {
              certificate: `Secret ${r.namespace}/istio-ca-secret`,
              purpose: "istiod's own self-signed mesh CA",
              lifetime: "87600h0m0s",
              signedBy: "itself (istiod)",
              renewer: "istiod's self-signed CA rotator",
              evidence: "istio/istio 1.30.3 security/pkg/pki/ca/selfsignedcarootcertrotator.go",
            },
          ]),
    ],
    mounted: [],
    issuers: [],
  }),

  istioBase: () => ({
    made: [
      {
        certificate: "CA bundle of ValidatingWebhookConfiguration istiod-default-validator",
        purpose: "the CA the API server trusts to validate Istio's objects",
        lifetime: "that of the mesh's roots",
        signedBy: "the mesh's roots",
        renewer: "istiod, which patches the bundle",
        evidence:
          "istio/istio 1.30.3 manifests/charts/base/templates/defaultrevision-validatingwebhookconfiguration.yaml; pkg/webhooks/webhookpatch.go",
      },
    ],
    mounted: [],
    issuers: [],
  }),

  linkerdControlPlane: (r) => {
    const webhooks = linkerdWebhooks(
      r,
      linkerdFacts.webhooks.controlPlane,
      `${linkerdTag} charts/linkerd-control-plane/templates/proxy-injector-rbac.yaml, destination-rbac.yaml`,
    );
    const made = [...webhooks.made];
    const mounted = [...webhooks.mounted];
    const identityEvidence = `${linkerdTag} charts/linkerd-control-plane/templates/identity.yaml`;
    if (value<string>(r.values, "identity.issuer.scheme", "linkerd.io/tls") === "kubernetes.io/tls") {
      mounted.push({
        namespace: r.namespace,
        name: linkerdFacts.issuerSecret,
        purpose: "Linkerd's identity issuer, which signs every proxy's certificate",
        evidence: identityEvidence,
      });
    } else {
      made.push({
        certificate: `Secret ${r.namespace}/${linkerdFacts.issuerSecret}`,
        purpose: "Linkerd's identity issuer, from the chart's identity.issuer.tls values",
        lifetime: "that of the given certificate",
        signedBy: "the trust anchor given in identityTrustAnchorsPEM",
        evidence: identityEvidence,
      });
    }
    if (!value(r.values, "identity.externalCA", false)) {
      made.push({
        certificate: `ConfigMap ${r.namespace}/${linkerdFacts.trustRootsConfigMap}`,
        purpose: "Linkerd's trust anchors, from the chart's identityTrustAnchorsPEM value",
        lifetime: "that of the given anchors",
        signedBy: "identityTrustAnchorsPEM, a chart value",
        evidence: `${linkerdTag} charts/linkerd-control-plane/templates/config.yaml`,
      });
    }
    made.push({
      certificate: "in memory: every proxy's certificate",
      purpose: "mesh identity (mTLS) of every meshed pod",
      lifetime: value(r.values, "identity.issuer.issuanceLifetime", linkerdFacts.proxyCertificateLifetime),
      signedBy: `Linkerd's identity controller, from Secret ${r.namespace}/${linkerdFacts.issuerSecret}`,
      renewer: "each proxy, which asks the identity controller again before expiry",
      evidence: `${linkerdTag} pkg/identity/service.go; charts/linkerd-control-plane/values.yaml (identity.issuer.issuanceLifetime)`,
    });
    return { made, mounted, issuers: [] };
  },

  linkerdViz: (r) =>
    linkerdWebhooks(
      r,
      linkerdFacts.webhooks.viz,
      `${linkerdTag} viz/charts/linkerd-viz/templates/tap-rbac.yaml, tap-injector-rbac.yaml`,
    ),

  kubePrometheusStack: (r) => {
    if (!value(r.values, "prometheusOperator.admissionWebhooks.enabled", true)) return none;
    const base = fullname(r.name, "kube-prometheus-stack");
    const admission = `${base}-admission`;
    const purpose = "the Prometheus Operator's admission webhook serving certificate";
    if (value(r.values, "prometheusOperator.admissionWebhooks.certManager.enabled", false)) {
      // The chart's own issuers and Certificates, unless certManager.issuerRef names another issuer.
      const evidence =
        "prometheus-community/helm-charts kube-prometheus-stack-88.5.3 templates/prometheus-operator/certmanager.yaml";
      const issuerRef = value<{ name?: string; kind?: string } | undefined>(
        r.values,
        "prometheusOperator.admissionWebhooks.certManager.issuerRef",
        undefined,
      );
      const admissionCertificate: MadeCertificate = {
        certificate: `Secret ${r.namespace}/${admission}`,
        purpose,
        lifetime: value(
          r.values,
          "prometheusOperator.admissionWebhooks.certManager.admissionCert.duration",
          "8760h0m0s",
        ),
        renewBefore: certManagerDefaults.renewBefore,
        issuerRef: issuerRef?.name
          ? {
              name: issuerRef.name,
              kind: issuerRef.kind === "ClusterIssuer" ? "ClusterIssuer" : "Issuer",
              namespace: r.namespace,
            }
          : { name: `${base}-root-issuer`, kind: "Issuer", namespace: r.namespace },
        renewer: "cert-manager",
        evidence,
      };
      if (issuerRef?.name) return { made: [admissionCertificate], mounted: [], issuers: [] };
      const chain = webhookCaChain(
        r,
        base,
        "the Prometheus Operator's admission webhook CA",
        "prometheusOperator.admissionWebhooks.certManager.rootCert",
        evidence,
      );
      return { made: [chain.root, admissionCertificate], mounted: [], issuers: chain.issuers };
    }
    return {
      made: [
        {
          certificate: `Secret ${r.namespace}/${admission}`,
          purpose: `${purpose} and CA`,
          lifetime: "100 years",
          signedBy: "a CA kube-webhook-certgen generates with it",
          renewer: "not needed, valid 100 years (the chart's certgen Job creates it again if it is deleted)",
          evidence:
            "prometheus-community/helm-charts kube-prometheus-stack-88.5.3 templates/prometheus-operator/admission-webhooks/job-patch/job-createSecret.yaml; jkroepke/kube-webhook-certgen pkg/certs/certs.go",
        },
      ],
      mounted: [],
      issuers: [],
    };
  },

  ingressNginx: (r) => {
    if (!value(r.values, "controller.admissionWebhooks.enabled", true)) return none;
    const base = fullname(r.name, "ingress-nginx");
    const evidence =
      "kubernetes/ingress-nginx helm-chart-4.15.1 charts/ingress-nginx/templates/admission-webhooks/cert-manager.yaml";
    if (!value(r.values, "controller.admissionWebhooks.certManager.enabled", false)) {
      return {
        made: [
          {
            certificate: `Secret ${r.namespace}/${base}-admission`,
            purpose: "ingress-nginx admission webhook's serving certificate",
            lifetime: "set by kube-webhook-certgen",
            signedBy: "a CA kube-webhook-certgen generates with it",
            renewer: "the chart's certgen Job, at every install and upgrade",
            evidence:
              "kubernetes/ingress-nginx helm-chart-4.15.1 charts/ingress-nginx/templates/admission-webhooks/job-patch/job-createSecret.yaml",
          },
        ],
        mounted: [],
        issuers: [],
      };
    }
    const chain = webhookCaChain(
      r,
      base,
      "ingress-nginx admission webhook's CA",
      "controller.admissionWebhooks.certManager.rootCert",
      evidence,
    );
    return {
      made: [
        chain.root,
        {
          certificate: `Secret ${r.namespace}/${base}-admission`,
          purpose: "ingress-nginx admission webhook's serving certificate",
          lifetime: value(
            r.values,
            "controller.admissionWebhooks.certManager.admissionCert.duration",
            "8760h0m0s",
          ),
          renewBefore: certManagerDefaults.renewBefore,
          issuerRef: { name: `${base}-root-issuer`, kind: "Issuer", namespace: r.namespace },
          renewer: "cert-manager",
          evidence,
        },
      ],
      mounted: [],
      issuers: chain.issuers,
    };
  },
};

/** What a release of a pinned chart does with certificates. */
export function chartCertificates(chart: ChartName, release: ReleaseView): ChartCertificates {
  return facts[chart]?.(release) ?? none;
}
