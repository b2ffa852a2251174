import { clusterChecks, driftCheck, renderForDrift, type StackRender } from "./checks";
import { CannotCheck, ClusterReads, type Check } from "./context";
import { kubectlSource } from "./kubectl";
import {
  checkNames,
  checkTitles,
  exitCodeOf,
  type CheckName,
  type CheckRun,
  type DoctorReport,
  type Finding,
  type Note,
} from "./report";
import { dateText } from "./objects";
import { resources, type ResourceType } from "./resources";
import type { KubeSource } from "./source";

/** What `doctor()` reads, and how: the cluster (kubectl and its kubeconfig, or a source), which checks, when. */
export interface DoctorOptions {
  /** The kubeconfig file. @default kubectl's own: KUBECONFIG, else ~/.kube/config */
  readonly kubeconfig?: string;
  /** The kubeconfig context. @default its current context */
  readonly context?: string;
  /** The kubectl binary. @default KUBECTL, else kubectl on PATH, else the tools cache's */
  readonly kubectl?: string;
  /**
   * Also compare the cluster with a stack's render: the program's folder (the one with Pulumi.yaml) and
   * the stack. @default no drift check
   */
  readonly stack?: { readonly program: string; readonly stack: string };
  /** Load a TypeScript program with ts-node, as Pulumi does, unless the process loads TypeScript already. @default true */
  readonly registerTypeScript?: boolean;
  /** A stack's render already made, instead of `stack`. */
  readonly render?: StackRender;
  /** Read the cluster from this source instead of kubectl (objects in memory: a dump, a test). */
  readonly source?: KubeSource;
  /** Run only these checks. @default every check (drift only with a stack) */
  readonly checks?: readonly CheckName[];
  /** The moment expiry is judged against. @default now */
  readonly now?: Date;
}

/**
 * Reads a live cluster with the user's kubectl and credentials, get and list only, and reports what
 * would cause a known outage: each finding with its severity, the objects involved and the fix.
 * A check the identity may not read says so ("could not check: no permission to list ...") instead of
 * failing; a cluster that cannot be read at all is a `DoctorError`.
 */
export async function doctor(options: DoctorOptions = {}): Promise<DoctorReport> {
  const source =
    options.source ??
    kubectlSource({ kubeconfig: options.kubeconfig, context: options.context, kubectl: options.kubectl });
  const cluster = await source.describe();
  const now = options.now ?? new Date();
  const render =
    options.render ??
    (options.stack
      ? await renderForDrift({ ...options.stack, registerTypeScript: options.registerTypeScript })
      : undefined);
  const wanted = new Set(options.checks ?? checkNames);
  const reads = new ClusterReads(source);
  if (!options.checks) {
    // Every type the checks read, listed at once (kubectl runs a few at a time); the checks share them.
    await Promise.allSettled((Object.values(resources) as ResourceType[]).map((t) => reads.list(t)));
  }

  const checks: CheckRun[] = [];
  const findings: Finding[] = [];
  const notes: Note[] = [];
  for (const name of checkNames) {
    const check: Check | undefined =
      name === "drift" ? (render ? driftCheck(render) : undefined) : clusterChecks[name];
    if (!wanted.has(name) || !check) {
      checks.push({ name, title: checkTitles[name], status: "skipped", unchecked: [] });
      continue;
    }
    const unchecked: string[] = [];
    try {
      const result = await check(reads.contextFor(now, unchecked));
      findings.push(...result.findings.map((f) => ({ check: name, ...f })));
      notes.push(...(result.notes ?? []).map((n) => ({ check: name, ...n })));
      checks.push({
        name,
        title: checkTitles[name],
        status: unchecked.length > 0 ? "partial" : "ran",
        unchecked,
      });
    } catch (err) {
      if (!(err instanceof CannotCheck)) throw err;
      checks.push({
        name,
        title: checkTitles[name],
        status: "could not check",
        unchecked: [err.message, ...unchecked],
      });
    }
  }
  return { cluster, at: dateText(now), checks, findings, notes, exitCode: exitCodeOf(findings, checks) };
}
