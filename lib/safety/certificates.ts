import {
  certManagerDefaults,
  chartCertificates,
  charts,
  gkeAnnotations,
  type ChartName,
  type IssuerReference,
  type MadeCertificate,
  type MountedSecret,
} from "../versions";
import { at, list, obj, str, strings, type Json } from "../json";
import type { ResourceView } from "./resources";

/**
 * The certificate inventory: every certificate a program's components make, mount or reference, with
 * its lifetime, when it is renewed, its issuer chain and what renews it. It joins the program's own
 * objects (cert-manager Certificates and issuers, trust-manager Bundles, GKE's managed certificates,
 * TLS Secrets) with what each Helm release's pinned chart is known to make at its version
 * (lib/versions/certificates.ts). A certificate that nothing renews is a violation of
 * `certificates-renewed`.
 */

/** One certificate of the inventory. */
export interface CertificateEntry {
  /** Where it is held: `Secret <namespace>/<name>`, `in memory: ...`, a CA bundle, or a cloud resource. */
  readonly certificate: string;
  readonly purpose: string;
  /** Who makes it: `Certificate <namespace>/<name>` (the program's), `release <name> (<chart>)`, or a cloud resource. */
  readonly source: string;
  readonly lifetime: string;
  readonly renewBefore?: string;
  /** Who signs it, and who signs that, up to a self-signed root. */
  readonly issuer: readonly string[];
  /** What renews it; absent where nothing does. */
  readonly renewer?: string;
  /** The upstream file a chart's fact comes from. */
  readonly evidence?: string;
  /** The resource at fault if it is not renewed: `type::name`. */
  readonly resource: string;
}

const key = (r: ResourceView) => `${r.type}::${r.name}`;

const helmRelease = "kubernetes:helm.sh/v3:Release";
const certManagerGroup = "cert-manager.io/";

interface KubeView {
  readonly r: ResourceView;
  readonly kind?: string;
  readonly apiVersion: string;
  readonly name: string;
  readonly namespace?: string;
  readonly spec: Json;
}

function kubeView(r: ResourceView): KubeView {
  const metadata = at(r.inputs, "metadata");
  return {
    r,
    kind: str(at(r.inputs, "kind")),
    apiVersion: str(at(r.inputs, "apiVersion")) ?? "",
    name: str(at(metadata, "name")) ?? "",
    namespace: str(at(metadata, "namespace")),
    spec: obj(at(r.inputs, "spec")),
  };
}

/** An issuer as the chains read it. */
interface IssuerView extends IssuerReference {
  readonly selfSigned?: boolean;
  readonly caSecret?: string;
  readonly acme?: string;
}

/** The chart a Helm release installs, by its chart name. */
function chartOf(r: ResourceView): ChartName | undefined {
  const chart = at(r.inputs, "chart");
  return (Object.keys(charts) as ChartName[]).find((c) => charts[c].chart === chart);
}

