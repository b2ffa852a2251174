import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { MissingChartsError, objectSetOf, type HelmTemplater } from "../../lib/cluster";
import { chartDirOf, pullCommand } from "../../lib/deploy/chartSource";

/** Finding the pinned charts in a user's chart folder, and saying how to fetch the missing ones. */

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "charts-"));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function chart(folder: string, name: string, version: string): string {
  const at = path.join(dir, folder);
  fs.mkdirSync(at, { recursive: true });
  fs.writeFileSync(path.join(at, "Chart.yaml"), `apiVersion: v2\nname: ${name}\nversion: ${version}\n`);
  return at;
}

test("each layout helm pull --untar leaves is found, and only at the pinned version", () => {
  expect(chartDirOf(dir, "traefik", "41.3.0")).toBeUndefined();
  const flat = chart("traefik-41.3.0", "traefik", "41.3.0");
  expect(chartDirOf(dir, "traefik", "41.3.0")).toBe(flat);
  const nested = chart("istiod-1.30.3/istiod", "istiod", "1.30.3");
  expect(chartDirOf(dir, "istiod", "1.30.3")).toBe(nested);
  chart("cert-manager", "cert-manager", "v1.20.0");
  expect(chartDirOf(dir, "cert-manager", "v1.21.1")).toBeUndefined();
  const bare = chart("trust-manager", "trust-manager", "v0.24.0");
  expect(chartDirOf(dir, "trust-manager", "v0.24.0")).toBe(bare);
});

test("the pull command puts the chart where it is then found", () => {
  expect(
    pullCommand(dir, { repo: "https://traefik.github.io/charts", name: "traefik", version: "41.3.0" }),
  ).toBe(
    `helm pull traefik --repo https://traefik.github.io/charts --version 41.3.0 --untar --untardir ${dir}/traefik-41.3.0`,
  );
});

test("a render whose charts are missing names each and the command that fetches it, before helm runs", async () => {
  const release = (name: string, chartName: string, version: string, repo: string) => ({
    name,
    namespace: name,
    chart: chartName,
    version,
    repo,
    values: {},
    skipCrds: false,
  });
  const input = {
    label: "t",
    tier: "dev" as const,
    objects: [],
    gke: { gatewayApi: true, managedPrometheus: false },
    releases: [
      release("traefik", "traefik", "41.3.0", "https://traefik.github.io/charts"),
      release("cert-manager", "cert-manager", "v1.21.1", "https://charts.jetstack.io"),
    ],
  };
  chart("traefik-41.3.0", "traefik", "41.3.0");
  const templater = {
    template: () => Promise.reject(new Error("helm must not run")),
  } as unknown as HelmTemplater;
  await expect(objectSetOf(input, { templater, chartsDir: dir, kubeVersion: "1.36.0" })).rejects.toThrow(
    new MissingChartsError(dir, [input.releases[1]]).message,
  );
  expect(new MissingChartsError(dir, [input.releases[1]]).message).toBe(
    `${dir} lacks cert-manager v1.21.1; fetch them with:\n  helm pull cert-manager --repo https://charts.jetstack.io --version v1.21.1 --untar --untardir ${dir}/cert-manager-v1.21.1`,
  );
});
