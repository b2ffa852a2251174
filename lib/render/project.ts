import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import { secretPlaceholder } from "../config";
import { renderProgram, type RenderProgress, type RenderResult } from "./run";
import { stackSecrets, type StackSecrets } from "./secrets";

/** A Pulumi project on disk, read the way the Pulumi CLI reads it. */
export interface PulumiProject {
  readonly dir: string;
  readonly name: string;
  /** Absolute path of the program's entry module. */
  readonly main: string;
  /** Absolute path of the folder holding `Pulumi.<stack>.yaml`. */
  readonly stackConfigDir: string;
}

/**
 * Something wrong with the files the render reads (not valid YAML, no entry module): its message
 * says what and where, and is printed as it is.
 */
export class RenderInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RenderInputError";
  }
}

/** A file's path as a reader finds it: relative to the working folder when inside it. */
export function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : file;
}

/**
 * Parses a YAML file; a syntax error names the file, line and column and shows the line with a caret
 * under the column. Where the parser points at a line's indentation (a key indented wrongly), the
 * column is the key's, where the fix goes.
 */
export function readYamlFile(file: string): unknown {
  const text = fs.readFileSync(file, "utf8");
  const doc = YAML.parseDocument(text, { prettyErrors: true });
  const [error] = doc.errors;
  if (error) {
    const [start] = error.linePos ?? [];
    const reason = error.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, "");
    if (!start) throw new RenderInputError(`${displayPath(file)}: not valid YAML: ${reason}`);
    const line = text.split(/\r?\n/)[start.line - 1] ?? "";
    const indent = /^ */.exec(line)?.[0].length ?? 0;
    const col = start.col - 1 < indent && indent < line.length ? indent + 1 : start.col;
    throw new RenderInputError(
      `${displayPath(file)}:${start.line}:${col}: not valid YAML: ${reason}` +
        (line.trim() ? `\n\n${line}\n${" ".repeat(col - 1)}^` : ""),
    );
  }
  return doc.toJS() as unknown;
}

/** The project file of a folder, `Pulumi.yaml` (or `Pulumi.yml`), if it has one. */
export function projectFileOf(dir: string): string | undefined {
  return ["Pulumi.yaml", "Pulumi.yml"].map((f) => path.join(dir, f)).find((f) => fs.existsSync(f));
}

export function readProject(dir: string): PulumiProject {
  const file = projectFileOf(dir);
  if (!file) throw new RenderInputError(`${displayPath(dir)} is not a Pulumi project: it has no Pulumi.yaml`);
  const doc = (readYamlFile(file) ?? {}) as {
    name?: unknown;
    main?: unknown;
    stackConfigDir?: unknown;
    runtime?: unknown;
  };
  if (typeof doc.name !== "string" || doc.name === "") {
    throw new RenderInputError(`${displayPath(file)} has no name: Pulumi projects are named by name:`);
  }
  const runtime =
    typeof doc.runtime === "object" && doc.runtime !== null
      ? (doc.runtime as { name?: unknown }).name
      : doc.runtime;
  if (runtime !== undefined && runtime !== "nodejs") {
    throw new RenderInputError(
      `${displayPath(file)}: the runtime is ${JSON.stringify(runtime)}; the offline render runs Node.js programs (runtime: nodejs)`,
    );
  }
  return {
    dir,
    name: doc.name,
    main: entryOf(dir, typeof doc.main === "string" ? doc.main : undefined),
    stackConfigDir: path.resolve(dir, typeof doc.stackConfigDir === "string" ? doc.stackConfigDir : "."),
  };
}

/** The entry module as Pulumi's Node.js host finds it: Pulumi.yaml's main, package.json's, or index. */
function entryOf(dir: string, main: string | undefined): string {
  const packageFile = path.join(dir, "package.json");
  const packageMain =
    main === undefined && fs.existsSync(packageFile)
      ? (JSON.parse(fs.readFileSync(packageFile, "utf8")) as { main?: unknown }).main
      : undefined;
  const base = path.resolve(dir, main ?? (typeof packageMain === "string" ? packageMain : "."));
  const candidates =
    fs.existsSync(base) && fs.statSync(base).isDirectory()
      ? [path.join(base, "index.ts"), path.join(base, "index.js")]
      : [base, `${base}.ts`, `${base}.js`];
  const found = candidates.find((c) => fs.existsSync(c) && fs.statSync(c).isFile());
  if (!found) {
    throw new RenderInputError(
      `${displayPath(dir)}: the program's entry module is missing (looked for ${candidates.map(displayPath).join(", ")})`,
    );
  }
  return found;
}

