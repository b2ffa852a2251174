import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import { main } from "../../lib/render/cli";
import type { CliIo } from "../../lib/render/commandLine";
import {
  indexFileName,
  recordedIndexReader,
  versionsReport,
  versionsText,
  type VersionsReport,
} from "../../lib/render/versions";
import { charts, istioVersions } from "../../lib/versions";
import { findHelm } from "../../lib/cluster";
import { chartDirOf } from "../../lib/deploy/chartSource";
import { chartsDir, chartsProblem } from "../upstream/reference";

/**
 * `gke-mesh-platform versions`: every pin with its source, app version and CRDs; against a chart
 * repository's index.yaml, what is behind and by how much; the recorded advisories that reach a pin;
 * offline, it says so.
 */

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "charts-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A Helm repository index (`helm repo index`): entries by chart, each release with its version. */
function index(file: string, entries: Record<string, string[]>): void {
  const doc = {
    apiVersion: "v1",
    entries: Object.fromEntries(
      Object.entries(entries).map(([chart, versions]) => [
        chart,
        versions.map((version) => ({
          name: chart,
          version,
          appVersion: version,
          digest: "0".repeat(64),
          urls: [],
        })),
      ]),
    ),
    generated: "2026-11-26T00:00:00Z",
  };
  fs.writeFileSync(path.join(dir, file), YAML.stringify(doc));
}

test("offline, every pin is listed with its source, app version and CRDs, and the advisories that reach it", async () => {
  const report = await versionsReport();
  expect(report.offline).toBe(true);
  expect(report.pins.map((p) => p.chart)).toEqual(Object.values(charts).map((c) => c.chart));
  const traefik = report.pins.find((p) => p.name === "traefik");
  expect(traefik?.crds).toBe("traefik.io, hub.traefik.io (crds/: Helm never upgrades them)");
  const text = versionsText(report);
  expect(text).toContain("Offline: no chart repository was asked (--offline)");
  expect(text).toContain(`  image istioHub: docker.io/istio`);
  if (istioVersions[0] === "1.30.3") {
    // The pinned Istio predates the fix: users are told, and told what to do before the package moves.
    expect(text).toContain(
      "ISTIO-SECURITY-2026-006 (2026-08-26) reaches base 1.30.3, istiod 1.30.3, cni 1.30.3, ztunnel 1.30.3, gateway 1.30.3; fixed in 1.29.7, 1.30.4",
    );
    expect(text).toContain("meanwhile: run istiod at 1.30.4 or later as a canary revision");
  }
});

test("against recorded indexes: how far behind each pin is, on its own line and in all; pre-releases never count", async () => {
  index(indexFileName("https://charts.jetstack.io"), {
    "cert-manager": [
      "v1.20.9",
      charts.certManager.version,
      "v1.21.3",
      "v1.21.9",
      "v1.22.0",
      "v1.23.0-alpha.1",
    ],
    "trust-manager": [charts.trustManager.version],
  });
  const report: VersionsReport = await versionsReport(recordedIndexReader(dir));
  expect(report.offline).toBe(false);
  const pin = (name: string) => report.pins.find((p) => p.name === name);
  expect(pin("certManager")?.upstream).toEqual({
    newestPatch: "v1.21.9",
    newest: "v1.22.0",
    patchesBehind: 2,
    releasesBehind: 3,
  });
  expect(pin("trustManager")?.upstream?.releasesBehind).toBe(0);
  // The same repository holds istio-csr, but its index lists none: said, not guessed.
  expect(pin("istioCsr")?.unreachable).toBe("its index lists no cert-manager-istio-csr");
  expect(pin("traefik")?.unreachable).toMatch(/^no recorded index .*traefik.github.io_charts.yaml$/);
  const text = versionsText(report);
  expect(text).toContain(
    `  cert-manager ${charts.certManager.version}: BEHIND: v1.21.9 on its line (2 newer), v1.22.0 newest (3 newer in all)`,
  );
  expect(text).toContain(`  trust-manager ${charts.trustManager.version}: current`);
});

/**
 * An index written by a real helm (`helm repo index`) over the pinned ingress-nginx chart packaged at three
 * versions, a pre-release among them: the reader takes helm's own format, not only the one the test writes.
 */
const helm = findHelm();
const ingressChart = chartsDir
  ? chartDirOf(chartsDir, charts.ingressNginx.chart, charts.ingressNginx.version)
  : undefined;
const realIndexSkip = !helm
  ? "no helm binary (set HELM)"
  : !ingressChart
    ? (chartsProblem ?? "no reference charts")
    : undefined;
(realIndexSkip ? test.skip : test)(
  `an index written by a real helm${realIndexSkip ? ` (skipped: ${realIndexSkip})` : ""}`,
  () => {
    const pinned = charts.ingressNginx.version;
    const [major, minor, patch] = pinned.split(".").map(Number);
    const older = `${major}.${minor}.${Math.max(0, patch - 1)}`;
    const preRelease = `${major}.${minor}.${patch + 1}-beta.1`;
    const packages = fs.mkdtempSync(path.join(os.tmpdir(), "charts-"));
    try {
      for (const version of [older, pinned, preRelease]) {
        const packed = spawnSync(
          helm as string,
          ["package", ingressChart as string, "--version", version, "-d", packages],
          {
            encoding: "utf8",
          },
        );
        expect(packed.stderr).toBe("");
      }
      const indexed = spawnSync(helm as string, ["repo", "index", packages], { encoding: "utf8" });
      expect(indexed.status).toBe(0);
      fs.copyFileSync(
        path.join(packages, "index.yaml"),
        path.join(dir, indexFileName(charts.ingressNginx.repo)),
      );
    } finally {
      fs.rmSync(packages, { recursive: true, force: true });
    }
    return versionsReport(recordedIndexReader(dir)).then((report) => {
      expect(report.pins.find((p) => p.name === "ingressNginx")?.upstream).toEqual({
        newestPatch: pinned,
        newest: pinned,
        patchesBehind: 0,
        releasesBehind: 0,
      });
    });
  },
);

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    cwd: dir,
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    invokedAs: "gke-mesh-platform versions",
    registerTypeScript: false,
  };
  const code = await main(argv, io);
  return { code, stdout: out.join("\n"), stderr: err.join("\n") };
}

test("the command: --json for automation, --index-dir for recorded indexes, wrong lines exit 2", async () => {
  const json = await run(["versions", "--offline", "--json"]);
  expect(json.code).toBe(0);
  expect((JSON.parse(json.stdout) as VersionsReport).pins.length).toBe(Object.keys(charts).length);
  const recorded = await run(["versions", "--index-dir", "."]);
  expect(recorded.code).toBe(0);
  expect(recorded.stdout).toContain("no chart repository answered (no recorded index");
  expect(await run(["versions", "stale"])).toEqual({
    code: 2,
    stdout: "",
    stderr:
      "gke-mesh-platform versions: it takes no arguments, not stale\nrun gke-mesh-platform versions --help for how to use it",
  });
  expect((await run(["versions", "--offline", "--index-dir", "."])).code).toBe(2);
  expect((await run(["versions", "--index-dir", "missing"])).stderr).toContain(
    "--index-dir missing: no such folder",
  );
});
