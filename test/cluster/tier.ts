import {
  HelmTemplater,
  checkClusterInvariants,
  clusterInvariants,
  findHelm,
  objectSetOf,
  type ClusterFinding,
} from "../../lib/cluster";
import { clusterInputOf, kubernetesObjects } from "../../lib/render";
import { checkInvariants } from "../../lib/safety";
import { viewsOf } from "../../lib/render";
import { validateObjects, type KubeObjectLike } from "../validation/schemas";
import { supportedKubernetes } from "../../lib/versions";
import { ConfigError } from "../../lib/config";
import {
  clusterModeTargets,
  combinationTargets,
  extraTargets,
  projectTargets,
  teamTargets,
  type RenderTarget,
} from "../matrix";
import { renderCrossings } from "./renderCrossings";
import { knownFailures, type KnownFailure } from "./knownFailures";
import { checkQueries, renderQueries, type QueryFinding } from "./queries";
import { chartsDir, chartsProblem } from "../upstream/reference";

/**
 * The cluster tier and the combination matrix: every stack, every example, and every combination of
 * mesh x ingress x monitoring backend x tier x deny by default (test/matrix.ts), plus each cluster mode,
 * the options the combinations leave out, and two teams with every mesh variant (`teamCombinations`).
 * A combination the platform cannot build must be refused with its reason, one ConfigError naming each
 * field; every other one renders, its objects validate
 * strictly against the published schemas, every safety invariant holds, its deployment order holds
 * (renderCrossings), and each Helm release is templated by a real Helm 3 with its pinned chart
 * and the platform's exact values, at the lowest and highest Kubernetes version the platform supports,
 * joined with the platform's own objects and the proxies admission adds; every cluster invariant is
 * checked on each object set. Findings must be exactly the known failures
 * (test/cluster/knownFailures.ts): a new one fails, and so does a listed one that no longer occurs, so
 * the list only shrinks.
 *
 * CLUSTER_TIER_ONLY=<text> runs only the renders whose label contains it (while working on one
 * finding; known failures that do not occur there are then not reported as stale).
 *
 * Beside the invariants, the dashboard consistency check (test/cluster/queries.ts, `queries-served`): every
 * dashboard the render links or its mesh ships, and every rule in its object set, asks only for series its
 * monitors produce. The dashboards are read from the reference's upstream/dashboards; where they are
 * missing the dashboards are skipped, saying why, and the rules are still checked.
 *
 * The pinned charts are the reference's (test/upstream/reference.ts: `npm run reference` makes it from
 * ../shared/reference; CHARTS_DIR names another chart folder), HELM the helm binary (default:
 * helm on PATH, or the one .ci/run builds). Where either is missing, the tier skips and says why; with
 * CI=true it fails instead.
 */

interface Occurrence {
  readonly target: string;
  readonly kubeVersion: string;
  readonly finding: ClusterFinding | QueryFinding;
}

