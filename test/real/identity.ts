import { X509Certificate } from "crypto";
import { runTierScript, stepTimer } from "./script";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { parse, parseAllDocuments } from "yaml";
import { findHelm } from "../../lib/cluster";
import { clusterTools, MissingTools, startCluster, type Cluster } from "./apiServer";
import {
  applyControllerCrds,
  certManagerNamespace,
  controllerToolNames,
  startControllers,
} from "./controllers";
import { openssl } from "./pki";
import { run, tail, waitFor } from "./processes";
import { requireTools } from "./tools";
import { chartsDir as referenceChartsDir, referenceDir, referenceProblem } from "../upstream/reference";

/**
 * The model held to the real thing for mesh identity: `npx tsx test/real/identity.ts [kubernetes minor]`.
 * Renders the repository's dev stack (Linkerd) and examples/istio-gke-gateway's dev stack (Istio), starts
 * a local control plane with the CRDs their objects need, runs cert-manager, cainjector and trust-manager,
 * server-side applies each render's manifests.yaml in file order (namespaces first), then checks from
 * what the real components wrote:
 *   - every cert-manager Certificate in the renders becomes Ready;
 *   - every certificate issued by a CA issuer verifies with openssl against its CA's certificate (the
 *     Linkerd trust anchor → identity issuer, the Istio root → intermediate, the webhook CA → its leaves);
 *   - each issued certificate's lifetime (notAfter - notBefore) is the lifetime certificates.yaml claims;
 *   - every Bundle's ConfigMap is in every namespace its selector selects (and no other) with its sources;
 *   - a renewal as `cmctl renew` triggers it (the Issuing condition, reason ManuallyTriggered, on the
 *     Certificate's status) gives a new Secret, keeps the key where rotationPolicy is Never, and the
 *     Bundle's ConfigMaps follow; certificates issued under the old one still verify against the new one.
 * Where a tool or the reference folder (test/upstream/reference.ts, `npm run reference`) is missing it skips
 * (with CI=true it fails).
 */

const root = path.resolve(__dirname, "../..");
/** The reference's pinned charts and upstream copies; main() skips where they are not usable. */
const chartsDir = referenceChartsDir ?? "";
const upstream = referenceDir ?? "";
const fieldManager = "gke-mesh-platform";
const name = "real tier identity";

interface Render {
  readonly label: string;
  /** The program folder and stack rendered. */
  readonly program: string;
  readonly stack: string;
}

const renders: readonly Render[] = [
  { label: "linkerd (dev)", program: root, stack: "dev" },
  {
    label: "istio (examples/istio-gke-gateway dev)",
    program: path.join(root, "examples/istio-gke-gateway"),
    stack: "dev",
  },
];

interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly [field: string]: unknown;
}

interface Document {
  /** The Pulumi resource the comment before it names. */
  readonly resource: string;
  readonly object: KubeObject;
  readonly text: string;
}

interface Claim {
  readonly certificate: string;
  readonly source: string;
  readonly lifetime: string;
}

interface Rendered extends Render {
  readonly documents: readonly Document[];
  readonly claims: readonly Claim[];
  readonly helmReleases: unknown;
}

interface Check {
  readonly what: string;
  readonly ok: boolean;
  readonly detail?: string;
}

// ---- small readers of unknown JSON, without `any` ----

function field(value: unknown, ...keys: string[]): unknown {
  let v = value;
  for (const k of keys) {
    if (typeof v !== "object" || v === null || Array.isArray(v)) return undefined;
    v = (v as Record<string, unknown>)[k];
  }
  return v;
}

function text(value: unknown, ...keys: string[]): string | undefined {
  const v = field(value, ...keys);
  return typeof v === "string" ? v : undefined;
}

function list(value: unknown, ...keys: string[]): unknown[] {
  const v = field(value, ...keys);
  return Array.isArray(v) ? (v as unknown[]) : [];
}

function stringMap(value: unknown, ...keys: string[]): Record<string, string> {
  const v = field(value, ...keys);
  if (typeof v !== "object" || v === null) return {};
  return Object.fromEntries(
    Object.entries(v as Record<string, unknown>).filter(
      (e): e is [string, string] => typeof e[1] === "string",
    ),
  );
}

function isKubeObject(value: unknown): value is KubeObject {
  return (
    typeof text(value, "apiVersion") === "string" &&
    typeof text(value, "kind") === "string" &&
    typeof text(value, "metadata", "name") === "string"
  );
}

