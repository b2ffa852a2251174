import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";
import { parseAllDocuments } from "yaml";
import { ConfigError, environmentFromConfig } from "../lib/config";
import { resolvePlan, type Plan } from "../lib/plan";
import {
  helmReleases,
  kubernetesObjects,
  readProject,
  renderProject,
  type RenderResult,
} from "../lib/render";
import { clusterInvariants } from "../lib/cluster";
import { invariants } from "../lib/safety";
import { blocksOf, type Block } from "./docBlocks";
import { input } from "./helpers";

/**
 * Every block of config or code in README.md, docs/*.md and examples/*\/README.md is checked against
 * the code, so the docs cannot drift from it:
 *
 * - a YAML stack file (`config:` with `platform:*` and `gcp:*` keys) is read as Pulumi reads it
 *   (structured values as JSON) and must resolve to a plan; a first-line comment naming a file
 *   (`# stacks/Pulumi.dev.yaml`) says the block is part of that file, which must hold it;
 * - YAML `platform:<key>:` entries, merged into the smallest environment (a dev tier, a GCP project
 *   and region), must resolve to a plan;
 * - TypeScript blocks must type-check as modules with the repository's compiler options
 *   (`gke-mesh-platform` is lib/index.ts);
 * - a text block that shows a config error must be the exact message the code prints.
 *
 * A block says more about itself with a marker, an HTML comment on the line before it:
 *
 * - `<!-- config: merged with {"mesh":{"kind":"istio"}} -->`: `platform:` entries that are part of a
 *   larger config, merged into the environment (objects merge, lists are joined);
 *   `<!-- config: "1.31.0" read as "1.30.3" (why) -->` checks the block with that text replaced, for
 *   a value the code does not hold yet (clauses are separated by `;`);
 * - `<!-- rendered: examples/books (linkerd) -->`: Kubernetes objects that render of that project's
 *   stack holds; each document must match the object of its kind, namespace and name (fields the
 *   block leaves out are not compared; lists are compared whole);
 * - `<!-- values: linkerd-crds in examples/books (linkerd) -->`: values that release has in that render;
 * - `<!-- error: {"mesh":{"kind":"linkred"}} in Pulumi.dev.yaml -->`: the environment (merged into the
 *   smallest one) and source whose error message the block shows; an `allowed:` line ending in `...`
 *   is a prefix of the printed one.
 *
 * Any other YAML block, a block in a language not listed here and a marker without its block fail.
 * Shell commands, command output and diagrams are not config or code; they are counted and skipped.
 */

const root = path.resolve(__dirname, "..");

