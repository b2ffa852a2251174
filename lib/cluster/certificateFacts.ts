import {
  certManagerDefaults,
  chartCertificates,
  goDurationSeconds,
  charts,
  type ChartCertificates,
  type ChartName,
} from "../versions";
import type { CrossingFinding } from "./crossings";
import { nameOf, type KubeObject } from "./objects";
import type { ObjectSet, TemplatedRelease } from "./objectSet";
import { list, obj, str } from "../json";

/**
 * The certificate inventory's chart facts (lib/versions/certificates.ts), which the render's
 * `certificates-renewed` judges, held to what each release's pinned chart really renders with the
 * platform's values: its cert-manager issuers and Certificates, the TLS Secrets and CA bundles it
 * writes at template time, and the TLS Secrets its pods mount without writing them. A fact the chart
 * does not bear out, or an object no fact predicts, is a finding: the inventory would judge a
 * certificate that does not exist, or miss one that does.
 */

const isCertManager = (o: KubeObject, kind: string) =>
  o.kind === kind && o.apiVersion.startsWith("cert-manager.io/");

/** Whether an object carries a CA bundle written into the template, not injected by cainjector. */
function templateCaBundle(o: KubeObject): boolean {
  const bundles =
    o.kind === "APIService"
      ? [str(obj(o.spec).caBundle) ?? ""]
      : o.kind === "MutatingWebhookConfiguration" || o.kind === "ValidatingWebhookConfiguration"
        ? list(o.webhooks).map((w) => str(obj(w.clientConfig).caBundle) ?? "")
        : [];
  const injected = Object.keys(o.metadata.annotations ?? {}).some((a) =>
    a.startsWith("cert-manager.io/inject-ca-from"),
  );
  return bundles.some((b) => b.length > 0) && !injected;
}

/** Secrets a release's pods mount, as `namespace/name`. */
function mountedSecrets(set: ObjectSet, release: TemplatedRelease): Set<string> {
  const out = new Set<string>();
  for (const pod of set.pods) {
    if (set.releaseOf.get(pod.owner) !== release) continue;
    for (const v of pod.volumes) {
      const direct = str(obj(v.secret).secretName);
      const projected = list(obj(v.projected).sources)
        .map((s) => str(obj(s.secret).name))
        .filter((n): n is string => n !== undefined);
      for (const name of [...(direct ? [direct] : []), ...projected]) out.add(`${pod.namespace}/${name}`);
    }
  }
  return out;
}