async function main(): Promise<number> {
  const started = Date.now();
  const helm = findHelm();
  const missing = [
    ...(helm ? [] : ["no helm binary (set HELM, put helm on PATH, or run .ci/run, which builds one)"]),
    ...(chartsProblem ? [chartsProblem] : []),
  ];
  if (missing.length > 0 || !helm || !chartsDir) {
    const reason = `cluster tier: ${missing.join("; ")}`;
    if (process.env.CI === "true") {
      console.error(`${reason}: CI must run it`);
      return 1;
    }
    console.log(`${reason}: skipped`);
    return 0;
  }

  const templater = new HelmTemplater(helm, 2);
  const versions = [supportedKubernetes.lowest, supportedKubernetes.highest];
  const only = process.env.CLUSTER_TIER_ONLY;
  const targets: RenderTarget[] = [
    ...projectTargets(),
    ...combinationTargets(),
    ...clusterModeTargets(),
    ...extraTargets(),
    ...teamTargets(),
  ].filter((t) => !only || t.label.includes(only));
  const occurrences: Occurrence[] = [];
  /** Targets that went wrong outside the invariants: a refusal missing or wrong, a render failing, the order of deployment. */
  const failures: string[] = [];
  let sets = 0;
  let releases = 0;
  let refused = 0;
  let queriesSkipped: string | undefined;
  let queriesChecked = 0;
  for (const [i, target] of targets.entries()) {
    let result;
    try {
      result = await target.render();
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (target.refusedBecause && err instanceof ConfigError && target.refusedBecause.test(message)) {
        // One message, every problem naming a field, what is wrong and the fix.
        const unnamed = err.problems.filter((p) => !p.path.startsWith("platform:") || !p.fix);
        if (unnamed.length > 0) failures.push(`${target.label}: refused without naming a field and a fix`);
        refused++;
      } else {
        failures.push(
          `${target.label}: ${target.refusedBecause ? "refused for another reason" : "failed"}: ${message}`,
        );
      }
      continue;
    }
    if (target.refusedBecause) {
      failures.push(
        `${target.label}: rendered, but the platform cannot build it (${target.refusedBecause.source})`,
      );
      continue;
    }
    failures.push(...renderCrossings(result).map((p) => `${target.label}: ${p}`));
    // Every object validates strictly against the published schemas, and every safety invariant holds.
    for (const [object, problems] of await validateObjects(
      kubernetesObjects(result).map((o) => o.inputs as KubeObjectLike),
    ))
      failures.push(`${target.label}: ${object}: ${problems.join("; ")}`);
    failures.push(...checkInvariants(viewsOf(result)).map((v) => `${target.label}: ${v.message}`));
    const input = clusterInputOf(target.label, target.tier, result);
    for (const kubeVersion of versions) {
      const set = await objectSetOf(input, { templater, chartsDir, kubeVersion });
      sets++;
      releases += set.releases.length;
      for (const finding of checkClusterInvariants(set))
        occurrences.push({ target: target.label, kubeVersion, finding });
      const { queries, missing: noDashboards } = renderQueries(set);
      queriesSkipped ??= noDashboards;
      queriesChecked += queries.reduce((n, q) => n + q.exprs.length, 0);
      for (const finding of checkQueries(set, queries))
        occurrences.push({ target: target.label, kubeVersion, finding });
    }
    if ((i + 1) % 100 === 0) console.log(`  ${i + 1}/${targets.length} targets`);
  }

  const unexpected = occurrences.filter((o) => !knownFailures.some((k) => matches(k, o)));
  const stale = only ? [] : knownFailures.filter((k) => !occurrences.some((o) => matches(k, o)));
  const invariantCount = Object.keys(clusterInvariants).length;
  console.log(
    [
      `combination matrix and cluster tier: ${targets.length} targets (stacks, examples, ${combinationTargets().length} combinations, cluster modes, options, ${teamTargets().length} team renders): ${refused} refused as they must be, ${targets.length - refused - failures.filter((f) => f.includes(": failed")).length} rendered`,
      `  object sets: ${sets} (each rendered target at ${versions.length} Kubernetes versions: ${versions.join(", ")})`,
      `  releases templated: ${releases} (${templater.runs} distinct helm runs)`,
      `  invariants checked: ${invariantCount} on each object set = ${invariantCount * sets}`,
      `  dashboard and rule queries checked against the monitors: ${queriesChecked}${queriesSkipped ? ` (dashboards skipped: ${queriesSkipped})` : ""}`,
      `  findings: ${occurrences.length}, all known: ${unexpected.length === 0}; known failures listed: ${knownFailures.length}`,
      `  wall time: ${((Date.now() - started) / 1000).toFixed(1)} s`,
    ].join("\n"),
  );
  for (const k of knownFailures) {
    const n = occurrences.filter((o) => matches(k, o)).length;
    console.log(`  known (${k.owner}) ${k.invariant} ${k.object.source}: ${n} occurrences`);
  }
  if (unexpected.length > 0) {
    console.error(`\n${unexpected.length} findings are not known failures:`);
    const seen = new Set<string>();
    for (const o of unexpected) {
      const key = `${o.finding.invariant} ${o.finding.object} ${o.finding.message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      console.error(
        `  [${o.finding.invariant}] ${o.target} @ ${o.kubeVersion}: ${o.finding.object} ${o.finding.message}`,
      );
    }
  }
  if (stale.length > 0) {
    console.error(
      `\n${stale.length} known failures no longer occur; remove them from test/cluster/knownFailures.ts:`,
    );
    for (const k of stale) console.error(`  ${k.invariant} ${k.object.source} (${k.reason})`);
  }
  if (failures.length > 0) {
    console.error(`\n${failures.length} targets went wrong:`);
    for (const f of failures) console.error(`  ${f}`);
  }
  return unexpected.length > 0 || stale.length > 0 || failures.length > 0 ? 1 : 0;
}

function matches(k: KnownFailure, o: Occurrence): boolean {
  return (
    k.invariant === o.finding.invariant &&
    k.object.test(o.finding.object) &&
    (k.target === undefined || k.target.test(o.target))
  );
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`cluster tier failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
