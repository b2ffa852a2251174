/**
 * No test run leaves a temp folder behind: the folders in the system temp dir with the prefixes tests
 * and renders use are listed before the run (globalSetup) and after it (globalTeardown); a new one
 * fails the run, naming it.
 */
const fs = require("fs");
const os = require("os");
const path = require("path");

const prefixes = [
  "cdk8s",
  "gateway-api-",
  "kubeconfig-",
  "render-cli-",
  "charts-",
  "package-",
  "render-",
  "reference-",
];
const record = path.join(os.tmpdir(), `gke-mesh-platform-temp-${process.pid}.json`);
const ours = () => fs.readdirSync(os.tmpdir()).filter((f) => prefixes.some((p) => f.startsWith(p)));

module.exports.setup = () => fs.writeFileSync(record, JSON.stringify(ours()));

module.exports.teardown = () => {
  const before = new Set(JSON.parse(fs.readFileSync(record, "utf8")));
  fs.rmSync(record, { force: true });
  const left = ours().filter((f) => !before.has(f));
  if (left.length > 0)
    throw new Error(`the tests left temp folders behind in ${os.tmpdir()}: ${left.join(", ")}`);
};
