import * as fs from "fs";
import * as path from "path";
import { clusterTools, MissingTools, startCluster, type Cluster } from "./apiServer";
import { certManagerNamespace, controllerToolNames, type Controllers } from "./controllers";
import { openssl } from "./pki";
import {
  droppedWebhooks,
  postRenderer,
  pulumiSession,
  summary,
  upWithControllers,
  writeDevStackConfig,
  writeProgram,
  type PulumiSession,
  printRunFailure,
} from "./platformProgram";
import { pulumiEngine, pulumiToolNames, type PulumiEngine } from "./pulumi";
import { run, waitFor } from "./processes";
import { runTierScript, stepTimer } from "./script";
import { requireTools } from "./tools";
import { podSecurityLabels } from "../../lib/manifests";
import { linkerdNamespace } from "../../lib/meshes/linkerd";
import { linkerdIdentityNames } from "../../lib/meshes/linkerd/identity";
import { linkerdFacts } from "../../lib/versions";
import { chartsDir, chartsProblem } from "../upstream/reference";

/**
 * The real Pulumi engine runs the platform's Kubernetes layer: `npx tsx test/real/platformUp.ts
 * [kubernetes minor]`. Two Pulumi programs (written into a temporary folder), each on a control plane of
 * its own: the building blocks, `CertManager` (with trust-manager) and `Linkerd` on an `ExistingCluster`
 * made from the real API server's kubeconfig, every chart from the reference's chart folders
 * (`ChartContext.source.folder`); and the whole `Platform` of a dev stack (an existing cluster by
 * kubeconfig, Linkerd, ingress and monitoring off, one app, `platform:chartSource.folder`).
 * The program is JavaScript that registers tsx and requires this repository's `lib/*.ts`: no build, so it
 * runs exactly the sources under test; the Node.js language host runs plain JavaScript (`typescript:
 * false`), and @pulumi/pulumi resolves through the linked node_modules to the one copy `lib/` loads, so
 * program and library share one Pulumi runtime. (A `npm run build` dist would test a copy, and cost a
 * whole tsc run.)
 *
 * While `pulumi up` runs, the real cert-manager controller, cainjector and trust-manager start as
 * processes (controllers.ts) as soon as the releases' CRDs are Established, so the engine's awaits on the
 * identity objects (`pulumi.com/waitFor: condition=Ready` on the trust anchor, the identity issuer and
 * the webhooks' Certificates, `condition=Synced` on the trust roots Bundle) are met by the real
 * controllers. Then, for each program:
 *   1. `pulumi up` creates the releases and objects: the CRDs with `helm.sh/resource-policy: keep`, the
 *      linkerd namespace with exactly its labels, the ClusterIssuers and Certificates the platform emits,
 *      all Ready; the identity issuer verifies (openssl) against the trust roots ConfigMap trust-manager
 *      wrote, which holds the trust anchor; Helm installed the control plane only after both (to the
 *      second); the Platform's app namespace is enrolled and its Deployment admitted;
 *   2. `pulumi preview --expect-no-changes` after it finds nothing to do;
 *   3. a sizing change (cert-manager's controller replicas 1 → 2: a program config value, or
 *      `platform:sizing.certManager.replicas`) plans exactly one step, the cert-manager release's update;
 *      after `pulumi up` its Deployment has 2 replicas, its release is at revision 2 and every other at 1;
 *   4. `pulumi destroy` removes what is not retained (the Linkerd control plane release, the identity
 *      objects, the app and its namespace) and leaves what docs/linkerd.md ("Removal") says survives:
 *      the CRDs, the cert-manager, trust-manager and linkerd-crds releases (Pulumi forgets them), the
 *      cert-manager and linkerd namespaces.
 *
 * What the program changes, only in the test and only through a stack transformation, never in the
 * library, because no pod runs here (no kubelet). It is `pulumi.runtime.registerStackTransformation`
 * (applied by the SDK in the program), not `registerResourceTransform`: the Node.js language host the
 * tier builds (v3.68.0, pulumi.ts) proxies the resource monitor and answers RegisterStackTransform with
 * UNIMPLEMENTED, which the SDK turns into an unhandled rejection of `undefined` ("Cannot read properties
 * of undefined (reading 'name')").
 *   - Every `helm.v3.Release` gets `skipAwait: true` (Helm does not wait for pods), `disableWebhooks:
 *     true` (Helm runs no hooks: cert-manager's startupapicheck Job would never finish), and a
 *     post-renderer (written by this test) that drops the charts' admission webhook configurations, whose
 *     Services have no endpoints and would refuse (failurePolicy Fail) or time out every request they
 *     match: cert-manager's `cert-manager-webhook` (Validating and Mutating, on every cert-manager.io
 *     object), trust-manager's `trust-manager` (Validating, on Bundles), and Linkerd's
 *     `linkerd-proxy-injector-webhook-config` (Mutating, on pods), `linkerd-sp-validator-webhook-config`
 *     and `linkerd-policy-validator-webhook-config` (Validating). The test checks it dropped exactly
 *     these. So this tier does not prove that those webhooks admit the platform's objects (no cert-manager
 *     webhook binary is built; trust-manager's would need its configuration pointed at a local URL), nor
 *     that the proxy injector mutates the app's pods, nor that cainjector fills their caBundles (smoke.ts
 *     proves cainjector on a webhook of its own).
 *   - Every other Kubernetes object but cert-manager's and trust-manager's custom resources gets
 *     `pulumi.com/skipAwait: "true"`: Deployments, Jobs (Linkerd's route-CRD wait) and Services would
 *     wait for pods forever. The identity objects keep their awaits, met by the real controllers.
 * Unproven here: anything a pod does (the control planes' and the app's readiness, injection, proxies,
 * the route-CRD wait Job), the charts' hooks, the webhooks above, Google Cloud (the Platform's cluster is
 * an existing one, by kubeconfig). Where a tool or the reference charts are missing it skips (CI=true:
 * fails). `REAL_PLATFORM_LAYER` runs one program (`cert-manager` alone, `building-blocks` or
 * `platform`); `REAL_TIER_KEEP=1` keeps each folder, with every pulumi command's output in
 * `pulumi/output/`.
 */

