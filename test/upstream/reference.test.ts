import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { charts, gatewayApi } from "../../lib/versions";
import { goModules } from "../../scripts/reference";
import { certManagerCrdFile, pinnedNeeds, sharedMarker, type Need } from "./needs";
import { resolveReference } from "./reference";

/**
 * Where the tests find the reference folder, and what they say when it lacks what the pins need: made here
 * in temp folders, with the environment given, so the machine's own reference does not matter.
 */

let tmp = "";
beforeAll(() => {
  // Made when the tests run, not when the file is read: a filtered run leaves nothing behind.
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "reference-test-"));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A reference folder with everything the pins need (empty files and folders), less `without`. */
function referenceAt(dir: string, without: readonly string[] = []): string {
  for (const need of pinnedNeeds().filter((n) => !without.includes(n.path))) {
    const p = path.join(dir, need.path);
    if (need.kind === "folder") fs.mkdirSync(p, { recursive: true });
    else {
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, "");
    }
  }
  return dir;
}

/** An environment with a shared folder at `<case>/shared` and the cache at `<case>/cache`. */
function caseEnv(name: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir, { recursive: true });
  return { SHARED_DIR: path.join(dir, "shared"), TOOLS_CACHE: path.join(dir, "cache"), ...extra };
}

const certManagerChart = `charts/cert-manager-${charts.certManager.version}`;

test("the pins need every chart's folder, cert-manager's CRDs and the Gateway API bundle", () => {
  const paths = pinnedNeeds().map((n) => n.path);
  for (const pin of Object.values(charts)) expect(paths).toContain(`charts/${pin.chart}-${pin.version}`);
  expect(paths).toContain(certManagerCrdFile(charts.certManager.version, "issuers"));
  expect(paths).toContain(`upstream/gateway-api-${gatewayApi.version}-${gatewayApi.channel}`);
  expect(new Set(paths).size).toBe(paths.length);
});

test("everything `npm run reference` prepares is something the pins need", () => {
  const needs = new Map(pinnedNeeds().map((n): [string, Need] => [n.path, n]));
  const prepared = goModules().flatMap((m) => m.items.map((i) => i.to));
  expect(prepared.filter((p) => !needs.has(p))).toEqual([]);
  expect(prepared).toContain(certManagerChart);
});

test("no shared folder and no PLATFORM_REFERENCE: no reference, and the reason names the shared folder", () => {
  const env = caseEnv("none");
  const r = resolveReference(env);
  expect(r.root).toBeUndefined();
  expect(r.charts).toBeUndefined();
  expect(r.problem).toContain(`no reference folder: no ${path.join(env.SHARED_DIR ?? "", "reference")}`);
  expect(r.lacks.length).toBe(pinnedNeeds().length);
});

test("a complete shared folder is the reference", () => {
  const env = caseEnv("complete");
  const shared = referenceAt(path.join(env.SHARED_DIR ?? "", "reference"));
  const r = resolveReference(env);
  expect(r).toMatchObject({ root: shared, charts: path.join(shared, "charts"), problem: undefined });
  expect(r.lacks).toEqual([]);
});

test("a shared folder the pins moved past: each lacking thing named, and `npm run reference`", () => {
  const env = caseEnv("behind");
  const lacking = [certManagerChart, certManagerCrdFile(charts.certManager.version, "issuers")];
  referenceAt(path.join(env.SHARED_DIR ?? "", "reference"), lacking);
  const r = resolveReference(env);
  expect(r.lacks.map((n) => n.path)).toEqual(lacking);
  expect(r.problem).toContain(
    `lacks ${certManagerChart} (the cert-manager ${charts.certManager.version} chart`,
  );
  expect(r.problem).toContain(
    "`npm run reference` prepares what Go modules hold from the Go module proxy (needs Go)",
  );
  expect(r.chartsProblem).toContain(certManagerChart);
  expect(r.chartsProblem).not.toContain("issuers");
});

test("the merged folder in the cache is the reference where its marker names this clone's shared folder", () => {
  const env = caseEnv("merged");
  const shared = referenceAt(path.join(env.SHARED_DIR ?? "", "reference"), [certManagerChart]);
  const merged = referenceAt(path.join(env.TOOLS_CACHE ?? "", "reference"));
  fs.writeFileSync(path.join(merged, sharedMarker), `${fs.realpathSync(shared)}\n`);
  expect(resolveReference(env)).toMatchObject({ root: merged, problem: undefined });
  // Made from another clone's shared folder: not this one's.
  fs.writeFileSync(path.join(merged, sharedMarker), "/elsewhere/shared/reference\n");
  expect(resolveReference(env)).toMatchObject({
    root: shared,
    lacks: [expect.objectContaining({ path: certManagerChart })],
  });
});

test("PLATFORM_REFERENCE is the reference, and a missing one is named; CHARTS_DIR and PLATFORM_REFERENCE_DIR move a half", () => {
  const env = caseEnv("explicit");
  const given = referenceAt(path.join(tmp, "explicit", "given"));
  expect(resolveReference({ ...env, PLATFORM_REFERENCE: given })).toMatchObject({
    root: given,
    problem: undefined,
  });
  const missing = path.join(tmp, "explicit", "missing");
  expect(resolveReference({ ...env, PLATFORM_REFERENCE: missing }).problem).toBe(
    `no reference folder at ${missing} (PLATFORM_REFERENCE)`,
  );
  const r = resolveReference({
    ...env,
    PLATFORM_REFERENCE: given,
    CHARTS_DIR: path.join(tmp, "explicit", "charts"),
    PLATFORM_REFERENCE_DIR: path.join(given, "upstream"),
  });
  expect(r.charts).toBe(path.join(tmp, "explicit", "charts"));
  expect(r.problem).toBe(`no folder ${path.join(tmp, "explicit", "charts")} (CHARTS_DIR)`);
});