const docFiles = [
  "README.md",
  ...fs
    .readdirSync(path.join(root, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
  ...fs
    .readdirSync(path.join(root, "examples"))
    .sort()
    .map((e) => `examples/${e}/README.md`)
    .filter((f) => fs.existsSync(path.join(root, f))),
];
const parsed = docFiles.map((f) => blocksOf(root, f));
const blocks = parsed.flatMap((p) => p.blocks);
const orphans = parsed.flatMap((p, i) =>
  p.orphans.map((m) => `${docFiles[i]}:${m.line}: ${m.kind}: ${m.body}`),
);

const where = (b: Block) => `${b.file}:${b.line}`;
/** The repository line of a block's content line (0-based). */
const lineOf = (b: Block, contentLine: number) => b.line + 1 + contentLine;

// ---------------------------------------------------------------------------------------------------
// What each block is

type Kind =
  | "stack file"
  | "platform keys"
  | "rendered objects"
  | "chart values"
  | "TypeScript"
  | "config error"
  | "not config or code"
  | "unrecognised";

const yamlLangs = ["yaml", "yml"];
const tsLangs = ["ts", "typescript"];
/** Commands, their output and diagrams: nothing the code reads. */
const skippedLangs = ["sh", "bash", "shell", "console", "text", "mermaid"];
const errorHeader = "Invalid environment config";

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function kindOf(b: Block): { kind: Kind; why?: string } {
  const marked = b.marker?.kind;
  if (yamlLangs.includes(b.lang)) {
    if (marked === "rendered") return { kind: "rendered objects" };
    if (marked === "values") return { kind: "chart values" };
    if (marked === "error")
      return { kind: "unrecognised", why: "an error marker belongs before a text block" };
    const docs = parseAllDocuments(b.text);
    const doc: unknown = Array.isArray(docs) && docs.length === 1 ? docs[0].toJS() : undefined;
    if (isRecord(doc)) {
      const keys = Object.keys(doc);
      if (keys.length === 1 && keys[0] === "config" && isRecord(doc.config)) return { kind: "stack file" };
      if (keys.length > 0 && keys.every((k) => /^platform:\w+$/.test(k))) return { kind: "platform keys" };
    }
    return {
      kind: "unrecognised",
      why:
        "a YAML block must be a stack file (config: with platform:* and gcp:* keys), platform:<key> entries, " +
        "or be marked on the line before it: <!-- rendered: <project dir> (<stack>) --> for Kubernetes objects " +
        "the platform renders, <!-- values: <release> in <project dir> (<stack>) --> for a release's chart values",
    };
  }
  if (tsLangs.includes(b.lang)) return { kind: "TypeScript" };
  if (b.lang === "text" && (marked === "error" || b.text.startsWith(errorHeader)))
    return { kind: "config error" };
  if (skippedLangs.includes(b.lang)) {
    return marked
      ? { kind: "unrecognised", why: `a ${marked} marker before a ${b.lang} block checks nothing` }
      : { kind: "not config or code" };
  }
  return {
    kind: "unrecognised",
    why: b.lang
      ? `no check for ${b.lang} blocks: add one to test/docs.test.ts, or use one of ${[...yamlLangs, ...tsLangs, ...skippedLangs].join(", ")}`
      : "a block without a language: say what it holds (```yaml, ```ts, ```sh, ```text)",
  };
}

const classified = blocks.map((b) => ({ block: b, ...kindOf(b) }));
const ofKind = (kind: Kind) => classified.filter((c) => c.kind === kind).map((c) => c.block);
const count = (kind: Kind) => ofKind(kind).length;
const blockCount = (kind: Kind) => `${count(kind)} block${count(kind) === 1 ? "" : "s"}`;

/** One test per block of that kind, named by where it is. */
function eachBlock(kind: Kind, check: (b: Block) => void | Promise<void>): void {
  const list = ofKind(kind);
  if (list.length > 0) test.each(list.map((b) => [where(b), b] as const))("%s", (_at, b) => check(b));
}

// ---------------------------------------------------------------------------------------------------
// Config

const project = readProject(root).name;

/** Objects merge, lists are joined, anything else is replaced. */
function merge(base: unknown, over: unknown): unknown {
  if (Array.isArray(base) && Array.isArray(over)) return [...(base as unknown[]), ...(over as unknown[])];
  if (isRecord(base) && isRecord(over)) {
    const out: Record<string, unknown> = { ...base };
    for (const [k, v] of Object.entries(over)) out[k] = k in base ? merge(base[k], v) : v;
    return out;
  }
  return over;
}

/** Pulumi's runtime form of a config value: strings as they are, anything structured as JSON. */
const pulumiValue = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v));

/** An environment as Pulumi config keys: `gcp:project`, `gcp:region`, `platform:<key>`. */
function pulumiConfig(env: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (key === "gcp" && isRecord(value)) {
      for (const [k, v] of Object.entries(value)) out[`gcp:${k}`] = pulumiValue(v);
    } else {
      out[`platform:${key}`] = pulumiValue(value);
    }
  }
  return out;
}

/** The plan of flat Pulumi config, as a program's `loadPlan` reads it. */
function planOfConfig(config: Record<string, string>, source: string): Plan {
  return resolvePlan(environmentFromConfig(config, project), "docs", source);
}