/** A Go duration (`87600h0m0s`, `1h`, `90m`) in milliseconds, or undefined where it is not one. */
export function goDuration(value: string): number | undefined {
  const units: Record<string, number> = {
    h: 3_600_000,
    m: 60_000,
    s: 1000,
    ms: 1,
    us: 1e-3,
    µs: 1e-3,
    ns: 1e-6,
  };
  if (!/^(\d+(\.\d+)?(h|ms|m|s|us|µs|ns))+$/.test(value)) return undefined;
  let total = 0;
  for (const m of value.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g)) total += Number(m[1]) * units[m[2]];
  return total;
}

function describe(ms: number): string {
  return `${(ms / 3_600_000).toFixed(3).replace(/\.?0+$/, "")}h`;
}

function b64(value: string): string {
  return Buffer.from(value.trim(), "base64").toString("utf8");
}

/** The PEM blocks of a bundle, normalised, as a sorted list. */
function pemBlocks(pem: string): string[] {
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g)]
    .map((m) => m[0].replace(/\s+/g, ""))
    .sort();
}

function firstLine(message: string): string {
  const lines = message
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("Warning:"));
  const line = lines.find((l) => /error|invalid|forbidden|not found|no matches/i.test(l)) ?? lines[0] ?? "";
  // run() prefixes the command line; keep what kubectl said.
  return line.replace(/^kubectl\S* .*? -f -: /, "").slice(0, 300);
}

// ---- rendering ----

async function renderStack(render: Render, out: string): Promise<Rendered> {
  const tsx = path.join(root, "node_modules/.bin/tsx");
  await run(
    tsx,
    [path.join(root, "lib/render/cli.ts"), "render", render.program, "--stack", render.stack, "--out", out],
    {
      cwd: root,
    },
  );
  const manifests = fs.readFileSync(path.join(out, "manifests.yaml"), "utf8");
  const documents: Document[] = [];
  for (const chunk of manifests.split(/^---\s*$/m)) {
    const resource = /^# (kubernetes:\S+)/m.exec(chunk)?.[1];
    const object: unknown = parse(chunk);
    if (isKubeObject(object)) documents.push({ resource: resource ?? "(unnamed)", object, text: chunk });
  }
  const inventory: unknown = parse(fs.readFileSync(path.join(out, "certificates.yaml"), "utf8"));
  const claims = list(inventory, "certificates").map((c) => ({
    certificate: text(c, "certificate") ?? "",
    source: text(c, "source") ?? "",
    lifetime: text(c, "lifetime") ?? "",
  }));
  const helmReleases: unknown = parse(fs.readFileSync(path.join(out, "helm-releases.yaml"), "utf8"));
  return { ...render, documents, claims, helmReleases };
}

// ---- CRDs ----

function yamlFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => path.join(dir, f));
}

