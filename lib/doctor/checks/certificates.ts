import type { KubeObject } from "../../cluster";
import { certificateInventory, type ResourceView } from "../../safety";
import type { Check, CheckResult } from "../context";
import type { HelmRelease } from "../helm";
import { at, dateText, daysUntil, list, ref, str } from "../objects";
import { resources } from "../resources";
import { certificateText, certificatesIn, notAfter, notBefore } from "../x509";

/**
 * cert-manager's Certificates by their status (cert-manager/cert-manager v1.21.2
 * pkg/apis/certmanager/v1/types_certificate.go: `notAfter`, `renewalTime`, the `Ready` condition), and the
 * trust anchors and issuers of the certificate inventory (lib/safety/certificates.ts), read from their
 * Secrets' tls.crt: subject and expiry only.
 */

const condition = (o: KubeObject, type: string) =>
  list(at(o, "status", "conditions")).find((c) => c.type === type);

const date = (v: unknown): Date | undefined => {
  const s = str(v);
  const d = s ? new Date(s) : undefined;
  return d && !Number.isNaN(d.getTime()) ? d : undefined;
};

const inDays = (d: Date, now: Date) => {
  const days = daysUntil(d, now);
  return days < 0 ? `${-days} day${days === -1 ? "" : "s"} ago` : `in ${days} day${days === 1 ? "" : "s"}`;
};

/** The live objects and releases as the certificate inventory reads a program's resources. */
export function inventoryViews(
  objects: readonly KubeObject[],
  releases: readonly HelmRelease[],
): ResourceView[] {
  return [
    ...objects.map((o) => ({
      type: `kubernetes:${o.apiVersion}:${o.kind}`,
      name: `${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`,
      inputs: { apiVersion: o.apiVersion, kind: o.kind, metadata: o.metadata, spec: o.spec },
      protect: false,
    })),
    ...releases.map((r) => ({
      type: "kubernetes:helm.sh/v3:Release",
      name: `${r.namespace}/${r.name}`,
      inputs: { chart: r.chart, name: r.name, namespace: r.namespace, values: r.values },
      protect: false,
    })),
  ];
}

/** The inventory's trust anchors, CAs and issuers: the Secrets whose expiry breaks a whole mesh or webhook. */
const anchorPurpose = /trust anchor|\bCA\b|issuer|mounts it/i;

