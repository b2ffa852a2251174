import * as fs from "fs";
import * as path from "path";
import { RenderInputError, displayPath, type PulumiProject } from "./project";

/** What the loader needs of ts-node (7.0.1, the version @pulumi/pulumi ships, onwards). */
interface TsNode {
  register(options: Record<string, unknown>): unknown;
}

/** What it needs of typescript. */
interface TypeScript {
  readonly version: string;
  parseConfigFileTextToJson(
    file: string,
    text: string,
  ): { config?: { compilerOptions?: Record<string, unknown> } };
}

/**
 * Lets `require` load a TypeScript program the way `pulumi up` does: Pulumi's Node.js host registers
 * ts-node (the program's own, else the copy @pulumi/pulumi ships) with the program's typescript (else
 * Pulumi's) and the program's tsconfig.json (@pulumi/pulumi cmd/run/run.js, tsutils.js). Nothing
 * happens for a JavaScript program, or where the process loads TypeScript already (tsx, ts-node).
 */
export function registerTypeScript(project: PulumiProject): void {
  if (!/\.[cm]?tsx?$/.test(project.main) || require.extensions[".ts"] !== undefined) return;
  const packageFile = path.join(project.dir, "package.json");
  if (
    fs.existsSync(packageFile) &&
    (JSON.parse(fs.readFileSync(packageFile, "utf8")) as { type?: unknown }).type === "module"
  ) {
    throw new RenderInputError(
      `${displayPath(project.dir)} is an ES module program (package.json has "type": "module"); the offline render runs CommonJS programs`,
    );
  }
  const resolve = (id: string): string | undefined => {
    try {
      return require.resolve(id, { paths: [project.dir] });
    } catch {
      return undefined;
    }
  };
  const pulumiPackage =
    resolve("@pulumi/pulumi/package.json") ?? require.resolve("@pulumi/pulumi/package.json");
  const vendor = path.join(path.dirname(pulumiPackage), "vendor");
  const typescriptPath = resolve("typescript") ?? path.join(vendor, "typescript@3.8.3", "typescript.js");
  const tsNodePath = resolve("ts-node") ?? path.join(vendor, "ts-node@7.0.1");
  /* eslint-disable @typescript-eslint/no-require-imports -- found at run time, as Pulumi's host finds them */
  const ts = require(typescriptPath) as TypeScript;
  const tsNode = require(tsNodePath) as TsNode;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const tsconfig = path.join(project.dir, "tsconfig.json");
  const own = fs.existsSync(tsconfig)
    ? (ts.parseConfigFileTextToJson(tsconfig, fs.readFileSync(tsconfig, "utf8")).config?.compilerOptions ??
      {})
    : {};
  const [major, minor] = ts.version.split(".").map(Number);
  // TypeScript 4.7 brought nodenext; older compilers (Pulumi's own 3.8) get commonjs.
  const nodeNext = major > 4 || (major === 4 && minor >= 7);
  const transpileOnly = process.env.PULUMI_NODEJS_TRANSPILE_ONLY
    ? process.env.PULUMI_NODEJS_TRANSPILE_ONLY === "true"
    : own.noCheck === true;
  tsNode.register({
    compiler: typescriptPath,
    transpileOnly,
    project: tsconfig,
    skipProject: !fs.existsSync(tsconfig),
    compilerOptions: {
      target: "ES2020",
      // Pulumi's defaults, unless the program chose its module system: TypeScript refuses
      // moduleResolution nodenext beside any module but nodenext.
      ...(own.module === undefined
        ? { module: nodeNext ? "nodenext" : "commonjs", moduleResolution: nodeNext ? "nodenext" : "node" }
        : {}),
      sourceMap: "true",
      ...own,
    },
  });
}