const name = "real tier platform up";
/**
 * What a program deploys: `cert-manager` (CertManager with trust-manager alone), `building-blocks`
 * (CertManager and Linkerd on an ExistingCluster, charts from `ChartContext.source`), `platform` (the
 * whole `Platform` from a dev stack's config: an existing cluster by kubeconfig, Linkerd, ingress and
 * monitoring off, one app, `platform:chartSource.folder`). `REAL_PLATFORM_LAYER` runs one of them.
 */
const layers = ["cert-manager", "building-blocks", "platform"] as const;
type Layer = (typeof layers)[number];
const defaultLayers: readonly Layer[] = ["building-blocks", "platform"];
/** The whole script's time budget; CI's real tier has 90 minutes for every script and both minors. */
const budgetMs = 15 * 60_000;

interface Check {
  readonly what: string;
  readonly ok: boolean;
  readonly detail?: string;
}

async function main(): Promise<number> {
  const kubernetesVersion = process.argv[2];
  const tools = clusterTools(kubernetesVersion);
  const controllerSet = requireTools(controllerToolNames);
  const pulumiSet = requireTools(pulumiToolNames);
  const skip =
    tools.set.skip ??
    controllerSet.skip ??
    pulumiSet.skip ??
    (chartsDir && !chartsProblem ? undefined : (chartsProblem ?? "no reference charts folder"));
  if (skip) throw new MissingTools(skip);
  const charts = chartsDir ?? "";

  const started = Date.now();
  const checks: Check[] = [];
  const check = (what: string, ok: boolean, detail?: string) => {
    checks.push({ what, ok, detail });
    console.log(`  ${ok ? "ok" : "FAILED"}  ${what}${!ok && detail ? `: ${detail}` : ""}`);
  };
  const budget = setTimeout(() => {
    console.error(`${name}: over its budget of ${budgetMs / 60_000} minutes`);
    process.exit(1);
  }, budgetMs);
  const wanted = process.env.REAL_PLATFORM_LAYER;
  if (wanted && !layers.includes(wanted as Layer))
    throw new Error(`REAL_PLATFORM_LAYER=${wanted}: one of ${layers.join(", ")}`);
  let version = "";
  let engineVersions = "";
  for (const layer of wanted ? [wanted as Layer] : defaultLayers) {
    console.log(`${name}: ${layer}`);
    const ran = await runLayer(layer, kubernetesVersion, charts, (what, ok, detail) =>
      check(`${layer}: ${what}`, ok, detail),
    );
    version = ran.kubernetesVersion;
    engineVersions = ran.engine;
  }
  clearTimeout(budget);
  const failed = checks.filter((c) => !c.ok);
  for (const f of failed) console.log(`  failed: ${f.what}${f.detail ? `: ${f.detail}` : ""}`);
  console.log(
    `${name} (Kubernetes ${version}, ${engineVersions}): ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  console.log(`${checks.length - failed.length} passed, ${failed.length} failed`);
  return failed.length === 0 ? 0 : 1;
}

/**
 * One layer on a control plane of its own (the retained releases of one would collide with the next's):
 * pulumi up with the controllers, preview, a change, destroy, each checked.
 */
async function runLayer(
  layer: Layer,
  kubernetesVersion: string | undefined,
  charts: string,
  check: CheckFn,
): Promise<{ kubernetesVersion: string; engine: string }> {
  const { step, printTimings } = stepTimer();

  const cluster = await startCluster({ kubernetesVersion });
  step(`control plane ${cluster.kubernetesVersion} ready`);
  let controllers: Controllers | undefined;
  let engine: PulumiEngine | undefined;
  let pulumi: PulumiSession | undefined;
  try {
    const work = path.join(cluster.dir, "pulumi");
    engine = pulumiEngine(work, { KUBECONFIG: cluster.kubeconfig });
    const dropped = path.join(work, "dropped-webhooks.log");
    const program = writeProgram(path.join(work, "program"), {
      postrender: postRenderer(path.join(work, "postrender.js"), dropped),
      charts,
    });
    // Each command's output streams into files of its own, shown when the layer fails.
    pulumi = pulumiSession(engine, program, path.join(work, "output"));
    await pulumi(["stack", "init", "real"]);
    await pulumi(["config", "set", "layer", layer]);
    if (layer === "platform") writeDevStackConfig(path.join(program, "Pulumi.real.yaml"), cluster, charts);

    // 1. pulumi up, with the controllers started as soon as their CRDs exist.
    const up = await upWithControllers(cluster, pulumi, step);
    controllers = up.controllers;
    step(`pulumi up (${engine.describe()})`);
    check(`pulumi up: ${summary(up.output)}`, up.crds === "established", up.crds);
    await afterUp(cluster, layer, check);
    const droppedNow = fs.existsSync(dropped) ? fs.readFileSync(dropped, "utf8").trim().split("\n") : [];
    const expectedDrops = droppedWebhooks.filter((w) => layer !== "cert-manager" || !w.includes("linkerd"));
    check(
      `the post-renderer dropped exactly the webhook configurations named in the doc comment: ${[...new Set(droppedNow)].sort().join(", ")}`,
      sameSet(droppedNow, expectedDrops),
      `expected ${expectedDrops.join(", ")}`,
    );
    step("objects, identity chain and trust roots checked");

    // 2. Nothing to do on a second run.
    const again = await pulumi(["preview", "--expect-no-changes", "--diff"]).then(
      (out) => ({ ok: true, out }),
      (err: unknown) => ({ ok: false, out: err instanceof Error ? err.message : String(err) }),
    );
    check("pulumi preview --expect-no-changes after up: no changes", again.ok, again.out.slice(-3000));
    step("pulumi preview --expect-no-changes");

    // 3. A sizing change updates the cert-manager release, and only it.
    await pulumi(
      layer === "platform"
        ? ["config", "set", "--path", "platform:sizing.certManager.replicas", "2"]
        : ["config", "set", "certManagerReplicas", "2"],
    );
    const plan = JSON.parse(await pulumi(["preview", "--json"])) as { steps?: { op: string; urn: string }[] };
    const changed = (plan.steps ?? [])
      .filter((s) => s.op !== "same")
      .map((s) => `${s.op} ${s.urn.replace(/^.*::/, "")} (${s.urn.split("::")[2]?.split("$").pop()})`);
    check(
      `a sizing change (cert-manager's controller replicas 1 → 2) plans exactly one step: ${changed.join("; ") || "none"}`,
      changed.length === 1 && changed[0] === "update cert-manager (kubernetes:helm.sh/v3:Release)",
    );
    const updated = await pulumi(["up", "--yes", "--skip-preview"]);
    const replicas = await cluster.kubectl([
      "get",
      "deployment",
      "cert-manager",
      "-n",
      certManagerNamespace,
      "-o",
      "jsonpath={.spec.replicas}",
    ]);
    check(
      `pulumi up of the change (${summary(updated)}): Deployment cert-manager/cert-manager has 2 replicas`,
      replicas === "2",
      `it has ${replicas}`,
    );
    const revisions = await releaseRevisions(cluster);
    const wantRevisions: Record<string, number> = {
      "cert-manager/cert-manager": 2,
      "cert-manager/trust-manager": 1,
      ...(layer !== "cert-manager" ? { "linkerd/linkerd-crds": 1, "linkerd/linkerd-control-plane": 1 } : {}),
    };
    check(
      `Helm's release history: cert-manager at revision 2, every other release still at 1 (${describeRevisions(revisions)})`,
      JSON.stringify(revisions) === JSON.stringify(sortedRecord(wantRevisions)),
    );
    step("config change applied");

    // 4. Destroy: what is not retained goes, what the docs promise survives stays.
    const destroyed = await pulumi(["destroy", "--yes", "--skip-preview"]);
    step(`pulumi destroy (${summary(destroyed)})`);
    await afterDestroy(cluster, layer, check);
    await pulumi(["stack", "rm", "--yes"]);
    step("state after destroy checked");
  } catch (err) {
    printRunFailure(name, err, pulumi, controllers, cluster);
    check("run to completion", false);
  }
  await controllers?.stop();
  await cluster.stop();
  step("stopped");
  printTimings();
  return { kubernetesVersion: cluster.kubernetesVersion, engine: engine?.describe() ?? "no engine" };
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  const x = [...new Set(a)].sort();
  const y = [...new Set(b)].sort();
  return JSON.stringify(x) === JSON.stringify(y);
}

