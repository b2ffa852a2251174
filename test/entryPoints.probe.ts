// Loaded by test/entryPoints.test.ts in a process of its own: requires one entry point and prints the
// repository's modules it loaded, with their line counts, as JSON.
import * as fs from "fs";
import * as path from "path";

const root = path.resolve(__dirname, "..");
const entry = process.argv[2];
const before = new Set(Object.keys(require.cache));
// eslint-disable-next-line @typescript-eslint/no-require-imports -- what is measured is what require() loads
require(path.join(root, entry));
const modules = Object.keys(require.cache)
  .filter((f) => !before.has(f) && f.startsWith(path.join(root, "lib") + path.sep))
  .map((f) => ({ file: path.relative(root, f), lines: fs.readFileSync(f, "utf8").split("\n").length }));
process.stdout.write(JSON.stringify(modules));
