import * as fs from "fs";
import * as path from "path";
import { stackConfigJsonSchema } from "../lib/render/stackSchema";

/**
 * `npm run build`, after the compile: writes the JSON Schema of a stack file (Pulumi.<stack>.yaml) to
 * dist/stack-config.schema.json, which the package ships and exports as
 * `gke-mesh-platform/stack-config.schema.json` (lib/render/stackSchema.ts says how an editor uses it).
 * `--out <file>` writes it elsewhere.
 */
const args = process.argv.slice(2);
const at = args.indexOf("--out");
const file =
  at === -1
    ? path.resolve(__dirname, "..", "dist", "stack-config.schema.json")
    : path.resolve(args[at + 1] ?? "");
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(file, `${JSON.stringify(stackConfigJsonSchema(), null, 2)}\n`);
console.log(`wrote ${path.relative(process.cwd(), file) || file}`);
