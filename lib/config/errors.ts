import * as path from "path";
import * as pulumi from "@pulumi/pulumi";

/**
 * A bad environment config. It extends Pulumi's `RunError`, so `pulumi up` prints only the message
 * (no stack trace); the offline render prints it the same way and exits non-zero.
 */
export class ConfigError extends pulumi.RunError {
  /** Machine-readable problems, one per bad field. */
  readonly problems: readonly ConfigProblem[];
  /** The stack file the config came from, such as `Pulumi.dev.yaml`, where the thrower knew it. */
  readonly source?: string;

  constructor(problems: readonly ConfigProblem[], source?: string) {
    super(formatProblems(problems, source));
    this.name = "ConfigError";
    this.problems = problems;
    this.source = source;
  }
}

/** One bad field: where it is, what it holds, what is allowed and how to fix it. */
export interface ConfigProblem {
  /** The Pulumi config path, e.g. `platform:mesh.kind` or `gcp:region`. */
  readonly path: string;
  /** What is wrong, including the bad value. */
  readonly problem: string;
  /** What the field accepts. */
  readonly allowed?: string;
  /** What to do. */
  readonly fix: string;
}

export function formatProblems(problems: readonly ConfigProblem[], source?: string): string {
  const where = source ? ` in ${source}` : "";
  const header =
    problems.length === 1
      ? `Invalid environment config${where}:`
      : `Invalid environment config${where} (${problems.length} problems):`;
  const lines = problems.map((p) => {
    const parts = [`  ${p.path}: ${p.problem}`];
    if (p.allowed) parts.push(`    allowed: ${p.allowed}`);
    parts.push(`    fix: ${p.fix}`);
    return parts.join("\n");
  });
  return [header, ...lines].join("\n");
}

/** Renders a config value the way a user wrote it, short enough for one line. */
export function showValue(value: unknown): string {
  if (value === undefined) return "nothing";
  const text = JSON.stringify(value) ?? typeof value;
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** The candidate closest to `word` by edit distance, when it is close enough to be a likely typo. */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  // A suggestion further than a third of the word away is noise, not a typo.
  return best !== undefined && bestDistance <= Math.max(2, Math.ceil(word.length / 3)) ? best : undefined;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps ("linkred"). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}

/**
 * What an encrypted (`secure:`) config value holds where it cannot be decrypted, as in the offline
 * render without the stack's passphrase. The schema checks recognise it and say so plainly.
 */
export const secretPlaceholder = "[secret]";

/** The package's root: lib/config/errors.ts and dist/config/errors.js both sit two folders below it. */
const packageRoot = path.join(__dirname, "..", "..");

/** One of the package's docs as a program that installed the package has it (package.json `files` ships docs/). */
export function installedDoc(file: string, anchor?: string): string {
  return `node_modules/gke-mesh-platform/${file}${anchor ? `#${anchor}` : ""}`;
}

/**
 * Where one of the package's docs is for the reader of a message: in a program that installed the package,
 * its path from the program's folder, where `pulumi up` and the command run; in this repository the file
 * itself. The project names no web home of its own, so a message never links to one.
 */
export function docsLink(file: string, anchor?: string): string {
  const installed = path.basename(path.dirname(packageRoot)) === "node_modules";
  return installed ? installedDoc(file, anchor) : `${file}${anchor ? `#${anchor}` : ""}`;
}
