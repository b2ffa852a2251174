import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import { renderProgram, secretText, type RenderResult } from "./run";

/** A Pulumi project on disk, read the way the Pulumi CLI reads it. */
export interface PulumiProject {
  readonly dir: string;
  readonly name: string;
  /** Absolute path of the program's entry module. */
  readonly main: string;
  /** Absolute path of the folder holding `Pulumi.<stack>.yaml`. */
  readonly stackConfigDir: string;
}

export function readProject(dir: string): PulumiProject {
  const file = path.join(dir, "Pulumi.yaml");
  if (!fs.existsSync(file)) throw new Error(`${dir} is not a Pulumi project: it has no Pulumi.yaml`);
  const doc = YAML.parse(fs.readFileSync(file, "utf8")) as {
    name?: string;
    main?: string;
    stackConfigDir?: string;
  };
  if (!doc.name) throw new Error(`${file} has no name`);
  const main = path.resolve(dir, doc.main ?? ".");
  const entry = fs.existsSync(main) && fs.statSync(main).isDirectory() ? path.join(main, "index.ts") : main;
  return { dir, name: doc.name, main: entry, stackConfigDir: path.resolve(dir, doc.stackConfigDir ?? ".") };
}

/** The stacks a project has config for: one per `Pulumi.<stack>.yaml`. */
export function stacksOf(project: PulumiProject): string[] {
  return fs
    .readdirSync(project.stackConfigDir)
    .map((f) => /^Pulumi\.(.+)\.yaml$/.exec(f)?.[1])
    .filter((s): s is string => s !== undefined)
    .sort();
}

/**
 * Flattens a stack config file into Pulumi's runtime form: `namespace:key` to a string, structured
 * values as JSON. Encrypted (`secure:`) values cannot be read offline; they render as `[secret]`.
 */
export function readStackConfig(
  project: PulumiProject,
  stack: string,
): { config: Record<string, string>; secretKeys: string[]; file: string } {
  const file = path.join(project.stackConfigDir, `Pulumi.${stack}.yaml`);
  if (!fs.existsSync(file)) {
    const known = stacksOf(project);
    throw new Error(
      `no stack "${stack}" in ${project.dir}: ${file} does not exist (stacks: ${known.join(", ") || "none"})`,
    );
  }
  const doc = (YAML.parse(fs.readFileSync(file, "utf8")) ?? {}) as { config?: Record<string, unknown> };
  const config: Record<string, string> = {};
  const secretKeys: string[] = [];
  for (const [rawKey, rawValue] of Object.entries(doc.config ?? {})) {
    const key = rawKey.includes(":") ? rawKey : `${project.name}:${rawKey}`;
    const { value, secret } = replaceSecure(rawValue);
    config[key] = typeof value === "string" ? value : JSON.stringify(value);
    if (secret) secretKeys.push(key);
  }
  return { config, secretKeys, file };
}

function replaceSecure(value: unknown): { value: unknown; secret: boolean } {
  if (value === null || typeof value !== "object") return { value, secret: false };
  if (!Array.isArray(value) && Object.keys(value).length === 1 && "secure" in value)
    return { value: secretText, secret: true };
  let secret = false;
  const walk = (v: unknown): unknown => {
    const r = replaceSecure(v);
    secret = secret || r.secret;
    return r.value;
  };
  const out = Array.isArray(value)
    ? value.map(walk)
    : Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, walk(v)]));
  return { value: out, secret };
}

/** Renders one stack of a project offline: its program under mocks, with that stack's config. */
export async function renderProject(dir: string, stack: string): Promise<RenderResult> {
  const project = readProject(dir);
  const { config, secretKeys } = readStackConfig(project, stack);
  return renderProgram({
    project: project.name,
    stack,
    config,
    secretKeys,
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the program is loaded the way Pulumi's nodejs host loads it
    program: () => require(project.main) as unknown,
  });
}