/** Every certificate among these resources, in a stable order. */
export function certificateInventory(resources: readonly ResourceView[]): CertificateEntry[] {
  const objects = resources.map(kubeView);
  const releases = resources.filter((r) => r.type === helmRelease);
  // A ClusterIssuer's CA Secret lives in cert-manager's cluster resource namespace: its release's.
  const clusterResourceNamespace =
    str(at(releases.find((r) => chartOf(r) === "certManager")?.inputs, "namespace")) ?? "cert-manager";

  const perRelease = releases.flatMap((r) => {
    const chart = chartOf(r);
    if (!chart) return [];
    const values = obj(at(r.inputs, "values"));
    const view = {
      name: str(at(r.inputs, "name")) ?? r.name,
      namespace: str(at(r.inputs, "namespace")) ?? "default",
      values,
    };
    return [{ r, chart, release: view, facts: chartCertificates(chart, view) }];
  });

  // Issuers, by `Issuer ns/name` or `ClusterIssuer name`: the program's and the charts'.
  const issuers = new Map<string, IssuerView>();
  const issuerKey = (ref: IssuerReference) =>
    ref.kind === "ClusterIssuer" ? `ClusterIssuer ${ref.name}` : `Issuer ${ref.namespace}/${ref.name}`;
  for (const o of objects) {
    if ((o.kind !== "Issuer" && o.kind !== "ClusterIssuer") || !o.apiVersion.startsWith(certManagerGroup))
      continue;
    const ref: IssuerReference = { name: o.name, kind: o.kind, namespace: o.namespace ?? "" };
    issuers.set(issuerKey(ref), {
      ...ref,
      selfSigned: at(o.spec, "selfSigned") !== undefined,
      caSecret: str(at(o.spec, "ca", "secretName")),
      acme: str(at(o.spec, "acme", "server")),
    });
  }
  for (const p of perRelease) for (const i of p.facts.issuers) issuers.set(issuerKey(i), i);

  // Which Certificate writes which Secret, for CA issuers' chains and for what charts mount.
  const programCertificates = objects.filter(
    (o) => o.kind === "Certificate" && o.apiVersion.startsWith(certManagerGroup),
  );
  const writers = new Map<string, { ref?: IssuerReference; label: string }>();
  for (const c of programCertificates) {
    const secret = str(c.spec.secretName);
    if (!secret) continue;
    writers.set(`${c.namespace ?? ""}/${secret}`, {
      ref: issuerRefOf(c.spec, c.namespace ?? ""),
      label: `Certificate ${c.namespace ?? ""}/${c.name}`,
    });
  }
  for (const p of perRelease) {
    for (const m of p.facts.made) {
      if (m.secret)
        writers.set(`${m.secret.namespace}/${m.secret.name}`, { ref: m.issuerRef, label: m.certificate });
    }
  }

  /** The chain from an issuer up to its root. */
  const chain = (ref: IssuerReference | undefined, seen = new Set<string>()): string[] => {
    if (!ref) return [];
    const k = issuerKey(ref);
    if (seen.has(k)) return [`${k} (a cycle)`];
    seen.add(k);
    const i = issuers.get(k);
    if (!i) return [`${k} (not in this program)`];
    if (i.selfSigned) return [`${k} (self-signed)`];
    if (i.acme) return [`${k} (ACME ${i.acme})`];
    if (i.caSecret) {
      const ns = ref.kind === "ClusterIssuer" ? clusterResourceNamespace : ref.namespace;
      const writer = writers.get(`${ns}/${i.caSecret}`);
      return [
        `${k} (CA Secret ${ns}/${i.caSecret})`,
        ...(writer
          ? chain(writer.ref, seen)
          : [`Secret ${ns}/${i.caSecret} (written by nothing in this program)`]),
      ];
    }
    return [k];
  };

  const mountedBy = new Map<string, MountedSecret & { release: string }>();
  for (const p of perRelease)
    for (const m of p.facts.mounted)
      mountedBy.set(`${m.namespace}/${m.name}`, { ...m, release: p.release.name });

  const entries: CertificateEntry[] = [];

  // The program's cert-manager Certificates: cert-manager renews each.
  for (const c of programCertificates) {
    const ns = c.namespace ?? "";
    const secret = str(c.spec.secretName) ?? "";
    const mount = mountedBy.get(`${ns}/${secret}`);
    entries.push({
      certificate: `Secret ${ns}/${secret}`,
      purpose: mount
        ? `${mount.purpose} (release ${mount.release} mounts it)`
        : purposeOf(c, objects, clusterResourceNamespace),
      source: `Certificate ${ns}/${c.name}`,
      lifetime: str(c.spec.duration) ?? `${certManagerDefaults.duration} (cert-manager's default)`,
      renewBefore: str(c.spec.renewBefore) ?? `${certManagerDefaults.renewBefore} (cert-manager's default)`,
      issuer: chain(issuerRefOf(c.spec, ns)),
      renewer: "cert-manager",
      resource: key(c.r),
    });
  }

  // What the charts make, and the Secrets they mount that no Certificate of the program writes.
  for (const p of perRelease) {
    const source = `release ${p.release.name} (${charts[p.chart].chart} ${charts[p.chart].version})`;
    for (const m of p.facts.made) entries.push(madeEntry(m, source, key(p.r), chain));
    for (const m of p.facts.mounted) {
      if (writers.has(`${m.namespace}/${m.name}`)) continue;
      entries.push({
        certificate: `Secret ${m.namespace}/${m.name}`,
        purpose: `${m.purpose} (release ${p.release.name} mounts it)`,
        source: "nothing in this program writes it",
        lifetime: "unknown",
        issuer: [],
        evidence: m.evidence,
        resource: key(p.r),
      });
    }
  }

  // TLS Secrets the program writes itself: nothing renews a certificate written as data.
  for (const o of objects) {
    if (o.kind !== "Secret" || str(at(o.r.inputs, "type")) !== "kubernetes.io/tls") continue;
    entries.push({
      certificate: `Secret ${o.namespace ?? "default"}/${o.name}`,
      purpose: "a TLS certificate the program writes as data",
      source: "the program",
      lifetime: "that of the certificate written",
      issuer: [],
      resource: key(o.r),
    });
  }

  // Google-managed certificates, and pre-shared ones the program names.
  for (const o of objects) {
    if (o.kind === "ManagedCertificate" && o.apiVersion.startsWith("networking.gke.io/")) {
      entries.push({
        certificate: `ManagedCertificate ${o.namespace ?? "default"}/${o.name}`,
        purpose: `TLS for ${strings(at(o.spec, "domains")).join(", ")} at a GCE Ingress`,
        source: "GKE",
        lifetime: "90 days (Google-managed)",
        issuer: ["Google Trust Services"],
        renewer: "Google",
        resource: key(o.r),
      });
    }
    const preShared = [
      str(at(o.r.inputs, "metadata", "annotations", gkeAnnotations.preSharedCert)),
      ...list(at(o.spec, "listeners")).map((l) =>
        str(at(l, "tls", "options", gkeAnnotations.gatewayPreSharedCerts)),
      ),
    ].filter((v): v is string => v !== undefined);
    for (const name of new Set(preShared.flatMap((v) => v.split(",")))) {
      entries.push({
        certificate: `Compute SSL certificate ${name}`,
        purpose: `TLS of ${o.kind} ${o.namespace ?? ""}/${o.name}, pre-shared`,
        source: "you, outside the platform",
        lifetime: "that of the certificate you uploaded",
        issuer: ["yours"],
        renewer: "you: replace it before it expires (pre-shared certificates are outside the platform)",
        resource: key(o.r),
      });
    }
  }
  for (const r of resources) {
    if (r.type !== "gcp:certificatemanager/certificate:Certificate") continue;
    const managed = at(r.inputs, "managed");
    entries.push({
      certificate: `Certificate Manager certificate ${str(at(r.inputs, "name")) ?? r.name}`,
      purpose: `TLS for ${strings(at(managed, "domains")).join(", ")} at the shared Gateway`,
      source: "Certificate Manager",
      lifetime: managed ? "90 days (Google-managed)" : "that of the certificate uploaded",
      issuer: [managed ? "Google Trust Services" : "yours"],
      renewer: managed ? "Google" : undefined,
      resource: key(r),
    });
  }
  return entries.sort((a, b) => compare(a.certificate, b.certificate) || compare(a.source, b.source));
}

