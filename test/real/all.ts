import { spawnSync } from "child_process";
import * as path from "path";
import { supportedKubernetes } from "../../lib/versions/kubernetes";

/**
 * `npm run test:real [-- <kubernetes minor>]`: the real tier's scripts one after another, each given the
 * same arguments; stops at the first that fails and exits with its code.
 */
const scripts = [
  "smoke.ts",
  "identity.ts",
  "teams.ts",
  "platformUp.ts",
  "upgrade.ts",
  "gcpPreview.ts",
  "../doctor/realCluster.ts",
];
/**
 * The scripts that run at the highest supported minor only: the upgrade's plan is the library's change,
 * the same at every minor, and each run of it adds about two minutes to the tier (docs/testing.md); the
 * GCP layer's preview starts no control plane, so the minor does not change it.
 */
const highestMinorOnly = new Set(["upgrade.ts", "gcpPreview.ts"]);
const minorOf = (v: string) => /^v?(\d+\.\d+)/.exec(v)?.[1];
const minor = minorOf(process.argv[2] ?? supportedKubernetes.highest);
const tsx = path.resolve(__dirname, "../../node_modules/.bin/tsx");
for (const script of scripts) {
  if (highestMinorOnly.has(script) && minor !== minorOf(supportedKubernetes.highest)) {
    console.log(
      `${script}: runs at Kubernetes ${minorOf(supportedKubernetes.highest)} only (test/real/all.ts says why); \`npx tsx test/real/${script} ${minor}\` runs it here`,
    );
    continue;
  }
  const result = spawnSync(tsx, [path.join(__dirname, script), ...process.argv.slice(2)], {
    stdio: "inherit",
  });
  const code = result.status ?? 1;
  if (code !== 0) process.exit(code);
}
