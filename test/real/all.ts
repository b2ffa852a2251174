import { spawnSync } from "child_process";
import * as path from "path";

/**
 * `npm run test:real [-- <kubernetes minor>]`: the real tier's scripts one after another, each given the
 * same arguments; stops at the first that fails and exits with its code.
 */
const scripts = ["smoke.ts", "identity.ts", "platformUp.ts", "../doctor/realCluster.ts"];
const tsx = path.resolve(__dirname, "../../node_modules/.bin/tsx");
for (const script of scripts) {
  const result = spawnSync(tsx, [path.join(__dirname, script), ...process.argv.slice(2)], {
    stdio: "inherit",
  });
  const code = result.status ?? 1;
  if (code !== 0) process.exit(code);
}