function madeEntry(
  m: MadeCertificate,
  source: string,
  resource: string,
  chain: (ref: IssuerReference | undefined) => string[],
): CertificateEntry {
  return {
    certificate: m.certificate,
    purpose: m.purpose,
    source,
    lifetime: m.lifetime,
    ...(m.renewBefore ? { renewBefore: m.renewBefore } : {}),
    issuer: m.issuerRef ? chain(m.issuerRef) : m.signedBy ? [m.signedBy] : [],
    ...(m.renewer ? { renewer: m.renewer } : {}),
    evidence: m.evidence,
    resource,
  };
}

function issuerRefOf(spec: Json, namespace: string): IssuerReference | undefined {
  const name = str(at(spec, "issuerRef", "name"));
  if (!name) return undefined;
  const kind = str(at(spec, "issuerRef", "kind")) === "ClusterIssuer" ? "ClusterIssuer" : "Issuer";
  return { name, kind, namespace };
}

/** What a program's Certificate is for, from the objects that use its Secret. */
function purposeOf(c: KubeView, objects: readonly KubeView[], clusterResourceNamespace: string): string {
  const ns = c.namespace ?? "";
  const secret = str(c.spec.secretName);
  const signs = objects
    .filter(
      (o) =>
        (o.kind === "Issuer" || o.kind === "ClusterIssuer") &&
        str(at(o.spec, "ca", "secretName")) === secret &&
        (o.kind === "ClusterIssuer" ? ns === clusterResourceNamespace : o.namespace === ns),
    )
    .map((o) => `${o.kind} ${o.kind === "Issuer" ? `${o.namespace ?? ""}/` : ""}${o.name}`);
  const bundles = objects
    .filter(
      (o) =>
        o.kind === "Bundle" && list(at(o.spec, "sources")).some((s) => at(s, "secret", "name") === secret),
    )
    .map((o) => `Bundle ${o.name}`);
  const parts = [
    ...(bundles.length > 0 ? [`trust anchor distributed by ${bundles.join(", ")}`] : []),
    ...(signs.length > 0 ? [`CA of ${signs.join(", ")}`] : []),
  ];
  if (parts.length > 0) return parts.join("; ");
  const names = strings(c.spec.dnsNames);
  return c.spec.isCA === true
    ? "a CA"
    : `TLS for ${names.join(", ") || str(c.spec.commonName) || "its subject"}`;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