/** The CRDs the renders' objects need beyond cert-manager's and trust-manager's, as one YAML stream. */
async function meshCrds(
  cluster: Cluster,
  linkerd: Rendered,
): Promise<{ sources: string[]; documents: string }> {
  const helm = findHelm();
  if (!helm) throw new MissingTools("no helm binary (set HELM, put helm on PATH, or run .ci/run)");
  const need = (p: string) => {
    if (!fs.existsSync(p))
      throw new MissingTools(
        `no ${p}: the reference folder lacks it (\`npm run reference\` links ../shared/reference and prepares what the pins need)`,
      );
    return p;
  };
  const sources: string[] = [];
  let documents = "";
  const add = (source: string, stream: string) => {
    sources.push(source);
    documents += `${stream}\n---\n`;
  };
  const gatewayApi = need(path.join(upstream, "gateway-api-v1.5.1-standard"));
  add(
    "Gateway API v1.5.1 standard",
    yamlFiles(gatewayApi)
      .map((f) => fs.readFileSync(f, "utf8"))
      .join("\n---\n"),
  );

  const release = list(linkerd.helmReleases, "releases").find((r) => text(r, "name") === "linkerd-crds");
  const values = path.join(cluster.dir, "linkerd-crds-values.yaml");
  fs.writeFileSync(values, JSON.stringify(field(release, "values") ?? {}));
  add(
    "linkerd-crds 2026.8.3 (the render's values)",
    await run(helm, [
      "template",
      "linkerd-crds",
      need(path.join(chartsDir, "linkerd-crds-2026.8.3")),
      "--namespace=linkerd",
      "--include-crds",
      `--kube-version=${cluster.kubernetesVersion}`,
      "-f",
      values,
    ]),
  );
  const promCrds = need(path.join(chartsDir, "kube-prometheus-stack-88.5.3/charts/crds/crds"));
  add(
    "kube-prometheus-stack 88.5.3 charts/crds",
    yamlFiles(promCrds)
      .map((f) => fs.readFileSync(f, "utf8"))
      .join("\n---\n"),
  );
  add(
    "Istio base 1.30.3 templates/crds.yaml",
    await run(helm, [
      "template",
      "istio-base",
      need(path.join(chartsDir, "base-1.30.3")),
      "--namespace=istio-system",
      `--kube-version=${cluster.kubernetesVersion}`,
      "--show-only=templates/crds.yaml",
    ]),
  );
  // Not named by the brief, but the dev render's GKE objects need them: GMP's and GKE Gateway's CRDs.
  for (const [label, dir] of [
    ["Google Managed Prometheus v0.17.2", "prometheus-engine-v0.17.2"],
    ["GKE Gateway policies fc40d60", "gke-gateway-api-fc40d60"],
  ] as const) {
    const d = path.join(upstream, dir);
    if (fs.existsSync(d))
      add(
        label,
        yamlFiles(d)
          .map((f) => fs.readFileSync(f, "utf8"))
          .join("\n---\n"),
      );
  }
  return { sources, documents };
}

async function applyCrds(cluster: Cluster, documents: string): Promise<string[]> {
  // Only the CRDs: helm templates may carry other objects.
  const crds = parseAllDocuments(documents)
    .map((d): unknown => d.toJS({ maxAliasCount: -1 }) as unknown)
    .filter((o): o is KubeObject => isKubeObject(o) && o.kind === "CustomResourceDefinition");
  const applied = await cluster.kubectl(
    [
      "apply",
      "--server-side",
      "--force-conflicts",
      `--field-manager=${fieldManager}`,
      "-o",
      "name",
      "-f",
      "-",
    ],
    { input: JSON.stringify({ apiVersion: "v1", kind: "List", items: crds }) },
  );
  const names = applied.split("\n").filter((l) => l.startsWith("customresourcedefinition"));
  await cluster.kubectl(["wait", "--for=condition=Established", "--timeout=60s", ...names]);
  return names;
}

// ---- applying the renders ----

interface Applied {
  readonly render: Rendered;
  readonly applied: Document[];
  readonly refused: { readonly document: Document; readonly reason: string }[];
  readonly removedWebhooks: string[];
}

async function applyRender(cluster: Cluster, render: Rendered): Promise<Applied> {
  const ordered = [
    ...render.documents.filter((d) => d.object.kind === "Namespace"),
    ...render.documents.filter((d) => d.object.kind !== "Namespace"),
  ];
  const result: Applied = { render, applied: [], refused: [], removedWebhooks: [] };
  for (const document of ordered) {
    try {
      await cluster.kubectl(["apply", "--server-side", `--field-manager=${fieldManager}`, "-f", "-"], {
        input: JSON.stringify(document.object),
      });
      result.applied.push(document);
    } catch (err) {
      result.refused.push({ document, reason: firstLine(err instanceof Error ? err.message : String(err)) });
    }
  }
  // A webhook configuration whose Service has no endpoints would refuse every request it matches.
  for (const document of result.applied) {
    const { kind } = document.object;
    if (kind !== "ValidatingWebhookConfiguration" && kind !== "MutatingWebhookConfiguration") continue;
    for (const webhook of list(document.object, "webhooks")) {
      const service = field(webhook, "clientConfig", "service");
      const svcName = text(service, "name");
      const svcNs = text(service, "namespace");
      if (!svcName || !svcNs) continue;
      const endpoints = await cluster
        .kubectl([
          "get",
          "endpointslices",
          "-n",
          svcNs,
          "-l",
          `kubernetes.io/service-name=${svcName}`,
          "-o",
          "jsonpath={.items[*].endpoints}",
        ])
        .catch(() => "");
      if (endpoints.trim()) continue;
      await cluster.kubectl([
        "delete",
        kind.toLowerCase(),
        document.object.metadata.name,
        "--ignore-not-found",
      ]);
      result.removedWebhooks.push(
        `${kind} ${document.object.metadata.name} (Service ${svcNs}/${svcName} has no endpoints)`,
      );
      break;
    }
  }
  return result;
}