function sortedRecord<T>(r: Readonly<Record<string, T>>): Record<string, T> {
  return Object.fromEntries(Object.entries(r).sort(([a], [b]) => a.localeCompare(b)));
}

function describeRevisions(r: Readonly<Record<string, number>>): string {
  return (
    Object.entries(r)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ") || "none"
  );
}

/** Each Helm release's latest revision, `namespace/name`, from the Secrets Helm keeps (owner=helm). */
async function releaseRevisions(cluster: Cluster): Promise<Record<string, number>> {
  const out = await cluster.kubectl([
    "get",
    "secret",
    "-A",
    "-l",
    "owner=helm",
    "-o",
    `jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.labels.name} {.metadata.labels.version}{"\\n"}{end}`,
  ]);
  const latest: Record<string, number> = {};
  for (const line of out.split("\n").filter((l) => l.trim())) {
    const [release, version] = line.trim().split(" ");
    latest[release] = Math.max(latest[release] ?? 0, Number(version));
  }
  return sortedRecord(latest);
}

type CheckFn = (what: string, ok: boolean, detail?: string) => void;

/** A field of an object, or undefined where the object is missing. */
async function get(cluster: Cluster, args: readonly string[], jsonpath: string): Promise<string | undefined> {
  return cluster.kubectl(["get", ...args, "-o", `jsonpath=${jsonpath}`]).catch(() => undefined);
}

