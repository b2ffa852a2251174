import { execFileSync } from "child_process";
import { createHash } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { clusterTools, MissingTools, startCluster } from "./apiServer";
import { controllerToolNames, type Controllers } from "./controllers";
import {
  postRenderer,
  pulumiSession,
  repositoryRoot,
  summary,
  upWithControllers,
  writeDevStackConfig,
  writeProgram,
  type ProgramSource,
  type PulumiSession,
  printRunFailure,
} from "./platformProgram";
import { pulumiEngine, pulumiToolNames, type PulumiEngine } from "./pulumi";
import { run } from "./processes";
import { runTierScript, stepTimer } from "./script";
import { cacheDir, requireTools } from "./tools";
import { chartsDir, chartsProblem } from "../upstream/reference";

/**
 * An upgrade over the last release, through the real Pulumi engine: `npx tsx test/real/upgrade.ts
 * [kubernetes minor]`. The whole `Platform` of the dev stack platformUp.ts deploys (platformProgram.ts:
 * the same program, stack transformation, post-renderer and config), on a control plane of its own, in
 * one Pulumi stack and state:
 *   1. `pulumi up` with the previous release's `lib/`, the real cert-manager, cainjector and
 *      trust-manager started as soon as their CRDs exist;
 *   2. `pulumi preview --json` with this tree's `lib/`: the engine's steps hold no replacement
 *      (`replace`, `create-replacement`, `delete-replaced`) but those `allowedReplacements` names, each
 *      with its reason;
 *   3. `pulumi up` with this tree's `lib/` succeeds: the API server refuses no change (an immutable field
 *      changed in place), and the engine replaces nothing beyond the allowed;
 *   4. `pulumi preview --expect-no-changes`: the upgraded stack is stable.
 *
 * The previous release: `REAL_UPGRADE_FROM=<ref>` where set; else the nearest `v*` tag reachable from
 * `HEAD^` (a release before the commit under test, never its own tag); else `HEAD^`, the last commit of
 * main before the change (CI runs on a fresh clone of main whose HEAD is the commit under test). Its tree
 * comes out of git (`git archive`) into a temporary folder; its node_modules are this tree's where its
 * package-lock.json is the same, else `npm ci` of its lockfile into the cache folder
 * (`<cache>/upgrade-node-modules/<lockfile sha-256>`), once per lockfile. A previous release that cannot
 * run this program (no `Platform` or `loadPlan`, or a config without `platform:chartSource.folder`) fails
 * the script, saying so: it never skips. What it leaves unproven is platformUp.ts's (no pod runs: the
 * stack transformation's `skipAwait`s, no Helm hooks, no admission webhooks), and upgrades of the parts
 * the dev stack leaves off (ingress, monitoring, Istio, Google Cloud). `REAL_TIER_KEEP=1` keeps the
 * folders, with every pulumi command's output in `pulumi/output/`.
 */

const name = "real tier upgrade";
/** The whole script's time budget: CI's real tier keeps each minor under 10 minutes. */
const budgetMs = 8 * 60_000;

/**
 * The replacements an upgrade from the previous release may plan, reviewed: `<type> <name>` as the
 * engine's URN ends (e.g. `kubernetes:apps/v1:Deployment shop-shop`), each with the reason the change
 * replaces it. Empty: an upgrade replaces nothing.
 */
const allowedReplacements: readonly { readonly resource: string; readonly reason: string }[] = [];

/** The engine's operations that replace an object, one of them per replaced resource at least. */
const replacementOps = new Set(["replace", "create-replacement", "delete-replaced"]);

interface Check {
  readonly what: string;
  readonly ok: boolean;
  readonly detail?: string;
}

interface PreviousRelease {
  /** The ref as given or found (a tag, `HEAD^`, or REAL_UPGRADE_FROM's value). */
  readonly ref: string;
  readonly commit: string;
  /** Why this ref: the override, the nearest tag or the first parent. */
  readonly why: string;
}

function git(args: readonly string[]): string {
  return execFileSync("git", args, {
    cwd: repositoryRoot,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  }).trim();
}

