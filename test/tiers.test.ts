import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { groups, groupOf } from "./skips";
import { selection, tiers } from "./tiers";
import { resolveReference } from "./upstream/reference";
// eslint-disable-next-line @typescript-eslint/no-require-imports -- jest loads the reporter by path, as CommonJS
const SummaryReporter = require("./summaryReporter") as new (config: { rootDir: string }) => {
  onRunComplete(contexts: unknown, results: unknown): void;
  getLastError(): Error | undefined;
};

/**
 * `npm test` on a fresh clone: the slower tiers have their own commands, and every skipped test is
 * counted in one closing line with what it needs and the command that enables it; under CI=true a
 * skip for something CI has fails the run.
 */

const root = path.resolve(__dirname, "..");
const scripts = (
  JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }
).scripts;

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? testFiles(p) : e.name.endsWith(".test.ts") ? [path.relative(root, p)] : [];
  });
}

/** What jest takes for a selection: testMatch globs (exact files or `dir/*.test.ts`) minus ignore patterns. */
function selected(tierName: string): string[] {
  const { testMatch, testPathIgnorePatterns = [] } = selection(tierName);
  const matches = (file: string) =>
    testMatch.some((glob) => {
      const g = glob.replace("<rootDir>/", "");
      if (g === "test/**/*.test.ts") return true;
      return new RegExp(`^${g.replace(/\./g, "\\.").replace(/\*/g, "[^/]*")}$`).test(file);
    });
  const ignored = (file: string) =>
    testPathIgnorePatterns.some((p) => new RegExp(p.replace("<rootDir>", root)).test(path.join(root, file)));
  return testFiles(path.join(root, "test"))
    .filter((f) => matches(f) && !ignored(f))
    .sort();
}

describe("the tiers", () => {
  test("npm test and each jest tier are one jest configuration, picked by the script's name", () => {
    expect(scripts.test).toBe("jest");
    for (const tier of tiers)
      expect({ tier: tier.name, script: scripts[`test:${tier.name}`] }).toEqual({
        tier: tier.name,
        script: "jest",
      });
  });

  test("every test file runs in exactly one of npm test and the tiers", () => {
    const all = testFiles(path.join(root, "test")).sort();
    const runs = ["", ...tiers.map((t) => t.name)].map((t) => selected(t));
    expect(runs.flat().sort()).toEqual(all);
    for (const [i, tier] of tiers.entries())
      expect({ tier: tier.name, empty: runs[i + 1].length === 0 }).toEqual({ tier: tier.name, empty: false });
    expect(runs[0]).toContain("test/render/cli.test.ts");
    expect(runs[0]).not.toContain("test/render/diff.test.ts");
  });

  test("docs/testing.md names each tier's command", () => {
    const doc = fs.readFileSync(path.join(root, "docs/testing.md"), "utf8");
    for (const tier of tiers) expect(doc).toContain(`\`npm run test:${tier.name}\``);
  });
});

describe("the closing line", () => {
  const result = (title: string, status = "pending") => ({ ancestorTitles: [], title, status });
  const results = (...tests: ReturnType<typeof result>[]) => ({
    numPassedTests: 10,
    numFailedTests: 0,
    numPendingTests: tests.length,
    numTodoTests: 0,
    testResults: [{ testFilePath: path.join(root, "test/x.test.ts"), testResults: tests }],
  });
  const closing = (ci: boolean, ...tests: ReturnType<typeof result>[]) => {
    const saved = process.env.CI;
    const lines: string[] = [];
    const once = process.once.bind(process);
    process.once = ((event: string, listener: () => void) => {
      if (event === "exit") {
        const write = process.stderr.write.bind(process.stderr);
        process.stderr.write = (text: string) => {
          lines.push(text);
          return true;
        };
        listener();
        process.stderr.write = write;
        return process;
      }
      return once(event, listener);
    }) as typeof process.once;
    if (ci) process.env.CI = "true";
    else delete process.env.CI;
    try {
      const reporter = new SummaryReporter({ rootDir: root });
      reporter.onRunComplete([], results(...tests));
      return { line: lines.join(""), error: reporter.getLastError()?.message };
    } finally {
      process.once = once;
      if (saved === undefined) delete process.env.CI;
      else process.env.CI = saved;
    }
  };
  // The reasons test/upstream/reference.ts gives: no reference folder, and one that lacks what the pins need.
  const noReference = resolveReference({ PLATFORM_REFERENCE: "/nonexistent-reference" }).problem;
  const emptyReference = fs.mkdtempSync(path.join(os.tmpdir(), "reference-"));
  fs.mkdirSync(path.join(emptyReference, "charts"));
  fs.mkdirSync(path.join(emptyReference, "upstream"));
  const lacking = resolveReference({ PLATFORM_REFERENCE: emptyReference }).problem;
  fs.rmSync(emptyReference, { recursive: true, force: true });
  const reference = `against the upstream (skipped: ${noReference})`;
  const helm = "every release templated (skipped: no helm: set HELM, no charts at /x/charts)";

  test("names each group of skipped tests, what it needs and what enables it, in one line", () => {
    const { line, error } = closing(
      false,
      result(reference),
      result(reference),
      result(helm),
      result("just skipped"),
    );
    const [reference_, , helm_] = groups;
    expect(line).toBe(
      `10 passed, 0 failed, 4 skipped: 2 need ${reference_.needs} (enable: ${reference_.enable}); 1 need ${helm_.needs} (enable: ${helm_.enable}); 1 skipped by test/x.test.ts itself\n`,
    );
    expect(line.split("\n")).toHaveLength(2);
    expect(error).toBeUndefined();
  });

  test("under CI=true, a test skipped for want of what CI has fails the run", () => {
    const { line, error } = closing(true, result(helm));
    expect(line).toContain(
      ". CI=true: CI has helm and the pinned charts, so these tests must run, not skip\n",
    );
    expect(error).toBe("tests skipped under CI=true for want of helm and the pinned charts");
    expect(closing(true, result("just skipped")).error).toBeUndefined();
    // CI does not have Linkerd's dashboards either: counted and explained, not failed.
    expect(closing(true, result("dashboards (skipped: no upstream dashboards at /x)")).error).toBeUndefined();
  });

  test("each group knows the reasons the tests give", () => {
    expect(groupOf(reference)?.id).toBe("reference");
    expect(lacking).toMatch(/lacks charts\/cert-manager-/);
    expect(groupOf(`the chart bump (skipped: ${lacking})`)?.id).toBe("reference");
    expect(groupOf(helm)?.id).toBe("helm");
    expect(
      groupOf("the CRD charts (skipped: no helm binary (set HELM); no traefik 41.3.0 in /x/charts)")?.id,
    ).toBe("helm");
    expect(groupOf("render --diff a git ref (no git)")?.id).toBe("git");
    expect(groupOf("Linkerd's dashboards (skipped: no upstream dashboards at /x)")?.id).toBe("dashboards");
  });
});