async function labels(
  cluster: Cluster,
  args: readonly string[],
): Promise<Record<string, string> | undefined> {
  const out = await cluster.kubectl(["get", ...args, "-o", "json"]).catch(() => undefined);
  return out === undefined
    ? undefined
    : ((JSON.parse(out) as { metadata: { labels?: Record<string, string> } }).metadata.labels ?? {});
}

async function secretKey(
  cluster: Cluster,
  namespace: string,
  secret: string,
  key: string,
): Promise<string | undefined> {
  const v = await get(cluster, ["secret", secret, "-n", namespace], `{.data.${key.replace(/\./g, "\\.")}}`);
  return v ? Buffer.from(v, "base64").toString("utf8") : undefined;
}

/** The CRDs each layer's releases install, with whether cert-manager's and trust-manager's keep annotation is expected. */
const keptCrds = [
  "certificates.cert-manager.io",
  "clusterissuers.cert-manager.io",
  "bundles.trust.cert-manager.io",
];
const linkerdCrds = [
  "servers.policy.linkerd.io",
  "serviceprofiles.linkerd.io",
  "authorizationpolicies.policy.linkerd.io",
];

async function afterUp(cluster: Cluster, layer: string, check: CheckFn): Promise<void> {
  for (const crd of keptCrds) {
    const keep = await get(cluster, ["crd", crd], `{.metadata.annotations.helm\\.sh/resource-policy}`);
    check(
      `CRD ${crd} installed by its release with helm.sh/resource-policy: keep`,
      keep === "keep",
      `annotation: ${keep ?? "(no CRD)"}`,
    );
  }
  const issuers = ["linkerd-trust-root-issuer", "linkerd-identity-issuer"];
  if (layer === "cert-manager") return;
  for (const crd of linkerdCrds)
    check(
      `CRD ${crd} installed by the linkerd-crds release`,
      (await get(cluster, ["crd", crd], "{.metadata.name}")) === crd,
    );

  const want = {
    ...podSecurityLabels("privileged"),
    [linkerdFacts.controlPlaneNamespaceLabel]: "true",
    "config.linkerd.io/admission-webhooks": "disabled",
    "linkerd.io/control-plane-ns": linkerdNamespace,
    "kubernetes.io/metadata.name": linkerdNamespace,
  };
  const got = await labels(cluster, ["namespace", linkerdNamespace]);
  check(
    `namespace ${linkerdNamespace} has exactly the labels the chart expects: ${JSON.stringify(sortedRecord(got ?? {}))}`,
    JSON.stringify(sortedRecord(got ?? {})) === JSON.stringify(sortedRecord(want)),
    `want ${JSON.stringify(sortedRecord(want))}`,
  );
  if (layer === "platform") {
    const ns = await get(cluster, ["namespace", "shop"], "{.metadata.annotations.linkerd\\.io/inject}");
    check(`the app's namespace shop is enrolled in the mesh (linkerd.io/inject: ${ns})`, ns === "enabled");
    const image = await get(
      cluster,
      ["deployment", "shop", "-n", "shop"],
      "{.spec.template.spec.containers[0].image}",
    );
    check(`the app's Deployment shop/shop is admitted (image ${image})`, !!image);
  }
  for (const issuer of issuers)
    check(
      `ClusterIssuer ${issuer} Ready`,
      (await get(cluster, ["clusterissuer", issuer], `{.status.conditions[?(@.type=="Ready")].status}`)) ===
        "True",
    );

  // Every Certificate the platform and the charts made, Ready: the engine waited for the identity ones.
  const certificates = (
    await cluster.kubectl([
      "get",
      "certificate",
      "-A",
      "-o",
      `jsonpath={range .items[*]}{.metadata.namespace}/{.metadata.name}={.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}`,
    ])
  )
    .split("\n")
    .filter((l) => l.trim());
  const expected = [
    `${certManagerNamespace}/${linkerdIdentityNames.trustAnchor}`,
    `${linkerdNamespace}/${linkerdIdentityNames.identityIssuer}`,
    ...linkerdFacts.webhooks.controlPlane.map((w) => `${linkerdNamespace}/${w.service}`),
  ];
  const present = certificates.map((l) => l.split("=")[0]);
  check(
    `the Certificates the platform emits exist: ${expected.join(", ")}`,
    expected.every((c) => present.includes(c)),
    `present: ${present.join(", ")}`,
  );
  const notReady = certificates.filter((l) => !l.endsWith("=True"));
  check(
    `every Certificate (${certificates.length}, the charts' own included) Ready`,
    notReady.length === 0,
    notReady.join(", "),
  );

  // The chain: the identity issuer verifies against the trust anchor, which trust-manager distributed.
  const anchor = await secretKey(cluster, certManagerNamespace, linkerdIdentityNames.trustAnchor, "tls.crt");
  const issuerCrt = await secretKey(cluster, linkerdNamespace, linkerdFacts.issuerSecret, "tls.crt");
  const roots = await get(
    cluster,
    ["configmap", linkerdFacts.trustRootsConfigMap, "-n", linkerdNamespace],
    `{.data.${linkerdFacts.trustRootsKey.replace(/\./g, "\\.")}}`,
  );
  if (!anchor || !issuerCrt || !roots) {
    check(
      "the trust anchor, identity issuer and trust roots exist",
      false,
      `anchor ${!!anchor}, issuer ${!!issuerCrt}, trust roots ConfigMap ${!!roots}`,
    );
    return;
  }
  const dir = path.join(cluster.dir, "platform-up");
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "roots.pem"), roots);
  fs.writeFileSync(path.join(dir, "issuer.pem"), issuerCrt);
  const verified = await run(openssl, [
    "verify",
    "-CAfile",
    path.join(dir, "roots.pem"),
    path.join(dir, "issuer.pem"),
  ]).catch((e: Error) => e.message);
  check(
    `identity issuer ${linkerdNamespace}/${linkerdFacts.issuerSecret} verifies (openssl) against ConfigMap ${linkerdFacts.trustRootsConfigMap}, which holds the trust anchor`,
    verified.trim().endsWith(": OK") && roots.replace(/\s+/g, "").includes(anchor.replace(/\s+/g, "")),
    verified,
  );

  // The order the library's dependsOn and awaits promise: Helm installed the control plane only after
  // cert-manager had issued its identity issuer and trust-manager had written the trust roots.
  const installed = await get(
    cluster,
    ["secret", "sh.helm.release.v1.linkerd-control-plane.v1", "-n", linkerdNamespace],
    "{.metadata.creationTimestamp}",
  );
  const issued = await get(
    cluster,
    ["certificate", linkerdIdentityNames.identityIssuer, "-n", linkerdNamespace],
    `{.status.conditions[?(@.type=="Ready")].lastTransitionTime}`,
  );
  const synced = await get(
    cluster,
    ["bundle", linkerdIdentityNames.trustRoots],
    `{.status.conditions[?(@.type=="Synced")].lastTransitionTime}`,
  );
  check(
    `linkerd-control-plane installed (${installed}) after its identity issuer was Ready (${issued}) and its trust roots Synced (${synced}), to the second`,
    !!installed &&
      !!issued &&
      !!synced &&
      Date.parse(issued) <= Date.parse(installed) &&
      Date.parse(synced) <= Date.parse(installed),
  );
}