function parseJson(text: string, at: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new Error(`${at}: the marker's JSON does not parse: ${(err as Error).message}`);
  }
}

/** A config marker's clauses: environments to merge, and text to replace before the block is read. */
function configMarker(b: Block): { merges: unknown[]; replacements: [string, string][] } {
  const merges: unknown[] = [];
  const replacements: [string, string][] = [];
  if (!b.marker) return { merges, replacements };
  if (b.marker.kind !== "config") {
    throw new Error(
      `${where(b)}: a ${b.marker.kind} marker does not apply to config; use <!-- config: ... -->`,
    );
  }
  for (const clause of b.marker.body.split(/;\s*/)) {
    const merged = /^merged with (\{.*\})$/.exec(clause);
    const readAs = /^"([^"]+)" read as "([^"]+)"(?: \(.+\))?$/.exec(clause);
    if (merged) merges.push(parseJson(merged[1], where(b)));
    else if (readAs) replacements.push([readAs[1], readAs[2]]);
    else {
      throw new Error(
        `${where(b)}: the config marker's clause "${clause}" is neither 'merged with {...}' nor '"<text>" read as "<text>" (why)'`,
      );
    }
  }
  return { merges, replacements };
}

function configText(b: Block, replacements: [string, string][]): string {
  return replacements.reduce((text, [from, to]) => {
    if (!text.includes(from))
      throw new Error(`${where(b)}: the marker reads "${from}" as "${to}", but the block has no "${from}"`);
    return text.split(from).join(to);
  }, b.text);
}

function yamlOf(text: string, b: Block): Record<string, unknown> {
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs) || docs.length !== 1) throw new Error(`${where(b)}: one YAML document expected`);
  const [doc] = docs;
  if (doc.errors.length > 0) throw new Error(`${where(b)}: ${doc.errors[0].message}`);
  const value: unknown = doc.toJS();
  if (!isRecord(value)) throw new Error(`${where(b)}: a YAML map expected`);
  return value;
}

describe(`stack files (${count("stack file")}): each resolves to a plan, read as Pulumi reads it`, () => {
  eachBlock("stack file", (b) => {
    const { merges, replacements } = configMarker(b);
    if (merges.length > 0)
      throw new Error(`${where(b)}: a stack file is whole; merge only platform:<key> entries`);
    const config = yamlOf(configText(b, replacements), b).config as Record<string, unknown>;
    const flat = Object.fromEntries(
      Object.entries(config).map(([k, v]) => [k.includes(":") ? k : `${project}:${k}`, pulumiValue(v)]),
    );
    expect(planOfConfig(flat, where(b)).config.tier).toBe(flat["platform:tier"]);
    // `# <file>` on the first line: the block is part of that stack file, which holds it.
    const named = /^#\s*(\S+\.ya?ml)\s*$/.exec(b.text.split("\n")[0]);
    if (named) {
      const file = path.join(root, named[1]);
      expect({ file: named[1], exists: fs.existsSync(file) }).toEqual({ file: named[1], exists: true });
      expect(yamlOf(fs.readFileSync(file, "utf8"), b).config).toMatchObject(config);
    }
  });
});

describe(`platform:<key> entries (${blockCount("platform keys")}): each resolves to a plan`, () => {
  eachBlock("platform keys", (b) => {
    const { merges, replacements } = configMarker(b);
    const entries = yamlOf(configText(b, replacements), b);
    const block = Object.fromEntries(
      Object.entries(entries).map(([k, v]) => [k.slice("platform:".length), v]),
    );
    const env = [...merges, block].reduce(merge, input()) as Record<string, unknown>;
    const plan = planOfConfig(pulumiConfig(env), where(b));
    // Every app the block shows is in the plan.
    const apps = Array.isArray(block.apps) ? (block.apps as { name: string }[]).map((a) => a.name) : [];
    expect(plan.apps.map((a) => a.app.name)).toEqual(expect.arrayContaining(apps));
  });
});