// ---- reading what the real components wrote ----

interface Certificate {
  readonly namespace: string;
  readonly name: string;
  readonly secretName: string;
  readonly issuerKind: string;
  readonly issuerName: string;
  readonly rotationPolicy: string | undefined;
  readonly duration: string | undefined;
  readonly render: Rendered;
}

function certificates(render: Rendered): Certificate[] {
  return render.documents
    .filter((d) => d.object.kind === "Certificate" && d.object.apiVersion.startsWith("cert-manager.io/"))
    .map((d) => ({
      namespace: d.object.metadata.namespace ?? "default",
      name: d.object.metadata.name,
      secretName: text(d.object, "spec", "secretName") ?? "",
      issuerKind: text(d.object, "spec", "issuerRef", "kind") ?? "Issuer",
      issuerName: text(d.object, "spec", "issuerRef", "name") ?? "",
      rotationPolicy: text(d.object, "spec", "privateKey", "rotationPolicy"),
      duration: text(d.object, "spec", "duration"),
      render,
    }));
}

/** The Secret a CA issuer signs from (namespace, name), or undefined for another kind of issuer. */
function caSecret(render: Rendered, cert: Certificate): { namespace: string; name: string } | undefined {
  const issuer = render.documents.find(
    (d) =>
      d.object.kind === cert.issuerKind &&
      d.object.metadata.name === cert.issuerName &&
      (cert.issuerKind === "ClusterIssuer" || d.object.metadata.namespace === cert.namespace),
  );
  const secret = text(issuer?.object, "spec", "ca", "secretName");
  if (!secret) return undefined;
  return {
    namespace: cert.issuerKind === "ClusterIssuer" ? certManagerNamespace : cert.namespace,
    name: secret,
  };
}

/** One key of a Secret (decoded) or a ConfigMap, read through kubectl; undefined where it is absent. */
async function dataKey(
  cluster: Cluster,
  kind: "secret" | "configmap",
  namespace: string,
  name: string,
  key: string,
): Promise<string | undefined> {
  try {
    const out = await cluster.kubectl([
      "get",
      kind,
      name,
      "-n",
      namespace,
      "-o",
      `jsonpath={.data.${key.replace(/\./g, "\\.")}}`,
    ]);
    if (!out.trim()) return undefined;
    return kind === "secret" ? b64(out) : out;
  } catch {
    return undefined;
  }
}

const secretKey = (cluster: Cluster, namespace: string, secret: string, key: string) =>
  dataKey(cluster, "secret", namespace, secret, key);
const configMapKey = (cluster: Cluster, namespace: string, name: string, key: string) =>
  dataKey(cluster, "configmap", namespace, name, key);

async function verify(dir: string, label: string, caPem: string, leafPem: string): Promise<string> {
  const ca = path.join(dir, `${label}-ca.pem`);
  const leaf = path.join(dir, `${label}-leaf.pem`);
  fs.writeFileSync(ca, caPem);
  fs.writeFileSync(leaf, leafPem);
  return (
    await run(openssl, ["verify", "-CAfile", ca, leaf]).catch((err: unknown) =>
      err instanceof Error ? err.message : String(err),
    )
  ).trim();
}

function lifetimeOf(pem: string): { ms: number; cert: X509Certificate } {
  const cert = new X509Certificate(pem);
  return { ms: Date.parse(cert.validTo) - Date.parse(cert.validFrom), cert };
}

interface BundleSpec {
  readonly name: string;
  readonly key: string;
  readonly selector: string;
  readonly sources: readonly { readonly secret: string; readonly key: string }[];
  readonly other: number;
  readonly render: Rendered;
}

