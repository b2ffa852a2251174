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

export interface TypeScriptOptions {
  /**
   * Type-check the program as it is compiled, as `pulumi up` does (Pulumi's default). The render only
   * transpiles by default: type errors are the editor's and tsc's to report, and checking the program
   * against the library's and the providers' types takes half a minute. PULUMI_NODEJS_TRANSPILE_ONLY,
   * where set, decides as it does for Pulumi. @default false
   */
  readonly typeCheck?: boolean;
}

/**
 * Lets `require` load a TypeScript program the way `pulumi up` does: Pulumi's Node.js host registers
 * ts-node (the program's own, else the copy @pulumi/pulumi ships) with the program's typescript (else
 * Pulumi's) and the program's tsconfig.json (@pulumi/pulumi cmd/run/run.js, tsutils.js). Nothing
 * happens for a JavaScript program, or where the process loads TypeScript already (tsx, ts-node).
 * Returns how the program will be compiled, for the render's progress, or undefined where it is not.
 */
export function registerTypeScript(
  project: PulumiProject,
  options: TypeScriptOptions = {},
): string | undefined {
  if (!/\.[cm]?tsx?$/.test(project.main) || require.extensions[".ts"] !== undefined) return undefined;
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
  const fromEnv = process.env.PULUMI_NODEJS_TRANSPILE_ONLY;
  const transpileOnly = fromEnv ? fromEnv === "true" : !options.typeCheck || own.noCheck === true;
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
  const file = path.basename(project.main);
  const why = fromEnv ? "as PULUMI_NODEJS_TRANSPILE_ONLY says" : undefined;
  return transpileOnly
    ? `compiling ${file} with ts-node, transpile-only${why ? ` ${why}` : ": type errors are your editor's and tsc's to report; --type-check checks them as pulumi up does"}`
    : `compiling and type-checking ${file} with ts-node, as pulumi up does${why ? ` (${why})` : ""}: checking it against the library's and the providers' types takes a while; without --type-check the render only transpiles`;
}