describe(`config errors (${count("config error")}): each is the message the code prints`, () => {
  eachBlock("config error", (b) => {
    const marker = b.marker?.kind === "error" ? /^(\{.*\})(?: in (\S+))?$/.exec(b.marker.body) : undefined;
    if (!marker) {
      throw new Error(
        `${where(b)}: mark the error with the environment and source that produce it, on the line before the block: ` +
          `<!-- error: {"mesh":{"kind":"linkred"}} in Pulumi.dev.yaml --> (merged into the smallest environment; "in <file>" optional)`,
      );
    }
    const env = merge(input(), parseJson(marker[1], where(b))) as Record<string, unknown>;
    let printed: string | undefined;
    try {
      resolvePlan(environmentFromConfig(pulumiConfig(env), project), "docs", marker[2]);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      printed = err.message;
    }
    expect({ accepted: printed === undefined }).toEqual({ accepted: false });
    const actual = (printed ?? "").split("\n");
    // `allowed: ..., ...` in the doc is a prefix of the printed list.
    const shown = b.text
      .trimEnd()
      .split("\n")
      .map((line, i) => {
        const prefix = /^(\s*allowed: .*)\.\.\.$/.exec(line)?.[1];
        return prefix !== undefined && actual[i]?.startsWith(prefix) ? actual[i] : line;
      });
    expect(shown.join("\n")).toBe(actual.join("\n"));
  });
});

// ---------------------------------------------------------------------------------------------------
// What renders

const renders = new Map<string, Promise<RenderResult>>();

/** `<project dir> (<stack>)`, rendered once per test file. */
function renderOf(spec: string, b: Block): Promise<RenderResult> {
  const m = /^(\S+) \(([\w.-]+)\)$/.exec(spec);
  if (!m)
    throw new Error(`${where(b)}: name the render as <project dir> (<stack>), e.g. examples/books (linkerd)`);
  const key = `${m[1]} (${m[2]})`;
  let r = renders.get(key);
  if (!r) {
    r = renderProject(path.join(root, m[1]), m[2]);
    renders.set(key, r);
  }
  return r;
}

interface ShownObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string };
}

describe(`rendered Kubernetes objects (${blockCount("rendered objects")}): each is in its render`, () => {
  eachBlock("rendered objects", async (b) => {
    const spec = b.marker?.body ?? "";
    const objects = kubernetesObjects(await renderOf(spec, b)).map((r) => r.inputs as ShownObject);
    const docs = parseAllDocuments(b.text);
    if (!Array.isArray(docs)) throw new Error(`${where(b)}: no YAML documents`);
    expect(docs.length).toBeGreaterThan(0);
    for (const doc of docs) {
      if (doc.errors.length > 0) throw new Error(`${where(b)}: ${doc.errors[0].message}`);
      const shown = doc.toJS() as ShownObject;
      const id = `${String(shown.kind)} ${String(shown.metadata?.namespace ?? "")}/${String(shown.metadata?.name)}`;
      const found = objects.find(
        (o) =>
          o.apiVersion === shown.apiVersion &&
          o.kind === shown.kind &&
          o.metadata?.name === shown.metadata?.name &&
          o.metadata?.namespace === shown.metadata?.namespace,
      );
      if (!found) throw new Error(`${where(b)}: ${spec} renders no ${String(shown.apiVersion)} ${id}`);
      expect({ object: id, ...found }).toMatchObject({ object: id, ...shown });
    }
  });
});