function commitOf(ref: string): string | undefined {
  try {
    return git(["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  } catch {
    return undefined;
  }
}

/** The previous release: REAL_UPGRADE_FROM, else the nearest `v*` tag before HEAD, else HEAD^. */
function previousRelease(env: NodeJS.ProcessEnv = process.env): PreviousRelease {
  const override = env.REAL_UPGRADE_FROM;
  if (override) {
    const commit = commitOf(override);
    if (!commit)
      throw new Error(
        `REAL_UPGRADE_FROM=${override}: not a commit of this repository; set it to a tag, branch or commit (git rev-parse must resolve it), or unset it for the nearest v* tag or HEAD^`,
      );
    return { ref: override, commit, why: "REAL_UPGRADE_FROM" };
  }
  const parent = commitOf("HEAD^");
  if (!parent)
    throw new Error(
      "no previous release: HEAD has no parent here (a shallow clone?) and so no v* tag before it; fetch the history (git fetch --unshallow) or set REAL_UPGRADE_FROM=<ref>",
    );
  let tag: string | undefined;
  try {
    tag = git(["describe", "--tags", "--abbrev=0", "--match", "v*", "HEAD^"]);
  } catch {
    tag = undefined; // no v* tag before HEAD
  }
  if (tag) return { ref: tag, commit: commitOf(tag)!, why: "the nearest v* tag before HEAD" };
  return { ref: "HEAD^", commit: parent, why: "no v* tag: the last commit before HEAD" };
}

/**
 * The previous release's tree in `dir` (`git archive`, outside the work tree), with its node_modules
 * linked: this tree's where the lockfiles are the same, else its own lockfile's `npm ci` in the cache.
 * Says which.
 */
async function materialize(
  previous: PreviousRelease,
  dir: string,
): Promise<ProgramSource & { readonly modules: string }> {
  const archive = `${dir}.tar`;
  git(["archive", "--format=tar", "-o", archive, previous.commit]);
  fs.mkdirSync(dir, { recursive: true });
  await run("tar", ["-xf", archive, "-C", dir]);
  fs.rmSync(archive);
  for (const file of ["lib/index.ts", "package.json", "package-lock.json"])
    if (!fs.existsSync(path.join(dir, file)))
      throw new Error(
        `the previous release ${previous.ref} (${previous.commit.slice(0, 7)}) has no ${file}, so it cannot run this program; set REAL_UPGRADE_FROM to a later ref`,
      );
  const lock = fs.readFileSync(path.join(dir, "package-lock.json"));
  let nodeModules: string;
  let modules: string;
  if (lock.equals(fs.readFileSync(path.join(repositoryRoot, "package-lock.json")))) {
    nodeModules = fs.realpathSync(path.join(repositoryRoot, "node_modules"));
    modules = "this tree's node_modules (same package-lock.json)";
  } else {
    const key = createHash("sha256").update(lock).digest("hex").slice(0, 16);
    const target = path.join(cacheDir(), "upgrade-node-modules", key);
    if (!fs.existsSync(path.join(target, "node_modules"))) {
      // Installed beside, then renamed: a folder that exists is a finished install.
      const partial = `${target}.partial-${process.pid}`;
      fs.rmSync(partial, { recursive: true, force: true });
      fs.mkdirSync(partial, { recursive: true });
      for (const file of ["package.json", "package-lock.json"])
        fs.copyFileSync(path.join(dir, file), path.join(partial, file));
      console.log(`${name}: npm ci of ${previous.ref}'s package-lock.json into ${target}`);
      // No install script, as .ci/run installs this tree's: none is needed to load lib/.
      await run("npm", ["ci", "--ignore-scripts", "--no-audit", "--no-fund"], {
        cwd: partial,
        env: {
          ...process.env,
          PATH: [path.dirname(process.execPath), process.env.PATH ?? ""].join(path.delimiter),
        },
      });
      fs.rmSync(target, { recursive: true, force: true });
      fs.renameSync(partial, target);
    }
    nodeModules = path.join(target, "node_modules");
    modules = `its own package-lock.json's, npm ci into ${target}`;
  }
  fs.symlinkSync(nodeModules, path.join(dir, "node_modules"));
  // What the program requires of the library (platformProgram.ts), loaded as the program will load it.
  const missing = (
    await run(
      process.execPath,
      [
        "-e",
        [
          `require("tsx/cjs/api").register();`,
          `const lib = require("./lib/index.ts");`,
          `console.log(["Platform", "loadPlan"].filter((n) => typeof lib[n] !== "function").join(" "));`,
        ].join("\n"),
      ],
      { cwd: dir },
    ).catch((err: Error) => `(lib/index.ts does not load: ${err.message.slice(-1500)})`)
  ).trim();
  if (missing)
    throw new Error(
      `the previous release ${previous.ref} (${previous.commit.slice(0, 7)}) cannot run this program, the whole Platform of a dev stack: lib/index.ts lacks ${missing}; set REAL_UPGRADE_FROM to a later ref`,
    );
  return { root: dir, nodeModules, modules };
}

/** A preview's steps: each resource once, by `<type> <name>`, with its operation and why. */
interface PlannedStep {
  readonly resource: string;
  readonly op: string;
  readonly reasons: readonly string[];
}

function plannedSteps(previewJson: string): PlannedStep[] {
  const plan = JSON.parse(previewJson) as {
    steps?: { op: string; urn: string; diffReasons?: string[]; replaceReasons?: string[] }[];
  };
  const byResource = new Map<string, PlannedStep>();
  for (const s of plan.steps ?? []) {
    const parts = s.urn.split("::");
    const resource = `${parts[2]?.split("$").pop() ?? "?"} ${parts[3] ?? "?"}`;
    const op = replacementOps.has(s.op) ? "replace" : s.op;
    const seen = byResource.get(resource);
    // A replacement shows as up to three steps of one resource: counted once, as `replace`.
    if (seen && seen.op === "replace") continue;
    byResource.set(resource, { resource, op, reasons: s.replaceReasons ?? s.diffReasons ?? [] });
  }
  return [...byResource.values()];
}

/** `same 20, update 2, create 1, delete 0, replace 0`, and any other operation after them. */
function stepCounts(steps: readonly PlannedStep[]): string {
  const counts = new Map<string, number>(
    ["same", "update", "create", "delete", "replace"].map((op) => [op, 0]),
  );
  for (const s of steps) counts.set(s.op, (counts.get(s.op) ?? 0) + 1);
  return [...counts].map(([op, n]) => `${op} ${n}`).join(", ");
}

async function main(): Promise<number> {
  const kubernetesVersion = process.argv[2];
  const tools = clusterTools(kubernetesVersion);
  const skip =
    tools.set.skip ??
    requireTools(controllerToolNames).skip ??
    requireTools(pulumiToolNames).skip ??
    (chartsDir && !chartsProblem ? undefined : (chartsProblem ?? "no reference charts folder"));
  if (skip) throw new MissingTools(skip);
  const charts = chartsDir ?? "";
  const previous = previousRelease();
  const current = git(["rev-parse", "HEAD"]);
  const dirty = git(["status", "--porcelain", "--untracked-files=no", "--", "lib"]) !== "";
  console.log(
    `${name}: from ${previous.ref} (${previous.commit.slice(0, 7)}, ${previous.why}) to this tree (${current.slice(0, 7)}${dirty ? " with uncommitted changes in lib/" : ""})`,
  );

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
  const { step, printTimings } = stepTimer();

  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "real-upgrade-"));
  const from = await materialize(previous, path.join(scratch, "previous"));
  console.log(`${name}: ${previous.ref}'s tree in ${from.root}, node_modules: ${from.modules}`);
  step(`previous release's tree (${from.modules})`);
  const cluster = await startCluster({ kubernetesVersion });
  step(`control plane ${cluster.kubernetesVersion} ready`);
  let controllers: Controllers | undefined;
  let engine: PulumiEngine | undefined;
  let pulumi: PulumiSession | undefined;
  let counts = "no plan";
  try {
    const work = path.join(cluster.dir, "pulumi");
    engine = pulumiEngine(work, { KUBECONFIG: cluster.kubeconfig });
    const postrender = postRenderer(
      path.join(work, "postrender.js"),
      path.join(work, "dropped-webhooks.log"),
    );
    const programDir = path.join(work, "program");
    const program = writeProgram(programDir, { postrender, charts, source: from });
    pulumi = pulumiSession(engine, program, path.join(work, "output"));
    await pulumi(["stack", "init", "real"]);
    await pulumi(["config", "set", "layer", "platform"]);
    writeDevStackConfig(path.join(program, "Pulumi.real.yaml"), cluster, charts);

    // 1. The previous release, as users have it.
    const up = await upWithControllers(cluster, pulumi, step).catch((err: Error) => {
      throw new Error(
        `pulumi up with the previous release ${previous.ref} (${previous.commit.slice(0, 7)}) failed; where that release cannot run this program (the whole Platform of a dev stack with platform:chartSource.folder), set REAL_UPGRADE_FROM to a later ref: ${err.message}`,
      );
    });
    controllers = up.controllers;
    step(`pulumi up with ${previous.ref}`);
    check(`pulumi up with ${previous.ref}: ${summary(up.output)}`, up.crds === "established", up.crds);

    // 2. The plan of the upgrade: the same program and stack, this tree's lib/.
    writeProgram(programDir, { postrender, charts });
    const steps = plannedSteps(await pulumi(["preview", "--json", "--show-sames"]));
    counts = stepCounts(steps);
    step("pulumi preview --json --show-sames with this tree");
    const changed = steps.filter((s) => s.op !== "same");
    console.log(`  plan: ${counts}`);
    for (const s of changed)
      console.log(`    ${s.op} ${s.resource}${s.reasons.length ? ` (${s.reasons.join(", ")})` : ""}`);
    const allowed = new Set(allowedReplacements.map((a) => a.resource));
    const replaced = changed.filter((s) => s.op === "replace");
    const unexpected = replaced.filter((s) => !allowed.has(s.resource));
    check(
      `the upgrade's plan replaces nothing beyond the reviewed allowlist (${allowedReplacements.length} entries): ${replaced.length} replacement(s)`,
      unexpected.length === 0,
      unexpected
        .map((s) => `${s.resource} (${s.reasons.join(", ") || "no reason given"})`)
        .concat(
          "each replaced object is deleted and created again (a Deployment's pods, a Job's run, a Secret's data); change the library so the upgrade updates it in place, or name it in allowedReplacements (test/real/upgrade.ts) with the reason",
        )
        .join("; "),
    );

    // 3. The upgrade itself: the API server refuses no change to an immutable field.
    const upgraded = await pulumi(["up", "--yes", "--skip-preview"]).then(
      (out) => ({ ok: true, out }),
      (err: Error) => ({ ok: false, out: err.message }),
    );
    step("pulumi up with this tree");
    const immutable = upgraded.out
      .split("\n")
      .filter((l) => /field is immutable/i.test(l))
      .slice(0, 5);
    check(
      `pulumi up with this tree: ${upgraded.ok ? summary(upgraded.out) : "failed"}; no immutable-field error from the API server`,
      upgraded.ok && immutable.length === 0,
      immutable.length ? immutable.join("\n") : upgraded.out.slice(-3000),
    );
    const replacedInUp = /(\d+) replaced/.exec(upgraded.ok ? summary(upgraded.out) : "");
    const replacedCount = Number(replacedInUp?.[1] ?? 0);
    check(
      `pulumi up with this tree replaced ${replacedCount} object(s), none beyond the allowlist`,
      replacedCount <= replaced.length - unexpected.length,
    );

    // 4. Stable after the upgrade.
    const again = await pulumi(["preview", "--expect-no-changes", "--diff"]).then(
      (out) => ({ ok: true, out }),
      (err: unknown) => ({ ok: false, out: err instanceof Error ? err.message : String(err) }),
    );
    check(
      "pulumi preview --expect-no-changes after the upgrade: no changes",
      again.ok,
      again.out.slice(-3000),
    );
    step("pulumi preview --expect-no-changes");
  } catch (err) {
    printRunFailure(name, err, pulumi, controllers, cluster);
    check("run to completion", false);
  }
  await controllers?.stop();
  await cluster.stop();
  if (process.env.REAL_TIER_KEEP === "1") console.log(`${name}: kept ${scratch}`);
  else fs.rmSync(scratch, { recursive: true, force: true });
  step("stopped");
  clearTimeout(budget);
  printTimings();
  const failed = checks.filter((c) => !c.ok);
  for (const f of failed) console.log(`  failed: ${f.what}${f.detail ? `: ${f.detail}` : ""}`);
  console.log(
    `${name} from ${previous.ref} (${previous.commit.slice(0, 7)}) (Kubernetes ${cluster.kubernetesVersion}, ${engine?.describe() ?? "no engine"}): plan ${counts}; ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  console.log(`${checks.length - failed.length} passed, ${failed.length} failed`);
  return failed.length === 0 ? 0 : 1;
}

runTierScript(name, main);