async function afterDestroy(cluster: Cluster, layer: string, check: CheckFn): Promise<void> {
  for (const crd of [...keptCrds, ...(layer !== "cert-manager" ? linkerdCrds : [])])
    check(
      `CRD ${crd} survives pulumi destroy`,
      (await get(cluster, ["crd", crd], "{.metadata.name}")) === crd,
    );
  const revisions = await releaseRevisions(cluster);
  const kept = [
    "cert-manager/cert-manager",
    "cert-manager/trust-manager",
    ...(layer !== "cert-manager" ? ["linkerd/linkerd-crds"] : []),
  ];
  check(
    `the releases that install CRDs are retained (Pulumi forgets them), the others uninstalled: ${describeRevisions(revisions)}`,
    sameSet(Object.keys(revisions), kept),
    `want ${kept.join(", ")}`,
  );
  for (const ns of [certManagerNamespace, ...(layer !== "cert-manager" ? [linkerdNamespace] : [])])
    check(
      `namespace ${ns} survives (retained with the releases inside it)`,
      (await get(cluster, ["namespace", ns], "{.status.phase}")) === "Active",
    );
  check(
    "Deployment cert-manager/cert-manager survives with its release",
    (await get(cluster, ["deployment", "cert-manager", "-n", certManagerNamespace], "{.metadata.name}")) ===
      "cert-manager",
  );
  if (layer === "cert-manager") return;
  const left = (
    await cluster.kubectl(["get", "deployment,job,certificate,bundle", "-n", linkerdNamespace, "-o", "name"])
  ).trim();
  check(
    "the Linkerd control plane, its route-CRD wait Job and its Certificates are gone from namespace linkerd",
    left === "",
    left,
  );
  if (layer === "platform") {
    const gone = await waitFor(
      "namespace shop deleted",
      async () => ((await get(cluster, ["namespace", "shop"], "{.metadata.name}")) ? undefined : true),
      { timeoutMs: 60_000, intervalMs: 500 },
    ).catch(() => false);
    check("the app's namespace shop and everything in it are deleted (not retained)", gone);
  }
  const issuersLeft = (await cluster.kubectl(["get", "clusterissuer", "-o", "name"])).trim();
  check(
    "the ClusterIssuers and the Bundle are gone",
    issuersLeft === "" && (await cluster.kubectl(["get", "bundle", "-o", "name"])).trim() === "",
    issuersLeft,
  );
}

runTierScript(name, main);