/** What one release's facts and its templated objects disagree on. */
function disagreements(set: ObjectSet, release: TemplatedRelease, chart: ChartName): string[] {
  const facts: ChartCertificates = chartCertificates(chart, release);
  // As the cluster receives them: each placed in the release's namespace where it is namespaced.
  const objects = set.objects.filter((o) => set.releaseOf.get(o) === release);
  const out: string[] = [];

  // Issuers, both ways: kind, namespace, name, and what they sign with.
  const issuerText = (kind: string, namespace: string | undefined, name: string, how: string) =>
    `${kind} ${kind === "ClusterIssuer" ? "" : `${namespace}/`}${name} (${how})`;
  const predictedIssuers = facts.issuers.map((i) =>
    issuerText(i.kind, i.namespace, i.name, i.selfSigned ? "self-signed" : `CA ${i.caSecret ?? "?"}`),
  );
  const renderedIssuers = objects
    .filter((o) => isCertManager(o, "Issuer") || isCertManager(o, "ClusterIssuer"))
    .map((o) =>
      issuerText(
        o.kind,
        o.metadata.namespace,
        o.metadata.name,
        obj(o.spec).selfSigned !== undefined
          ? "self-signed"
          : `CA ${str(obj(obj(o.spec).ca).secretName) ?? "?"}`,
      ),
    );
  for (const i of renderedIssuers.filter((i) => !predictedIssuers.includes(i)))
    out.push(`renders ${i}, which the inventory does not know`);
  for (const i of predictedIssuers.filter((i) => !renderedIssuers.includes(i)))
    out.push(`the inventory expects ${i}, which the chart does not render`);

  // Certificates cert-manager issues: every rendered one predicted, with its issuer and lifetime.
  const certificates = objects.filter((o) => isCertManager(o, "Certificate"));
  for (const c of certificates) {
    const spec = obj(c.spec);
    const secret = `Secret ${c.metadata.namespace}/${str(spec.secretName) ?? ""}`;
    const ref = obj(spec.issuerRef);
    const fact = facts.made.find(
      (m) =>
        m.certificate === secret &&
        m.issuerRef?.name === ref.name &&
        m.issuerRef?.kind === (str(ref.kind) ?? "Issuer"),
    );
    if (!fact) {
      out.push(
        `renders Certificate ${c.metadata.namespace}/${c.metadata.name} (${secret}, issuer ${str(ref.kind) ?? "Issuer"} ${str(ref.name) ?? "?"}), which the inventory does not know`,
      );
      continue;
    }
    const predicted = goDurationSeconds(fact.lifetime);
    const rendered = goDurationSeconds(str(spec.duration) ?? certManagerDefaults.duration);
    if (predicted !== undefined && predicted !== rendered)
      out.push(
        `renders Certificate ${c.metadata.namespace}/${c.metadata.name} for ${str(spec.duration) ?? certManagerDefaults.duration}, and the inventory says ${fact.lifetime}`,
      );
  }
  for (const m of facts.made) {
    if (!m.issuerRef || !m.certificate.startsWith("Secret ") || !m.renewer?.startsWith("cert-manager"))
      continue;
    const rendered = certificates.some(
      (c) => `Secret ${c.metadata.namespace}/${str(obj(c.spec).secretName) ?? ""}` === m.certificate,
    );
    if (!rendered)
      out.push(`the inventory expects a Certificate for ${m.certificate}, which the chart does not render`);
  }

  // TLS Secrets written at template time, both ways.
  const templateSecrets = objects
    .filter((o) => o.kind === "Secret" && str(obj(o.data)["tls.crt"]))
    .map((o) => `Secret ${o.metadata.namespace}/${o.metadata.name}`);
  const predictedTemplate = facts.made
    .filter((m) => m.signedBy?.includes("template time"))
    .map((m) => m.certificate);
  for (const s of templateSecrets.filter((s) => !predictedTemplate.includes(s)))
    out.push(`renders ${s} with a certificate written at template time, which the inventory does not know`);
  for (const s of predictedTemplate.filter((s) => !templateSecrets.includes(s)))
    out.push(`the inventory expects ${s} written at template time, and the chart does not write it`);

  // CA bundles written at template time need a template-time certificate or CA bundle in the facts.
  const bundleKnown = facts.made.some(
    (m) => m.signedBy?.includes("template time") || m.certificate.startsWith("CA bundle of"),
  );
  for (const o of objects.filter(templateCaBundle))
    if (!bundleKnown)
      out.push(
        `renders ${nameOf(o)} with a CA bundle written at template time, which the inventory does not know`,
      );

  // Secrets the chart's pods mount and a Certificate of the platform must write.
  const mounted = mountedSecrets(set, release);
  for (const m of facts.mounted) {
    const id = `${m.namespace}/${m.name}`;
    if (!mounted.has(id))
      out.push(`the inventory expects the chart's pods to mount Secret ${id} (${m.purpose}), and none does`);
    if (objects.some((o) => o.kind === "Secret" && `${o.metadata.namespace}/${o.metadata.name}` === id))
      out.push(`the inventory expects Secret ${id} to come from outside the chart, and the chart renders it`);
  }
  return out;
}

/** Every release whose certificate facts its templated chart does not bear out. */
export function certificateFactsHold(set: ObjectSet): CrossingFinding[] {
  return set.releases.flatMap((release) => {
    if (release.error || release.crdsOnly) return [];
    const chart = (Object.keys(charts) as ChartName[]).find((c) => charts[c].chart === release.chart);
    if (!chart) return [];
    return disagreements(set, release, chart).map((message) => ({
      object: `release ${release.namespace}/${release.name}`,
      message: `${message}: correct the chart's facts in lib/versions/certificates.ts (from the chart's templates at ${release.chart} ${release.version}), so certificates-renewed judges what the chart makes`,
    }));
  });
}
