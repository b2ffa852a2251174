import type { ClusterIdentity } from "./source";

// What the doctor finds, and how it says it.

/** How bad a finding is: `error` counts towards exit code 2, `warning` towards 1. */
export type Severity = "error" | "warning";

/** The doctor's checks, in the order they run and print. */
export const checkTitles = {
  "crd-owners": "who owns each CRD family",
  "helm-uninstall": "what an uninstall of each Helm release deletes",
  "neg-annotations": "NEG annotations of Services behind Google's load balancers",
  draining: "readiness, preStop and grace of pods behind Google's load balancers",
  jobs: "meshed Jobs and CronJobs that would never finish",
  certificates: "cert-manager Certificates, trust anchors and issuers",
  "webhook-ca": "webhook CA bundles against the certificates that serve them",
  "mesh-enrolment": "enrolled namespaces: injectors and proxies",
  "ingress-meshed": "ingress controllers in the mesh",
  monitors: "monitors that scrape something",
  drift: "the cluster against the stack's render",
} as const;

/** A check's name, as `--check` and a finding's `check` name it. */
export type CheckName = keyof typeof checkTitles;

/** Every check's name, in the order they run and print. */
export const checkNames = Object.keys(checkTitles) as CheckName[];

/** One thing wrong: how bad, which objects, what follows, and what to do. */
export interface Finding {
  /** The check that found it. */
  readonly check: CheckName;
  /** `error`: an outage now or at the next change; `warning`: one under some conditions. */
  readonly severity: Severity;
  /** What is wrong, as a short stable name automation and tests can key on. */
  readonly code: string;
  /** The objects involved, as `Kind namespace/name`. */
  readonly objects: readonly string[];
  /** What is wrong and what follows from it. */
  readonly message: string;
  /** What to do about it. */
  readonly fix: string;
  /** The upstream behaviour or project fact it rests on. */
  readonly evidence?: string;
}

/** Something worth knowing that is not wrong: a certificate's expiry, what an uninstall deletes. */
export interface Note {
  /** The check that noted it. */
  readonly check: CheckName;
  /** The objects it is about, as `Kind namespace/name`. */
  readonly objects: readonly string[];
  /** What is worth knowing. */
  readonly message: string;
}

/** How one check ran: fully, partly, not at all (and why), or not asked for. */
export interface CheckRun {
  /** The check. */
  readonly name: CheckName;
  /** What it checks, as the text report heads it. */
  readonly title: string;
  /** `ran`: fully; `partial`: some of it could not check; `could not check`: none of it; `skipped`: not asked for. */
  readonly status: "ran" | "partial" | "could not check" | "skipped";
  /** What it could not check, and why (a missing permission, or a record it could not read). */
  readonly unchecked: readonly string[];
}

/** What `doctor()` returns and `--json` prints: the cluster, each check's run, the findings, the notes, the exit code. */
export interface DoctorReport {
  /** The cluster it read. */
  readonly cluster: ClusterIdentity;
  /** When the cluster was read (expiry is judged against it). */
  readonly at: string;
  /** Every check, in order, with how it ran. */
  readonly checks: readonly CheckRun[];
  /** What is wrong, by check. */
  readonly findings: readonly Finding[];
  /** What is worth knowing and not wrong. */
  readonly notes: readonly Note[];
  /** 0: nothing found; 1: warnings, or something could not be checked; 2: errors. */
  readonly exitCode: 0 | 1 | 2;
}

/** The exit code of a report: 2 for any error, 1 for any warning or anything unchecked, else 0. */
export function exitCodeOf(findings: readonly Finding[], checks: readonly CheckRun[]): 0 | 1 | 2 {
  if (findings.some((f) => f.severity === "error")) return 2;
  if (findings.length > 0 || checks.some((c) => c.unchecked.length > 0)) return 1;
  return 0;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The report for people: every finding by check, what could not be checked, the notes, a summary. */
export function reportText(report: DoctorReport): string {
  const c = report.cluster;
  const lines: string[] = [
    `gke-mesh-platform doctor (read-only): context ${c.context ?? "(none)"}${c.server ? ` at ${c.server}` : ""}${c.version ? `, Kubernetes ${c.version}` : ""}`,
    `read at ${report.at}`,
  ];
  for (const check of report.checks) {
    if (check.status === "skipped") continue;
    const findings = report.findings.filter((f) => f.check === check.name);
    const notes = report.notes.filter((n) => n.check === check.name);
    const head =
      check.status === "could not check"
        ? "could not check"
        : findings.length === 0
          ? check.unchecked.length > 0
            ? "nothing found in what it could read"
            : "ok"
          : [
              ...(findings.some((f) => f.severity === "error")
                ? [plural(findings.filter((f) => f.severity === "error").length, "error")]
                : []),
              ...(findings.some((f) => f.severity === "warning")
                ? [plural(findings.filter((f) => f.severity === "warning").length, "warning")]
                : []),
            ].join(", ");
    lines.push("", `${check.name} (${check.title}): ${head}`);
    for (const f of findings) {
      lines.push(...wrap(`${f.severity.toUpperCase()} ${f.code}: ${f.objects.join(", ")}`, "  "));
      lines.push(...wrap(f.message, "    "));
      lines.push(...wrap(`fix: ${f.fix}`, "    "));
      if (f.evidence) lines.push(...wrap(`why: ${f.evidence}`, "    "));
    }
    for (const u of check.unchecked) lines.push(...wrap(`could not check: ${u}`, "  "));
    for (const n of notes) lines.push(...wrap(`note: ${n.message}`, "  "));
  }
  const errors = report.findings.filter((f) => f.severity === "error").length;
  const warnings = report.findings.length - errors;
  const unchecked = report.checks.filter((c) => c.unchecked.length > 0).length;
  lines.push(
    "",
    `${plural(errors, "error")}, ${plural(warnings, "warning")}` +
      (unchecked > 0 ? `, ${plural(unchecked, "check")} could not check everything` : "") +
      ` (exit ${report.exitCode})`,
  );
  return lines.join("\n");
}

/** Lines of at most 110 characters (the project's width), each indented; words are never split. */
function wrap(text: string, indent: string, width = 110): string[] {
  const out: string[] = [];
  let line = indent;
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line.length > indent.length && line.length + 1 + word.length > width) {
      out.push(line);
      line = `${indent}  ${word}`;
    } else {
      line = line.length > indent.length ? `${line} ${word}` : `${line}${word}`;
    }
  }
  if (line.trim()) out.push(line);
  return out;
}
