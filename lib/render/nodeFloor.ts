import * as fs from "fs";
import * as path from "path";

/**
 * The command refuses a Node.js older than the package's `engines` floor with one line, before it
 * loads anything that might fail on it in a less clear way. The command imports this module first;
 * a program that imports the library is not stopped (npm and Pulumi say what they say).
 */

/** The package's `engines.node`, such as `>=22`. */
export function nodeEngines(): string {
  // lib/render and dist/render both sit two folders below the package's root.
  const file = path.join(__dirname, "..", "..", "package.json");
  return (
    (JSON.parse(fs.readFileSync(file, "utf8")) as { engines?: { node?: string } }).engines?.node ?? ">=0"
  );
}

/** What is wrong with running on `version` given `engines` (a `>=` floor), in one line; undefined where nothing is. */
export function nodeFloorProblem(version: string, engines: string = nodeEngines()): string | undefined {
  const floor = /^>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(engines.trim());
  if (!floor) return undefined;
  const want = floor.slice(1).map((n) => Number(n ?? 0));
  const have = version.replace(/^v/, "").split(".").map(Number);
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) > want[i]) return undefined;
    if ((have[i] ?? 0) < want[i]) {
      const shown = want.slice(0, floor[3] ? 3 : floor[2] ? 2 : 1).join(".");
      return `gke-mesh-platform needs Node.js ${shown} or later (package.json engines: ${engines}), and this is Node.js ${version.replace(/^v/, "")}: install Node.js ${want[0]} or a later LTS (https://nodejs.org/en/download), or switch to it (nvm use ${want[0]})`;
    }
  }
  return undefined;
}

// Run as the command (dist/render/cli.js, or lib/render/cli.ts in the repository): refuse an old Node.
if (/[/\\]render[/\\]cli\.[jt]s$/.test(require.main?.filename ?? "")) {
  const problem = nodeFloorProblem(process.versions.node);
  if (problem) {
    process.stderr.write(`${problem}\n`);
    process.exit(1);
  }
}
