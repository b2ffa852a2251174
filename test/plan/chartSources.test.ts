import * as crypto from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as k8s from "@pulumi/kubernetes";
import { CertManager } from "../../lib/addons";
import { crdCharts, crdChartsOf } from "../../lib/crds";
import { standaloneCharts } from "../../lib/deploy";
import { charts, istioVersions } from "../../lib/versions";
import { input, plan, problems, release, render, renderPlatform, RELEASE } from "../helpers";

const made: string[] = [];
afterEach(() => made.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/**
 * Where the charts come from (`platform:chartSource`): each chart's upstream repository, a mirror (an OCI
 * registry, whose digests Helm checks, or an HTTPS repository), or a folder of the pinned charts, whose
 * archives the platform checks against their digests. Every problem is found before anything is deployed.
 */

const dev = { mesh: { kind: "linkerd" }, ingress: { kind: "traefik" } };
const digest = (n: number) => `sha256:${String(n).repeat(64).slice(0, 64)}`;

/** The chart names and versions of every release of a render. */
function releaseCharts(overrides: Record<string, unknown>) {
  return renderPlatform(overrides).then((result) =>
    result.resources
      .filter((r) => r.type === RELEASE)
      .map((r) => ({
        name: String(r.inputs.name),
        chart: String(r.inputs.chart),
        version: String(r.inputs.version),
        repo: (r.inputs.repositoryOpts as { repo?: string } | undefined)?.repo,
      })),
  );
}

test("by default each chart comes from its upstream repository, by name", async () => {
  const releases = await releaseCharts(dev);
  expect(releases.find((r) => r.name === "cert-manager")).toEqual({
    name: "cert-manager",
    chart: "cert-manager",
    version: charts.certManager.version,
    repo: "https://charts.jetstack.io",
  });
  expect(releases.every((r) => r.repo?.startsWith("https://"))).toBe(true);
});

test("an OCI mirror serves every chart as <mirror>/<chart>, and a digest pins it by content", async () => {
  const mirror = "oci://europe-docker.pkg.dev/acme/charts";
  const releases = await releaseCharts({
    ...dev,
    chartSource: { mirror: `${mirror}/`, digests: { traefik: digest(7) } },
  });
  expect(releases.find((r) => r.name === "linkerd-control-plane")).toEqual({
    name: "linkerd-control-plane",
    chart: `${mirror}/linkerd-control-plane`,
    version: charts.linkerdControlPlane.version,
    repo: undefined,
  });
  // Helm pulls by digest and checks that the version's tag resolves to it.
  expect(releases.find((r) => r.name === "traefik")?.chart).toBe(`${mirror}/traefik@${digest(7)}`);
});

test("an HTTPS mirror is a Helm repository holding every chart under its own name", async () => {
  const releases = await releaseCharts({ ...dev, chartSource: { mirror: "https://charts.acme.internal" } });
  expect(new Set(releases.map((r) => r.repo))).toEqual(new Set(["https://charts.acme.internal"]));
  expect(releases.map((r) => r.chart)).toContain("linkerd-crds");
});

describe("a folder of the pinned charts", () => {
  /**
   * A folder with an archive per chart the dev environment installs, its CRD charts' included (the bytes
   * stand in for a .tgz).
   */
  function folder(): string {
    const dir = tempDir("charts-");
    const p = plan(dev);
    const installed = [
      ...Object.values(p.releases).map((r) => charts[r.chart]),
      ...crdChartsOf(p.crdOwners).map((c) => charts[crdCharts[c].chart]),
    ];
    for (const pin of installed)
      fs.writeFileSync(path.join(dir, `${pin.chart}-${pin.version}.tgz`), pin.chart);
    return dir;
  }
  const sha = (text: string) => `sha256:${crypto.createHash("sha256").update(text).digest("hex")}`;

  test("each release installs the archive, checked against its digest", async () => {
    const dir = folder();
    const releases = await releaseCharts({
      ...dev,
      chartSource: { folder: dir, digests: { traefik: sha("traefik") } },
    });
    expect(releases.find((r) => r.name === "traefik")).toEqual({
      name: "traefik",
      chart: path.join(dir, `traefik-${charts.traefik.version}.tgz`),
      version: charts.traefik.version,
      repo: undefined,
    });
  });

  test("an archive with another digest is refused, naming both digests", () => {
    const dir = folder();
    const found = problems(input({ ...dev, chartSource: { folder: dir, digests: { traefik: digest(1) } } }));
    expect(found).toEqual([
      {
        path: "platform:chartSource.digests.traefik",
        problem: `is ${digest(1)}, but ${path.join(dir, `traefik-${charts.traefik.version}.tgz`)} has ${sha("traefik")}: it is not the chart the digest names`,
        fix: `fetch traefik ${charts.traefik.version} again from https://traefik.github.io/charts, or correct the digest`,
      },
    ]);
  });

  test("a chart the folder lacks is named with the command that fetches it", () => {
    const dir = folder();
    fs.rmSync(path.join(dir, `linkerd-crds-${charts.linkerdCrds.version}.tgz`));
    expect(problems(input({ ...dev, chartSource: { folder: dir } }))).toEqual([
      {
        path: "platform:chartSource.folder",
        problem: `${JSON.stringify(dir)} holds no linkerd-crds ${charts.linkerdCrds.version} (neither linkerd-crds-${charts.linkerdCrds.version}.tgz nor the chart unpacked)`,
        fix: `fetch it: helm pull linkerd-crds --repo https://helm.linkerd.io/edge --version ${charts.linkerdCrds.version} --untar --untardir ${path.join(dir, `linkerd-crds-${charts.linkerdCrds.version}`)}`,
      },
    ]);
  });
});

test("what cannot work is refused: mirror and folder at once, a digest nothing checks, a chart not installed", () => {
  expect(
    problems(input({ ...dev, chartSource: { mirror: "oci://r.example.com/charts", folder: "charts" } })),
  ).toEqual([expect.objectContaining({ path: "platform:chartSource" })]);
  // From the upstream HTTPS repository, Helm would not check the digest.
  const unchecked = problems(input({ ...dev, chartSource: { digests: { traefik: digest(2) } } }));
  expect(unchecked.map((p) => p.path)).toEqual(["platform:chartSource.digests.traefik"]);
  expect(unchecked[0].problem).toContain("Helm does not check against a digest: the setting would not apply");
  expect(
    problems(
      input({
        ...dev,
        chartSource: { mirror: "oci://r.example.com/charts", digests: { istiodd: digest(3) } },
      }),
    ),
  ).toEqual([
    expect.objectContaining({
      path: "platform:chartSource.digests.istiodd",
      problem: "names no chart this environment installs, so it would check nothing",
    }),
  ]);
  expect(problems(input({ ...dev, chartSource: { mirror: "ftp://charts" } }))[0].path).toBe(
    "platform:chartSource.mirror",
  );
});

describe("an Istio canary at a version this package does not pin yet", () => {
  const [minor] = [Number(istioVersions[0].split(".")[1])];
  const next = `1.${minor + 1}.2`;
  const revisions = (charts?: Record<string, unknown>) => ({
    mesh: {
      kind: "istio",
      istio: {
        revisions: [
          { name: "default", version: istioVersions[0] },
          { name: "canary", version: next, ...(charts ? { charts } : {}) },
        ],
        defaultRevision: "default",
      },
    },
  });

  test("installs its istiod and the base chart from Istio's OCI registry, by digest", async () => {
    const result = await renderPlatform(revisions({ digests: { base: digest(4), istiod: digest(5) } }));
    const canary = release(result, "istiod-canary");
    expect([canary.inputs.chart, canary.inputs.version]).toEqual([
      `oci://ghcr.io/istio/release/charts/istiod@${digest(5)}`,
      next,
    ]);
    // Istio's CRDs at the newest revision's version, before the canary starts on them.
    const base = release(result, "istio-base");
    expect([base.inputs.chart, base.inputs.version]).toEqual([
      `oci://ghcr.io/istio/release/charts/base@${digest(4)}`,
      next,
    ]);
    // The running istiod stays on its pinned chart.
    expect(release(result, "istiod").inputs.chart).toBe("istiod");
    expect(result.warnings).toContainEqual(
      expect.stringContaining(`Istio ${next} (revision canary) is not pinned by this package`),
    );
  });

  test("needs the digests of the charts it installs, and names where to get them", () => {
    expect(problems(input(revisions()))).toEqual([
      expect.objectContaining({
        path: "platform:mesh.istio.revisions.1.charts",
        problem: `is missing: ${next} is not pinned by this package (it pins ${istioVersions.join(", ")}), so the platform needs the digests of the charts you reviewed`,
      }),
    ]);
  });

  test("a pinned version takes no charts, and an HTTPS repository cannot be checked by digest", () => {
    const pinned = {
      mesh: {
        kind: "istio",
        istio: {
          revisions: [
            {
              name: "a",
              version: istioVersions[0],
              charts: { digests: { base: digest(1), istiod: digest(2) } },
            },
          ],
        },
      },
    };
    expect(problems(input(pinned))).toEqual([
      expect.objectContaining({ path: "platform:mesh.istio.revisions.0.charts" }),
    ]);
    const https = revisions({
      repo: "https://blob.istio.io/istio-release/charts",
      digests: { base: digest(4), istiod: digest(5) },
    });
    expect(problems(input(https)).map((p) => p.path)).toEqual([
      "platform:mesh.istio.revisions.1.charts.digests.base",
      "platform:mesh.istio.revisions.1.charts.digests.istiod",
    ]);
  });
});

test("a building block used alone takes a chart source too, and refuses a chart it cannot find", async () => {
  const dir = tempDir("charts-");
  await expect(
    render(() => {
      const provider = new k8s.Provider("mine", { kubeconfig: "{}" });
      new CertManager("cm", {
        provider,
        charts: { ...standaloneCharts({ certManager: "certManager" }), source: { folder: dir, digests: {} } },
      });
    }),
  ).rejects.toThrow(`holds no cert-manager ${charts.certManager.version}`);
});