export const certificates: Check = async (ctx): Promise<CheckResult> => {
  const certs = await ctx.need(resources.certificates);
  const findings: CheckResult["findings"][number][] = [];
  const notes: NonNullable<CheckResult["notes"]>[number][] = [];
  const now = ctx.now;

  for (const c of certs) {
    const ns = c.metadata.namespace ?? "default";
    const secret = str(at(c, "spec", "secretName"));
    const objects = [ref(c), ...(secret ? [`Secret ${ns}/${secret}`] : [])];
    const expires = date(at(c, "status", "notAfter"));
    const renewal = date(at(c, "status", "renewalTime"));
    const ready = condition(c, "Ready");
    const why = ready
      ? `Ready is ${str(ready.status) ?? "unknown"}${ready.reason ? ` (${str(ready.reason)})` : ""}${ready.message ? `: ${str(ready.message)}` : ""}`
      : "it has no Ready condition: cert-manager has not processed it";
    const inspect = `kubectl describe certificate ${c.metadata.name} --namespace ${ns} (and its CertificateRequests, Orders and issuer); once the cause is fixed, cmctl renew ${c.metadata.name} --namespace ${ns}`;
    if (expires && expires.getTime() <= now.getTime()) {
      findings.push({
        severity: "error",
        code: "certificate-expired",
        objects,
        message: `${ref(c)} expired at ${dateText(expires)} (${inDays(expires, now)}); ${why}. Whatever serves or trusts Secret ${ns}/${secret ?? "?"} fails its TLS handshakes now.`,
        fix: inspect,
        evidence: "cert-manager v1.21.2 pkg/apis/certmanager/v1/types_certificate.go (status.notAfter)",
      });
      continue;
    }
    if (str(ready?.status) !== "True") {
      findings.push({
        severity: "warning",
        code: "certificate-not-ready",
        objects,
        message: `${ref(c)} is not Ready: ${why}${expires ? `; the certificate in its Secret expires ${inDays(expires, now)} (${dateText(expires)})` : "; it has no certificate yet"}.`,
        fix: inspect,
        evidence: "cert-manager v1.21.2 pkg/apis/certmanager/v1/types_certificate.go (the Ready condition)",
      });
      continue;
    }
    if (renewal && renewal.getTime() <= now.getTime()) {
      findings.push({
        severity: "warning",
        code: "certificate-renewal-overdue",
        objects,
        message: `${ref(c)} was due for renewal at ${dateText(renewal)} (${inDays(renewal, now)}) and has not been renewed; it expires ${inDays(expires ?? renewal, now)}${expires ? ` (${dateText(expires)})` : ""}. cert-manager is not renewing it.`,
        fix: `check cert-manager's controller is running (kubectl get pods --namespace cert-manager) and its log; ${inspect}`,
        evidence: "cert-manager v1.21.2 pkg/apis/certmanager/v1/types_certificate.go (status.renewalTime)",
      });
    }
  }

  // The trust anchors and issuers the inventory lists, from the live objects and Helm releases.
  const issuers = await ctx.optional(resources.issuers, "the trust anchors and issuers (Issuers)");
  const clusterIssuers = await ctx.optional(
    resources.clusterIssuers,
    "the trust anchors and issuers (ClusterIssuers)",
  );
  const bundles = await ctx.optional(resources.bundles, "the trust anchors (trust-manager Bundles)");
  const releases = (await ctx.helm("the trust anchors and issuers charts make or mount")) ?? [];
  const written = new Set(
    certs.map((c) => `${c.metadata.namespace ?? "default"}/${str(at(c, "spec", "secretName")) ?? ""}`),
  );
  const entries = certificateInventory(
    inventoryViews([...certs, ...issuers, ...clusterIssuers, ...bundles], releases),
  ).filter((e) => e.certificate.startsWith("Secret ") && anchorPurpose.test(e.purpose));
  const seen = new Set<string>();
  for (const e of entries) {
    const [ns, name] = e.certificate.slice("Secret ".length).split("/");
    if (!ns || !name || seen.has(`${ns}/${name}`)) continue;
    seen.add(`${ns}/${name}`);
    const objects = [e.certificate];
    const out = await ctx.secret(ns, name);
    if ("forbidden" in out) {
      ctx.unchecked(`${e.certificate} (${e.purpose}): no permission to get secrets`);
      continue;
    }
    if ("notFound" in out) {
      if (written.has(`${ns}/${name}`)) continue; // its Certificate's own finding says why
      findings.push({
        severity: "error",
        code: "ca-secret-missing",
        objects,
        message: `${e.certificate} (${e.purpose}) does not exist, and no Certificate writes it: what mounts or signs from it cannot start or issue.`,
        fix: `issue it with a cert-manager Certificate whose secretName is ${name} in namespace ${ns} (the platform's mesh identity does), or restore it`,
        evidence: e.evidence ?? "lib/safety/certificates.ts (the certificate inventory)",
      });
      continue;
    }
    const cert = certificatesIn(out.certificates.tlsCrt)[0];
    if (!cert) {
      findings.push({
        severity: "warning",
        code: "ca-unreadable",
        objects,
        message: `${e.certificate} (${e.purpose}) has no certificate in tls.crt that parses.`,
        fix: `kubectl get secret ${name} --namespace ${ns} -o jsonpath='{.data.tls\\.crt}' | base64 -d | openssl x509 -noout -subject -enddate`,
      });
      continue;
    }
    const expires = notAfter(cert);
    notes.push({
      objects,
      message: `${e.certificate} (${e.purpose}): ${certificateText(cert)} (${inDays(expires, now)})${e.renewer ? `; renewed by ${e.renewer}` : "; nothing renews it"}`,
    });
    if (expires.getTime() <= now.getTime()) {
      findings.push({
        severity: "error",
        code: "ca-expired",
        objects,
        message: `${e.certificate} (${e.purpose}) expired at ${dateText(expires)}: every certificate it signs or anchors fails verification.`,
        fix: written.has(`${ns}/${name}`)
          ? `renew its Certificate (cmctl renew), then restart what cached it`
          : `replace it with a certificate cert-manager renews (a Certificate writing ${ns}/${name}), then restart what mounts it`,
        evidence: e.evidence ?? "lib/safety/certificates.ts (the certificate inventory)",
      });
      continue;
    }
    const life = expires.getTime() - notBefore(cert).getTime();
    if (!written.has(`${ns}/${name}`) && expires.getTime() - now.getTime() < life / 3) {
      findings.push({
        severity: "warning",
        code: "ca-expiring",
        objects,
        message: `${e.certificate} (${e.purpose}) expires ${inDays(expires, now)} (${dateText(expires)}), within the last third of its life, and no Certificate on the cluster renews it.`,
        fix: `issue it with a cert-manager Certificate (secretName ${name}, namespace ${ns}) so it is renewed before it expires, then restart what mounts it`,
        evidence: e.evidence ?? "lib/safety/certificates.ts (the certificate inventory)",
      });
    }
  }
  return { findings, notes };
};