function bundles(render: Rendered): BundleSpec[] {
  return render.documents
    .filter((d) => d.object.kind === "Bundle" && d.object.apiVersion.startsWith("trust.cert-manager.io/"))
    .map((d) => {
      const sources = list(d.object, "spec", "sources");
      const labels = stringMap(d.object, "spec", "target", "namespaceSelector", "matchLabels");
      const expressions = list(d.object, "spec", "target", "namespaceSelector", "matchExpressions").map(
        (e) => {
          const values = list(e, "values").filter((v): v is string => typeof v === "string");
          const key = text(e, "key") ?? "";
          switch (text(e, "operator")) {
            case "In":
              return `${key} in (${values.join(",")})`;
            case "NotIn":
              return `${key} notin (${values.join(",")})`;
            case "Exists":
              return key;
            default:
              return `!${key}`;
          }
        },
      );
      return {
        name: d.object.metadata.name,
        key: text(d.object, "spec", "target", "configMap", "key") ?? "",
        selector: [...Object.entries(labels).map(([k, v]) => `${k}=${v}`), ...expressions].join(","),
        sources: sources
          .map((s) => ({ secret: text(s, "secret", "name") ?? "", key: text(s, "secret", "key") ?? "" }))
          .filter((s) => s.secret),
        other: sources.filter((s) => !text(s, "secret", "name")).length,
        render,
      };
    });
}

async function namespaces(cluster: Cluster, selector: string): Promise<string[]> {
  const out = await cluster.kubectl([
    "get",
    "namespaces",
    ...(selector ? ["-l", selector] : []),
    "-o",
    "jsonpath={.items[*].metadata.name}",
  ]);
  return out.split(/\s+/).filter((n) => n);
}

/** The source PEMs of a Bundle, read from the trust namespace's Secrets. */
async function bundleSources(cluster: Cluster, bundle: BundleSpec): Promise<string[]> {
  const pems: string[] = [];
  for (const s of bundle.sources)
    pems.push(...pemBlocks((await secretKey(cluster, certManagerNamespace, s.secret, s.key)) ?? ""));
  return [...new Set(pems)].sort();
}

async function bundleState(
  cluster: Cluster,
  bundle: BundleSpec,
  want: readonly string[],
): Promise<{ selected: string[]; missing: string[]; wrong: string[]; stray: string[] }> {
  const selected = await namespaces(cluster, bundle.selector);
  const all = await namespaces(cluster, "");
  const missing: string[] = [];
  const wrong: string[] = [];
  const stray: string[] = [];
  for (const ns of all) {
    const data = await configMapKey(cluster, ns, bundle.name, bundle.key);
    if (selected.includes(ns)) {
      if (data === undefined) missing.push(ns);
      else if (pemBlocks(data).join() !== want.join()) wrong.push(ns);
    } else if (data !== undefined) stray.push(ns);
  }
  return { selected, missing, wrong, stray };
}

// ---- the run ----

