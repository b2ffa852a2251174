import { Construct } from "constructs";
import { Certificate, Issuer, waitForAnnotation } from "../../manifests";

/** One TLS endpoint the API server calls: an admission webhook or an aggregated API. */
export interface LinkerdWebhook {
  /** The chart's values key (`proxyInjector`, `tap`). */
  readonly key: string;
  /** The Service the API server calls, in the webhook's namespace. */
  readonly service: string;
  /** The kubernetes.io/tls Secret the webhook's pods mount. */
  readonly secret: string;
}

/** Names of the per-namespace CA that signs the webhooks' serving certificates. */
export const webhookCaNames = {
  selfSigned: "linkerd-webhook-selfsigned",
  ca: "linkerd-webhook-ca",
  issuer: "linkerd-webhook-issuer",
} as const;

export interface LinkerdWebhookCertificatesProps {
  /** The namespace the webhooks run in (`linkerd`, `linkerd-viz`). */
  readonly namespace: string;
  readonly webhooks: readonly LinkerdWebhook[];
}

/**
 * Serving certificates for Linkerd's webhooks, issued and renewed by cert-manager, as Linkerd documents
 * (2-edge/tasks/automatically-rotating-webhook-tls-credentials.md): a CA of the namespace's own (its
 * chain is separate from mesh identity) and one Certificate per webhook, written to the Secret the
 * chart's pods mount. The webhooks reload their certificate from disk (controller/webhook/server.go,
 * viz/tap/api/server.go: FsCredsWatcher; the policy validator's kubert server reads it per connection),
 * and cainjector writes the CA into the webhook configuration (`injectCaFrom`), so a renewal needs no
 * restart and no chart upgrade.
 */
export class LinkerdWebhookCertificates extends Construct {
  constructor(scope: Construct, id: string, props: LinkerdWebhookCertificatesProps) {
    super(scope, id);
    const ns = props.namespace;
    new Issuer(this, "self-signed", {
      metadata: { name: webhookCaNames.selfSigned, namespace: ns },
      spec: { selfSigned: {} },
    });
    new Certificate(this, "ca", {
      metadata: { name: webhookCaNames.ca, namespace: ns },
      spec: {
        secretName: webhookCaNames.ca,
        issuerRef: { name: webhookCaNames.selfSigned, kind: "Issuer", group: "cert-manager.io" },
        isCA: true,
        commonName: `webhook.${ns}.cluster.local`,
        // Ten years, renewed a year early with the same key: serving certificates issued before a
        // renewal keep verifying against the CA bundle the API server holds.
        duration: "87600h0m0s",
        renewBefore: "8760h0m0s",
        privateKey: { algorithm: "ECDSA", size: 256, rotationPolicy: "Never" },
      },
    });
    new Issuer(this, "issuer", {
      metadata: { name: webhookCaNames.issuer, namespace: ns },
      spec: { ca: { secretName: webhookCaNames.ca } },
    });
    for (const w of props.webhooks) {
      const host = `${w.service}.${ns}.svc`;
      new Certificate(this, w.key, {
        metadata: {
          name: w.service,
          namespace: ns,
          // The webhook's pods mount the Secret without `optional`: the release waits until it is written.
          annotations: { [waitForAnnotation]: "condition=Ready" },
        },
        spec: {
          secretName: w.secret,
          issuerRef: { name: webhookCaNames.issuer, kind: "Issuer", group: "cert-manager.io" },
          // The API server calls the Service by this name (the chart's genSelfSignedCert host).
          commonName: host,
          dnsNames: [host],
          // cert-manager's default lifetime, renewed a month early: a renewal that fails has weeks of
          // expiry alerts before the API server would refuse the webhook.
          duration: "2160h0m0s",
          renewBefore: "720h0m0s",
          privateKey: { algorithm: "ECDSA", size: 256, rotationPolicy: "Always" },
          usages: ["server auth"],
        },
      });
    }
  }
}

/**
 * Chart values that make each webhook use the Secret cert-manager writes and have cainjector write its
 * CA bundle from that Certificate (`<namespace>/<Certificate>`), instead of a template-time certificate.
 */
export function webhookCertificateValues(
  namespace: string,
  webhooks: readonly LinkerdWebhook[],
): Record<string, { externalSecret: true; injectCaFrom: string }> {
  return Object.fromEntries(
    webhooks.map((w) => [w.key, { externalSecret: true, injectCaFrom: `${namespace}/${w.service}` }]),
  );
}
