import * as fs from "fs";
import * as path from "path";
import * as pulumi from "@pulumi/pulumi";
import { renderFiles, summary } from "./files";
import { stageGraph } from "./graph";
import { readProject, renderProject, stacksOf } from "./project";

const usage = `usage: npm run render -- <stack>              render stacks/Pulumi.<stack>.yaml (dev, staging, prod)
       npm run render -- examples/<name>      render an example project
options: --stack <name>  which stack of an example (default: its only one, or dev)
         --out <dir>     where to write (default: out/<stack> or out/examples/<name>)
         --stages        also print the stages of the deployment as a Mermaid flowchart`;

/** `npm run render`: evaluates a stack's program offline and writes `out/<stack>/`. Returns the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const args = [...argv];
  const flag = (name: string): string | undefined => {
    const i = args.indexOf(name);
    return i === -1 ? undefined : args.splice(i, 2)[1];
  };
  const stages =
    args.indexOf("--stages") !== -1 ? args.splice(args.indexOf("--stages"), 1).length > 0 : false;
  const stackFlag = flag("--stack");
  const outFlag = flag("--out");
  const target = args[0];
  if (!target || args.length > 1 || target.startsWith("-")) {
    console.error(usage);
    return 2;
  }
  const root = process.cwd();
  const isProjectDir =
    fs.existsSync(path.resolve(root, target, "Pulumi.yaml")) && path.resolve(root, target) !== root;
  const dir = isProjectDir ? path.resolve(root, target) : root;
  try {
    const project = readProject(dir);
    const stacks = stacksOf(project);
    const stack = isProjectDir ? (stackFlag ?? (stacks.length === 1 ? stacks[0] : "dev")) : target;
    const outDir =
      outFlag ?? (isProjectDir ? path.join("out", path.relative(root, dir)) : path.join("out", stack));
    const result = await renderProject(dir, stack);
    fs.mkdirSync(outDir, { recursive: true });
    for (const [file, content] of Object.entries(renderFiles(result))) {
      fs.writeFileSync(path.join(outDir, file), content);
    }
    console.log(summary(result, outDir));
    if (stages) console.log(`\n${stageGraph(result.resources)}`);
    return 0;
  } catch (err) {
    // Config errors carry their whole explanation; anything else is reported without a stack trace
    // unless RENDER_DEBUG is set.
    if (pulumi.RunError.isInstance(err) || !(err instanceof Error)) {
      console.error(String(err instanceof Error ? err.message : err));
    } else {
      console.error(`render failed: ${err.message}`);
      if (process.env.RENDER_DEBUG) console.error(err.stack);
      else console.error("(run with RENDER_DEBUG=1 for the stack trace)");
    }
    return 1;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`render failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