async function main(): Promise<number> {
  const kubernetesVersion = process.argv[2];
  const tools = clusterTools(kubernetesVersion);
  const controllerSet = requireTools(controllerToolNames);
  const skip =
    tools.set.skip ??
    controllerSet.skip ??
    (findHelm() ? undefined : "no helm binary (set HELM or put helm on PATH)") ??
    referenceProblem ??
    (fs.existsSync(chartsDir) ? undefined : `no ${chartsDir} (run \`npm run reference\`, or set CHARTS_DIR)`);
  if (skip) throw new MissingTools(skip);

  const started = Date.now();
  const { step, printTimings } = stepTimer();
  const checks: Check[] = [];
  const check = (what: string, ok: boolean, detail?: string) => {
    checks.push({ what, ok, detail });
    console.log(`  ${ok ? "ok  " : "FAIL"}  ${what}${detail ? `: ${detail}` : ""}`);
  };

  const renderDir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), "real-identity-"));
  const [rendered, cluster] = await Promise.all([
    Promise.all(renders.map((r, i) => renderStack(r, path.join(renderDir, String(i))))),
    startCluster({ kubernetesVersion }),
  ]);
  step(`rendered ${rendered.length} stacks; control plane ${cluster.kubernetesVersion} ready`);
  let controllers: Awaited<ReturnType<typeof startControllers>> | undefined;
  const summary: string[] = [];
  try {
    const controllerCrds = await applyControllerCrds(cluster);
    const linkerd = rendered[0];
    const extra = await meshCrds(cluster, linkerd);
    const meshCrdNames = await applyCrds(cluster, extra.documents);
    step(
      `${controllerCrds.length + meshCrdNames.length} CRDs established (cert-manager, trust-manager, ${extra.sources.join(", ")})`,
    );
    controllers = await startControllers(cluster);
    step("cert-manager, cainjector and trust-manager started");

    const applied: Applied[] = [];
    for (const r of rendered) applied.push(await applyRender(cluster, r));
    step("renders applied");
    for (const a of applied) {
      summary.push(
        `${a.render.label}: ${a.applied.length} of ${a.render.documents.length} objects applied, ${a.refused.length} refused`,
      );
      for (const r of a.refused)
        summary.push(`    refused ${r.document.object.kind} ${r.document.resource}: ${r.reason}`);
      summary.push(
        `    webhook configurations removed after apply: ${a.removedWebhooks.join("; ") || "none (the render has none whose Service lacks endpoints)"}`,
      );
      const identityRefused = a.refused.filter((r) =>
        /cert-manager\.io|trust\.cert-manager\.io|^v1$/.test(r.document.object.apiVersion),
      );
      check(
        `${a.render.label}: every core (v1), cert-manager and trust-manager object accepted by the API server`,
        identityRefused.length === 0,
        identityRefused
          .map((r) => `${r.document.object.kind} ${r.document.object.metadata.name}: ${r.reason}`)
          .join("; ") || undefined,
      );
    }

    // 1. every Certificate Ready
    const certs = rendered.flatMap(certificates);
    const readyOf = async (c: Certificate) =>
      (await cluster
        .kubectl([
          "get",
          "certificate",
          c.name,
          "-n",
          c.namespace,
          "-o",
          `jsonpath={.status.conditions[?(@.type=="Ready")].status}`,
        ])
        .catch(() => "")) === "True";
    await waitFor(
      "every Certificate Ready",
      async () => ((await Promise.all(certs.map(readyOf))).every((r) => r) ? true : undefined),
      { timeoutMs: 90_000, intervalMs: 1000, watch: [] },
    ).catch(() => undefined);
    let ready = 0;
    for (const c of certs) {
      const ok = await readyOf(c);
      if (ok) ready++;
      else {
        const conditions = await cluster
          .kubectl([
            "get",
            "certificate",
            c.name,
            "-n",
            c.namespace,
            "-o",
            "jsonpath={range .status.conditions[*]}{.type}={.status} {.reason}: {.message}{'\\n'}{end}",
          ])
          .catch((err: unknown) => (err instanceof Error ? err.message : String(err)));
        console.log(
          `  not Ready: Certificate ${c.namespace}/${c.name}\n${conditions.replace(/^/gm, "      ")}`,
        );
      }
      check(`Certificate ${c.namespace}/${c.name} Ready`, ok);
    }
    step(`${ready} of ${certs.length} Certificates Ready`);

    // 2. chains and 3. lifetimes
    const pemDir = path.join(cluster.dir, "identity");
    fs.mkdirSync(pemDir);
    let chains = 0;
    let chainsTotal = 0;
    for (const c of certs) {
      const crt = await secretKey(cluster, c.namespace, c.secretName, "tls.crt");
      if (!crt) {
        check(`Secret ${c.namespace}/${c.secretName} holds tls.crt`, false);
        continue;
      }
      const ca = caSecret(c.render, c);
      if (ca) {
        chainsTotal++;
        const caPem = await secretKey(cluster, ca.namespace, ca.name, "tls.crt");
        const out = caPem
          ? await verify(pemDir, `${c.namespace}-${c.name}`, caPem, crt)
          : `no Secret ${ca.namespace}/${ca.name}`;
        const ok = out.endsWith(": OK");
        if (ok) chains++;
        check(
          `chain ${ca.namespace}/${ca.name} → ${c.namespace}/${c.secretName} verifies (openssl verify -CAfile)`,
          ok,
          ok ? undefined : out,
        );
      }
      const claimed = c.render.claims.find((k) => k.source === `Certificate ${c.namespace}/${c.name}`);
      const { ms } = lifetimeOf(crt);
      if (!claimed) {
        check(
          `certificates.yaml lists Certificate ${c.namespace}/${c.name}`,
          false,
          `issued lifetime ${describe(ms)}`,
        );
        continue;
      }
      const want = goDuration(claimed.lifetime);
      const ok = want !== undefined && Math.abs(ms - want) <= 60_000;
      check(
        `lifetime of ${c.namespace}/${c.secretName}: issued ${describe(ms)}, certificates.yaml claims ${claimed.lifetime}`,
        ok,
        ok ? undefined : `spec.duration ${c.duration ?? "(unset: cert-manager's 2160h)"}`,
      );
    }
    step(`${chains} of ${chainsTotal} CA chains verified; lifetimes compared`);

    // 4. Bundles
    const bundleList = rendered.flatMap(bundles);
    let filled = 0;
    for (const b of bundleList) {
      const want = await bundleSources(cluster, b);
      const state = await waitFor(
        `Bundle ${b.name}'s ConfigMaps`,
        async () => {
          const s = await bundleState(cluster, b, want);
          return s.missing.length + s.wrong.length === 0 ? s : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 1000 },
      ).catch(() => bundleState(cluster, b, want));
      const ok =
        want.length > 0 &&
        state.selected.length > 0 &&
        state.missing.length + state.wrong.length + state.stray.length === 0;
      if (ok) filled++;
      check(
        `Bundle ${b.name}: ConfigMap key ${b.key} holds the ${want.length} source certificate(s) in every namespace labelled ${b.selector || "(all)"} [${state.selected.join(", ")}] and no other`,
        ok,
        ok
          ? undefined
          : `missing in [${state.missing.join(", ")}], different in [${state.wrong.join(", ")}], also in [${state.stray.join(", ")}]${state.selected.length === 0 ? ", no namespace selected" : ""}${b.other ? `, ${b.other} non-Secret source(s) not compared` : ""}`,
      );
    }
    step(`${filled} of ${bundleList.length} Bundles filled`);

    // 5. renewal of each Bundle's source, as `cmctl renew` triggers it
    let renewed = 0;
    for (const b of bundleList) {
      for (const s of b.sources) {
        const c = certs.find((x) => x.namespace === certManagerNamespace && x.secretName === s.secret);
        if (!c) continue;
        const before = await secretKey(cluster, c.namespace, c.secretName, s.key);
        if (!before) continue;
        const old = new X509Certificate(before);
        const condition = {
          type: "Issuing",
          status: "True",
          reason: "ManuallyTriggered",
          message: "Certificate re-issuance manually triggered",
          lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
          observedGeneration: Number(
            await cluster.kubectl([
              "get",
              "certificate",
              c.name,
              "-n",
              c.namespace,
              "-o",
              "jsonpath={.metadata.generation}",
            ]),
          ),
        };
        await cluster.kubectl([
          "patch",
          "certificate",
          c.name,
          "-n",
          c.namespace,
          "--subresource=status",
          "--type=json",
          `-p=${JSON.stringify([{ op: "add", path: "/status/conditions/-", value: condition }])}`,
        ]);
        const after = await waitFor(
          `a new ${c.namespace}/${c.secretName}`,
          async () => {
            const now = await secretKey(cluster, c.namespace, c.secretName, s.key);
            return now && new X509Certificate(now).serialNumber !== old.serialNumber ? now : undefined;
          },
          { timeoutMs: 60_000, intervalMs: 500 },
        ).catch(() => undefined);
        check(
          `renewal (Issuing=True ManuallyTriggered on the status) of ${c.namespace}/${c.name} gives a new Secret`,
          !!after,
        );
        if (!after) continue;
        renewed++;
        const fresh = new X509Certificate(after);
        const sameKey = fresh.publicKey
          .export({ format: "der", type: "spki" })
          .equals(old.publicKey.export({ format: "der", type: "spki" }));
        if (c.rotationPolicy === "Never" || c.rotationPolicy === "Always")
          check(
            `renewed ${c.secretName} ${sameKey ? "keeps" : "changes"} its key, as rotationPolicy ${c.rotationPolicy} says`,
            sameKey === (c.rotationPolicy === "Never"),
          );
        const claimed = c.render.claims.find((k) => k.source === `Certificate ${c.namespace}/${c.name}`);
        const renewedMs = lifetimeOf(after).ms;
        const claimedMs = claimed ? goDuration(claimed.lifetime) : undefined;
        check(
          `lifetime of the renewed ${c.secretName}: issued ${describe(renewedMs)}, certificates.yaml claims ${claimed?.lifetime ?? "nothing"}`,
          claimedMs !== undefined && Math.abs(renewedMs - claimedMs) <= 60_000,
        );
        const want = await bundleSources(cluster, b);
        const followed = await waitFor(
          `Bundle ${b.name} to follow the renewal`,
          async () => {
            const st = await bundleState(cluster, b, want);
            return st.missing.length + st.wrong.length === 0 ? st : undefined;
          },
          { timeoutMs: 60_000, intervalMs: 1000 },
        ).catch(() => undefined);
        check(
          `Bundle ${b.name}'s ConfigMaps follow the renewed ${c.secretName}`,
          !!followed && want.includes(pemBlocks(after)[0]),
        );
        // What was issued under the old certificate still verifies against the new one (same key).
        const signed = certs.filter((x) => {
          const ca = caSecret(x.render, x);
          return ca?.namespace === c.namespace && ca.name === c.secretName;
        });
        check(
          `${c.secretName}, a source of Bundle ${b.name}, is the CA of a Certificate in the render (${signed.map((x) => `${x.namespace}/${x.name}`).join(", ") || "none"})`,
          signed.length > 0,
        );
        for (const issued of signed) {
          const crt = await secretKey(cluster, issued.namespace, issued.secretName, "tls.crt");
          if (!crt) continue;
          const out = await verify(pemDir, `renewed-${issued.name}`, after, crt);
          check(
            `${issued.namespace}/${issued.secretName}, issued before the renewal, verifies against the renewed ${c.secretName}`,
            out.endsWith(": OK") === (c.rotationPolicy !== "Always"),
            out.endsWith(": OK") ? undefined : out,
          );
          // The issuer itself re-issued: delete its Secret, as the docs' rotation steps do.
          const previous = new X509Certificate(crt);
          await cluster.kubectl([
            "delete",
            "secret",
            issued.secretName,
            "-n",
            issued.namespace,
            "--wait=true",
          ]);
          const reissued = await waitFor(
            `a new ${issued.namespace}/${issued.secretName} after its Secret was deleted`,
            async () => {
              const now = await secretKey(cluster, issued.namespace, issued.secretName, "tls.crt");
              return now && new X509Certificate(now).serialNumber !== previous.serialNumber ? now : undefined;
            },
            { timeoutMs: 60_000, intervalMs: 500 },
          ).catch(() => undefined);
          check(`deleting Secret ${issued.namespace}/${issued.secretName} gives a new one`, !!reissued);
          if (!reissued) continue;
          const target = followed?.selected[0];
          const bundlePem = target ? await configMapKey(cluster, target, b.name, b.key) : undefined;
          const again = bundlePem
            ? await verify(pemDir, `reissued-${issued.name}`, bundlePem, reissued)
            : `no ConfigMap ${b.name}`;
          check(
            `the re-issued ${issued.secretName} verifies against Bundle ${b.name}'s ConfigMap`,
            again.endsWith(": OK"),
            again.endsWith(": OK") ? undefined : again,
          );
          const reissuedMs = lifetimeOf(reissued).ms;
          const issuedClaim = issued.render.claims.find(
            (k) => k.source === `Certificate ${issued.namespace}/${issued.name}`,
          );
          const issuedMs = issuedClaim ? goDuration(issuedClaim.lifetime) : undefined;
          check(
            `lifetime of the re-issued ${issued.secretName}: ${describe(reissuedMs)}, certificates.yaml claims ${issuedClaim?.lifetime ?? "nothing"}`,
            issuedMs !== undefined && Math.abs(reissuedMs - issuedMs) <= 60_000,
          );
        }
      }
    }
    step(`${renewed} Bundle sources renewed and followed`);
    summary.push(
      `certificates Ready: ${ready}/${certs.length}; CA chains verified: ${chains}/${chainsTotal}; bundles filled: ${filled}/${bundleList.length}; renewals followed: ${renewed}`,
    );
  } catch (err) {
    console.error(`${name} failed: ${err instanceof Error ? err.message : String(err)}`);
    if (controllers) console.error(controllers.tails());
    for (const [n, log] of Object.entries(cluster.logs)) console.error(`--- ${n}:\n${tail(log, 15)}`);
    checks.push({ what: "run to completion", ok: false });
  }
  await controllers?.stop();
  await cluster.stop();
  fs.rmSync(renderDir, { recursive: true, force: true });
  step("stopped");
  printTimings();
  for (const line of summary) console.log(`  ${line}`);
  const failed = checks.filter((c) => !c.ok);
  for (const f of failed) console.log(`  failed: ${f.what}${f.detail ? `: ${f.detail}` : ""}`);
  console.log(
    `${name} (Kubernetes ${cluster.kubernetesVersion}, cert-manager ${controllerSet.tools?.["cert-manager-controller"].version}, trust-manager ${controllerSet.tools?.["trust-manager"].version}): ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  console.log(`${checks.length - failed.length} passed, ${failed.length} failed`);
  return failed.length === 0 ? 0 : 1;
}

runTierScript(name, main);
