import * as fs from "fs";
import * as path from "path";
import { main } from "../../lib/render/cli";
import type { CliIo } from "../../lib/render/commandLine";

/** What the command-line tests share: running the command in-process, and scratch programs. */

export const root = path.resolve(__dirname, "../..");

/** The command run in `cwd`, its output captured. */
export async function run(
  cwd: string,
  ...argv: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    cwd,
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    // As the package's command names itself: with the command given, or alone.
    invokedAs: ["render", "init", "versions", "preflight", "doctor", "completion"].includes(argv[0] ?? "")
      ? `gke-mesh-platform ${argv[0]}`
      : "gke-mesh-platform",
    // Jest loads TypeScript itself.
    registerTypeScript: false,
  };
  // File names in messages are relative to the working folder, as in a shell there.
  const before = process.cwd();
  process.chdir(cwd);
  try {
    const code = await main(argv, io);
    return { code, stdout: out.join("\n"), stderr: err.join("\n") };
  } finally {
    process.chdir(before);
  }
}

/** The smallest stack file: a dev environment in a made-up project. */
export const base =
  "config:\n  gcp:project: acme-scratch\n  gcp:region: europe-west1\n  platform:tier: dev\n";

/** A project whose program is the repository's, with stack files by name. */
export function project(dir: string, name: string, stacks: Record<string, string>): string {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, "Pulumi.yaml"),
    `name: ${name}\nruntime: nodejs\nmain: ${JSON.stringify(path.join(root, "stacks", "index.ts"))}\n`,
  );
  for (const [stack, text] of Object.entries(stacks))
    fs.writeFileSync(path.join(dir, `Pulumi.${stack}.yaml`), text);
  return dir;
}

/** The body run with these environment variables (undefined: unset), restored after. */
export async function withEnv<T>(
  vars: Record<string, string | undefined>,
  body: () => Promise<T>,
): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const set = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  set(vars);
  try {
    return await body();
  } finally {
    set(saved);
  }
}
