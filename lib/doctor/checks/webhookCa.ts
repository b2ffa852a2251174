import type { KubeObject } from "../../cluster";
import { linkerdFacts } from "../../versions";
import type { Check, CheckResult } from "../context";
import { certManagerInjection } from "../../versions/doctorFacts";
import { annotationsOf, at, list, listText, ref, str } from "../objects";
import { resources } from "../resources";
import { certificateText, certificatesIn, nameText, notAfter, signedBy } from "../x509";

/**
 * The API server calls a webhook over TLS and trusts only the webhook's `caBundle`: where that bundle did
 * not sign the certificate the webhook's Secret serves, every call fails (failurePolicy Fail: the writes
 * it guards are refused). The serving Secret is the one cert-manager's cainjector reads
 * (`cert-manager.io/inject-ca-from`, `inject-ca-from-secret`: cert-manager v1.21.2
 * pkg/controller/cainjector/sources.go), or the one a chart mounts behind the webhook's Service
 * (Linkerd's webhooks, lib/versions/linkerd.ts `webhooks`). Only certificates are read and compared.
 */

/** Where a webhook's serving certificate lives, and how the doctor knows. */
interface ServingSecret {
  readonly namespace: string;
  readonly name: string;
  readonly how: string;
  /** cert-manager's cainjector writes the bundle from it. */
  readonly injected: boolean;
}

const knownWebhookSecrets = [...linkerdFacts.webhooks.controlPlane, ...linkerdFacts.webhooks.viz];

function servingSecret(
  configuration: KubeObject,
  webhook: Record<string, unknown>,
  certificates: readonly KubeObject[],
): ServingSecret | undefined {
  const a = annotationsOf(configuration);
  const fromCertificate = a[certManagerInjection.fromCertificate];
  if (fromCertificate?.includes("/")) {
    const [ns, name] = fromCertificate.split("/");
    const cert = certificates.find((c) => c.metadata.namespace === ns && c.metadata.name === name);
    const secret = str(at(cert, "spec", "secretName"));
    return secret
      ? {
          namespace: ns,
          name: secret,
          how: `${certManagerInjection.fromCertificate}: ${fromCertificate}`,
          injected: true,
        }
      : undefined;
  }
  const fromSecret = a[certManagerInjection.fromSecret];
  if (fromSecret?.includes("/")) {
    const [ns, name] = fromSecret.split("/");
    return { namespace: ns, name, how: `${certManagerInjection.fromSecret}: ${fromSecret}`, injected: true };
  }
  const service = at(webhook, "clientConfig", "service");
  const known = knownWebhookSecrets.find((k) => k.service === str(at(service, "name")));
  const ns = str(at(service, "namespace"));
  return known && ns
    ? {
        namespace: ns,
        name: known.secret,
        how: `the Secret the ${known.service} Service's pods serve, as lib/versions/linkerd.ts lists it`,
        injected: false,
      }
    : undefined;
}

export const webhookCa: Check = async (ctx): Promise<CheckResult> => {
  const configurations = [
    ...(await ctx.need(resources.validatingWebhooks)),
    ...(await ctx.need(resources.mutatingWebhooks)),
  ];
  const certificates = await ctx.optional(
    resources.certificates,
    "webhooks whose CA comes from a cert-manager Certificate",
  );
  const findings: CheckResult["findings"][number][] = [];
  const read = new Map<string, Awaited<ReturnType<typeof ctx.secret>>>();
  for (const configuration of configurations) {
    for (const webhook of list(configuration.webhooks)) {
      const source = servingSecret(configuration, webhook, certificates);
      if (!source) continue;
      const key = `${source.namespace}/${source.name}`;
      if (!read.has(key)) read.set(key, await ctx.secret(source.namespace, source.name));
      const out = read.get(key);
      const secretRef = `Secret ${key}`;
      const name = str(webhook.name) ?? "";
      const objects = [ref(configuration), secretRef];
      const failure = str(webhook.failurePolicy) ?? "Fail";
      const consequence =
        failure === "Ignore"
          ? "every call fails, and with failurePolicy Ignore the webhook silently does nothing"
          : "every call fails, and with failurePolicy Fail the API server refuses every request it guards";
      const fix = source.injected
        ? `cert-manager's cainjector writes the bundle from ${secretRef}: check it runs (kubectl get pods --namespace cert-manager -l app.kubernetes.io/component=cainjector) and its log`
        : `upgrade the release that made ${secretRef} and the bundle together (the chart writes both at template time), or issue the certificate with cert-manager (externalSecret with injectCaFrom) so cainjector keeps them matched`;
      if (!out || "forbidden" in out) {
        ctx.unchecked(`${ref(configuration)} webhook ${name} (${source.how}): no permission to get secrets`);
        continue;
      }
      if ("notFound" in out) {
        findings.push({
          severity: "error",
          code: "webhook-secret-missing",
          objects,
          message: `${ref(configuration)} webhook ${name} is served from ${secretRef} (${source.how}), which does not exist: the webhook's server cannot start TLS, so ${consequence}.`,
          fix,
        });
        continue;
      }
      const serving = certificatesIn(out.certificates.tlsCrt)[0];
      const bundle = certificatesIn(
        str(at(webhook, "clientConfig", "caBundle")) === undefined
          ? undefined
          : Buffer.from(str(at(webhook, "clientConfig", "caBundle")) ?? "", "base64").toString("utf8"),
      );
      if (!serving) {
        findings.push({
          severity: "error",
          code: "webhook-secret-empty",
          objects,
          message: `${ref(configuration)} webhook ${name} is served from ${secretRef} (${source.how}), which holds no certificate in tls.crt: ${consequence}.`,
          fix,
        });
        continue;
      }
      if (bundle.length === 0) {
        findings.push({
          severity: "error",
          code: "webhook-ca-missing",
          objects,
          message: `${ref(configuration)} webhook ${name} has no caBundle, so the API server cannot verify ${secretRef}'s certificate (${certificateText(serving)}): ${consequence}.`,
          fix,
          evidence: "admissionregistration.k8s.io/v1 WebhookClientConfig.caBundle",
        });
        continue;
      }
      if (!bundle.some((ca) => signedBy(serving, ca))) {
        findings.push({
          severity: "error",
          code: "webhook-ca-mismatch",
          objects,
          message:
            `${ref(configuration)} webhook ${name}'s caBundle (${listText(bundle.map(certificateText))}) did not sign the certificate ${secretRef} serves ` +
            `(${certificateText(serving)}, issued by ${nameText(serving.issuer)}; ${source.how}): the API server refuses the TLS handshake, so ${consequence}.`,
          fix,
          evidence:
            "admissionregistration.k8s.io/v1 WebhookClientConfig.caBundle: the API server verifies the webhook's certificate with it alone",
        });
        continue;
      }
      if (notAfter(serving).getTime() <= ctx.now.getTime()) {
        findings.push({
          severity: "error",
          code: "webhook-certificate-expired",
          objects,
          message: `${ref(configuration)} webhook ${name} serves an expired certificate from ${secretRef} (${certificateText(serving)}): ${consequence}.`,
          fix,
        });
      }
    }
  }
  return { findings };
};