/** The stacks a project has config for: one per `Pulumi.<stack>.yaml`. */
export function stacksOf(project: PulumiProject): string[] {
  if (!fs.existsSync(project.stackConfigDir)) return [];
  return fs
    .readdirSync(project.stackConfigDir)
    .map((f) => /^Pulumi\.(.+)\.ya?ml$/.exec(f)?.[1])
    .filter((s): s is string => s !== undefined)
    .sort();
}

/** A stack's config, flat as Pulumi's runtime holds it. */
export interface StackConfig {
  /** `namespace:key` to a string; structured values as JSON. */
  readonly config: Record<string, string>;
  /** Keys whose values are (or hold) secrets. */
  readonly secretKeys: string[];
  readonly file: string;
  /** Encrypted values the render could not decrypt, and why; they hold `[secret]`. */
  readonly undecrypted?: { readonly keys: readonly string[]; readonly reason: string };
}

/**
 * Flattens a stack config file into Pulumi's runtime form: `namespace:key` to a string, structured
 * values as JSON; a key without a namespace is the program's (`<project>:key`), as the CLI reads it.
 * Encrypted (`secure:`) values are decrypted where the stack's secrets provider is a passphrase given
 * in PULUMI_CONFIG_PASSPHRASE; otherwise they hold `[secret]`.
 */
export function readStackConfig(
  project: PulumiProject,
  stack: string,
  env: NodeJS.ProcessEnv = process.env,
): StackConfig {
  const file = ["yaml", "yml"]
    .map((ext) => path.join(project.stackConfigDir, `Pulumi.${stack}.${ext}`))
    .find((f) => fs.existsSync(f));
  if (!file) {
    const known = stacksOf(project);
    throw new RenderInputError(
      `no stack "${stack}" in ${displayPath(project.dir)}: it has no Pulumi.${stack}.yaml (its stacks: ${known.join(", ") || "none"})`,
    );
  }
  const doc = (readYamlFile(file) ?? {}) as {
    config?: Record<string, unknown>;
    encryptionsalt?: unknown;
    secretsprovider?: unknown;
  };
  let secrets: StackSecrets | undefined;
  const decrypt = (ciphertext: string): string | undefined => {
    secrets ??= stackSecrets(doc, displayPath(file), env);
    return secrets.decrypt?.(ciphertext);
  };
  const config: Record<string, string> = {};
  const secretKeys: string[] = [];
  const undecrypted: string[] = [];
  for (const [rawKey, rawValue] of Object.entries(doc.config ?? {})) {
    const key = rawKey.includes(":") ? rawKey : `${project.name}:${rawKey}`;
    const found = { secret: false, missing: false };
    const value = openSecrets(rawValue, decrypt, found);
    config[key] = typeof value === "string" ? value : JSON.stringify(value);
    if (found.secret) secretKeys.push(key);
    if (found.missing) undecrypted.push(key);
  }
  return {
    config,
    secretKeys,
    file,
    ...(undecrypted.length > 0 && secrets?.reason
      ? { undecrypted: { keys: undecrypted, reason: secrets.reason } }
      : {}),
  };
}

/** Replaces each `{secure: ...}` with its plaintext, or `[secret]` where it cannot be decrypted. */
function openSecrets(
  value: unknown,
  decrypt: (ciphertext: string) => string | undefined,
  found: { secret: boolean; missing: boolean },
): unknown {
  if (value === null || typeof value !== "object") return value;
  if (!Array.isArray(value) && Object.keys(value).length === 1 && "secure" in value) {
    found.secret = true;
    const ciphertext = value.secure;
    const plain = typeof ciphertext === "string" ? decrypt(ciphertext) : undefined;
    if (plain === undefined) found.missing = true;
    return plain ?? secretPlaceholder;
  }
  return Array.isArray(value)
    ? value.map((v) => openSecrets(v, decrypt, found))
    : Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, openSecrets(v, decrypt, found)]),
      );
}

export interface RenderProjectOptions {
  /** Called as the render goes; see `RenderProgress`. */
  readonly onProgress?: (progress: RenderProgress) => void;
}

/** Renders one stack of a project offline: its program under mocks, with that stack's config. */
export async function renderProject(
  dir: string,
  stack: string,
  options: RenderProjectOptions = {},
): Promise<RenderResult> {
  const project = readProject(dir);
  const { config, secretKeys } = readStackConfig(project, stack);
  return renderProgram({
    project: project.name,
    stack,
    config,
    secretKeys,
    onProgress: options.onProgress,
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the program is loaded the way Pulumi's nodejs host loads it
    program: () => require(project.main) as unknown,
  });
}
