import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import {
  charts,
  images,
  istioFacts,
  istioOciCharts,
  retiredHostOf,
  retiredHosts,
  type ChartPin,
} from "../../lib/versions";
import { chartsDir, referenceDir, skipReason } from "../upstream/reference";

/**
 * No pinned source points at a host its project has retired: a pin there stops downloading on the day
 * the host goes away (Istio's Google-hosted charts and images, December 2026).
 */

test("no chart repository, image or image hub the platform pins is on a retired host", () => {
  const sources = [
    ...Object.values(charts).map((c) => c.repo),
    istioOciCharts,
    istioFacts.imageHub,
    ...Object.values(images),
  ];
  expect(sources.filter((s) => retiredHostOf(s)).map((s) => [s, retiredHostOf(s)?.host])).toEqual([]);
});

test("the retired hosts are recognised however a chart or image names them", () => {
  expect(retiredHostOf("https://istio-release.storage.googleapis.com/charts")?.project).toBe("Istio");
  expect(retiredHostOf("registry.istio.io/release/pilot:1.30.3")?.retiredOn).toBe("2026-12-08");
  expect(retiredHostOf("gcr.io/istio-release/proxyv2:1.30.3")?.replacement).toContain("docker.io/istio");
  expect(retiredHostOf("k8s.gcr.io/kube-state-metrics/kube-state-metrics:v2.9.2")?.host).toBe("k8s.gcr.io");
  // Another path on the same registry is not retired.
  expect(retiredHostOf("gcr.io/distroless/static:nonroot")).toBeUndefined();
  expect(retiredHostOf("https://blob.istio.io/istio-release/charts")).toBeUndefined();
  expect(retiredHosts.every((h) => h.source.length > 0 && /^\d{4}-\d{2}-\d{2}$/.test(h.retiredOn))).toBe(
    true,
  );
});

const withReference = referenceDir ? describe : describe.skip;
withReference(
  `each pin's app version and CRDs are its chart's${referenceDir ? "" : ` (${skipReason})`}`,
  () => {
    for (const [name, pin] of Object.entries(charts)) {
      test(`${name}: ${pin.chart} ${pin.version}`, () => {
        const dir = path.join(chartsDir ?? "", `${pin.chart}-${pin.version}`);
        const meta = YAML.parse(fs.readFileSync(path.join(dir, "Chart.yaml"), "utf8")) as {
          appVersion: string;
        };
        expect(pin.appVersion).toBe(String(meta.appVersion));
        // Helm never upgrades what a chart keeps in crds/ (its own or a subchart's): the pin says where its CRDs are.
        // A chart's crds/ is beside its Chart.yaml, and its subcharts are under charts/ (a subchart may be named
        // `crds`, as kube-prometheus-stack's is).
        const crdsDirs = (chart: string): string[] => {
          const subcharts = path.join(chart, "charts");
          return [
            ...[path.join(chart, "crds")].filter((d) => fs.existsSync(d)),
            ...(fs.existsSync(subcharts)
              ? fs
                  .readdirSync(subcharts, { withFileTypes: true })
                  .filter((e) => e.isDirectory())
                  .flatMap((e) => crdsDirs(path.join(subcharts, e.name)))
              : []),
          ];
        };
        const inCrdsDir = crdsDirs(dir).some((d) => fs.readdirSync(d).some((f) => /\.ya?ml$/.test(f)));
        expect((pin as ChartPin).crds?.in === "crds/").toBe(inCrdsDir);
      });
    }
  },
);