describe(`chart values (${blockCount("chart values")}): each is what the platform gives the release`, () => {
  eachBlock("chart values", async (b) => {
    const m = /^(\S+) in (.+)$/.exec(b.marker?.body ?? "");
    if (!m)
      throw new Error(
        `${where(b)}: mark chart values as <!-- values: <release> in <project dir> (<stack>) -->`,
      );
    const release = helmReleases(await renderOf(m[2], b)).find((r) => r.inputs.name === m[1]);
    if (!release) throw new Error(`${where(b)}: ${m[2]} installs no release ${m[1]}`);
    expect(release.inputs.values).toMatchObject(yamlOf(b.text, b));
  });
});

// ---------------------------------------------------------------------------------------------------
// Code

describe(`TypeScript (${blockCount("TypeScript")}): each type-checks`, () => {
  const tsBlocks = ofKind("TypeScript");
  /** Where each block lives in the one program: virtual files beside the repository's own. */
  const fileOf = (b: Block) =>
    path.join(root, "docs-blocks", `${b.file.replace(/[^\w]/g, "_")}_${b.line}.ts`);
  let program: ts.Program;

  beforeAll(() => {
    const read = ts.getParsedCommandLineOfConfigFile(
      path.join(root, "tsconfig.json"),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
        },
      },
    );
    if (!read) throw new Error("tsconfig.json could not be read");
    // A block with no import or export would be a script sharing one global scope with the others.
    const sources = new Map(
      tsBlocks.map((b) => [
        fileOf(b),
        /^\s*(import|export)\b/m.test(b.text) ? b.text : `${b.text}export {};\n`,
      ]),
    );
    const disk = ts.createCompilerHost(read.options);
    const host: ts.CompilerHost = {
      ...disk,
      // What tsc itself parses: JSDoc only where it can change a type error (the SDKs' declarations are mostly docs).
      jsDocParsingMode: ts.JSDocParsingMode.ParseForTypeErrors,
      getSourceFile: (file, version, ...rest) => {
        const text = sources.get(file);
        return text !== undefined
          ? ts.createSourceFile(file, text, version, true)
          : disk.getSourceFile(file, version, ...rest);
      },
      fileExists: (file) => sources.has(file) || disk.fileExists(file),
      readFile: (file) => sources.get(file) ?? disk.readFile(file),
    };
    program = ts.createProgram([...sources.keys()], read.options, host);
  }, 120_000);

  eachBlock("TypeScript", (b) => {
    const source = program.getSourceFile(fileOf(b));
    if (!source) throw new Error(`${where(b)}: not in the program`);
    const problems = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ].map((d) => {
      const line = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
      return `${b.file}:${lineOf(b, line)}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`;
    });
    expect(problems).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------
// The invariants users read about are the ones the code checks

test("docs/safety.md's tables name every invariant the renders and the cluster tier check, and no other", () => {
  const text = fs.readFileSync(path.join(root, "docs/safety.md"), "utf8");
  const documented = [...text.matchAll(/^\| `([a-z0-9-]+)` +\|/gm)].map((m) => m[1]);
  expect([...new Set(documented)].sort()).toEqual(
    [...new Set([...Object.keys(invariants), ...Object.keys(clusterInvariants)])].sort(),
  );
});

// ---------------------------------------------------------------------------------------------------
// Every block is accounted for

const skipped = ofKind("not config or code");
const byLang = [...new Set(skipped.map((b) => b.lang))]
  .sort()
  .map((lang) => `${skipped.filter((b) => b.lang === lang).length} ${lang}`)
  .join(", ");

test(`every block of the ${docFiles.length} files is checked but ${skipped.length} of commands, output and diagrams (${byLang})`, () => {
  const unchecked = classified
    .filter((c) => c.kind === "unrecognised")
    .map((c) => `${where(c.block)}: ${c.why ?? ""}`);
  expect(unchecked).toEqual([]);
  // A marker must stand on the line before its block, or it checks nothing.
  expect(orphans).toEqual([]);
  // What this test reads: every doc of the repository's own, and every example's.
  expect(docFiles).toEqual(
    expect.arrayContaining(["README.md", "docs/architecture.md", "examples/books/README.md"]),
  );
});
