import * as fs from "fs";
import { checkValueKeys } from "../../lib/deploy";
import { Platform } from "../../lib/platform";
import { charts, unknownValuePaths, valuesKeysOf, type ChartName } from "../../lib/versions";
import { record, recordFile, sources, unrecorded } from "../../scripts/valuesKeys";
import { configError, plan, render } from "../helpers";
import { referenceDir, skipReason } from "../upstream/reference";

/**
 * Every value the platform or a user sets on a chart must be one the pinned chart has: Helm ignores
 * any other without a word. lib/versions/values-keys.json records each chart's keys at its pin; every
 * release is checked against it at render, so every test that renders checks the platform's values.
 */

test("every pinned chart has its key list recorded at its pinned version, or a stated reason why not", () => {
  const names = Object.keys(charts) as ChartName[];
  const recorded = (c: ChartName) => valuesKeysOf(c, charts[c].version) !== undefined;
  expect({
    neither: names.filter((c) => !recorded(c) && !unrecorded[c]),
    both: names.filter((c) => recorded(c) && unrecorded[c]),
  }).toEqual({ neither: [], both: [] });
});

test("a misspelled override key fails before anything is created, naming the key and the likely fix", () => {
  const err = configError(
    () =>
      new Platform("p", {
        plan: plan({
          overrides: { charts: { "linkerd-control-plane": { values: { proxy: { nativeSidcar: true } } } } },
        }),
      }),
  );
  expect(err.problems).toHaveLength(1);
  expect(err.problems[0]).toMatchObject({
    path: "platform:overrides.charts.linkerd-control-plane.values.proxy.nativeSidcar",
    problem: expect.stringContaining(
      "linkerd-control-plane 2026.8.3 has no value proxy.nativeSidcar; Helm would ignore it",
    ) as string,
    fix: expect.stringContaining("did you mean proxy.nativeSidecar?") as string,
  });
});

test("keys below a free-form map, or documented only as a comment, are accepted", () => {
  // podAnnotations: {} takes any annotation; enableHttpRoutes is documented as a comment in linkerd-crds.
  expect(
    unknownValuePaths("linkerdControlPlane", "2026.8.3", { podAnnotations: { "example.com/team": "a" } }),
  ).toEqual([]);
  expect(unknownValuePaths("linkerdCrds", "2026.8.3", { enableHttpRoutes: false })).toEqual([]);
  // A scalar key cannot take children.
  expect(unknownValuePaths("linkerdCrds", "2026.8.3", { installGatewayAPI: { enabled: false } })).toEqual([
    ["installGatewayAPI", "enabled"],
  ]);
});

test("a value the platform itself sets and the chart lacks is reported as a platform defect", () => {
  expect(() =>
    checkValueKeys(
      "linkerdControlPlane",
      "2026.8.3",
      "linkerd-control-plane",
      { identity: { externalCa: true } },
      undefined,
    ),
  ).toThrow(/sets identity.externalCa on linkerd-control-plane 2026.8.3, which the chart does not have/);
});

test("a version with no recorded key list is not checked", () => {
  expect(unknownValuePaths("istiod", "1.31.0", { anything: true })).toBeUndefined();
});

(referenceDir ? describe : describe.skip)(
  `the record matches the pinned charts (${referenceDir ? "reference present" : skipReason})`,
  () => {
    test("values-keys.json is what npm run record-values-keys derives from the pinned values.yaml files", () => {
      const current = JSON.parse(fs.readFileSync(recordFile, "utf8")) as unknown;
      expect(current).toEqual(record(referenceDir as string));
      expect(Object.keys(current as object).sort()).toEqual(Object.keys(sources).sort());
    });
  },
);

test("Kubernetes fields a chart renders verbatim, and keys documented as comments, are accepted in overrides", async () => {
  const renders = (release: string, values: Record<string, unknown>, mesh: Record<string, unknown>) => {
    const p = plan({ mesh, overrides: { charts: { [release]: { values } } } });
    return render(() => new Platform("p", { plan: p }).outputs());
  };
  await expect(
    renders(
      "istiod",
      {
        meshConfig: { accessLogFile: "/dev/stdout" },
        resources: { limits: { memory: "2Gi" } },
        nodeSelector: { "cloud.google.com/gke-nodepool": "system" },
        pdb: { maxUnavailable: 1 },
      },
      { kind: "istio" },
    ),
  ).resolves.toBeDefined();
  await expect(
    renders(
      "cert-manager",
      { startupapicheck: { jobAnnotations: { "example.com/team": "platform" } } },
      { kind: "linkerd" },
    ),
  ).resolves.toBeDefined();
});

test("a key holding dots, where the chart has no such key, is the user's config error", () => {
  const err = configError(
    () =>
      new Platform("p", {
        plan: plan({
          mesh: { kind: "linkerd" },
          overrides: { charts: { "linkerd-control-plane": { values: { "cloud.google.com/x": "y" } } } },
        }),
      }),
  );
  expect(err.problems[0].path).toBe(
    "platform:overrides.charts.linkerd-control-plane.values.cloud.google.com/x",
  );
});
