import type { ChartName } from "./charts";
import { compareVersions } from "./kubernetes";

/**
 * Security advisories and retirements known for the pinned upstreams, recorded with the pins so
 * `gke-mesh-platform versions` can say offline which pin an advisory reaches, and what fixes it. A pin
 * an advisory affects is a reason to move (an Istio revision can move before this package does:
 * docs/istio.md, "Canary upgrades").
 */
export interface Advisory {
  /** The charts whose pinned versions it concerns. */
  readonly charts: readonly ChartName[];
  /** The upstream's id, such as ISTIO-SECURITY-2026-006. */
  readonly id: string;
  readonly published: string;
  /** The versions it affects, as `from`-`to` ranges of the app version, inclusive. */
  readonly affected: readonly { readonly from: string; readonly to: string }[];
  /** The releases that fix it. */
  readonly fixedIn: readonly string[];
  readonly summary: string;
  readonly source: string;
  /** What a user can do before the package pins a fixed release. */
  readonly meanwhile?: string;
}

/** When the list was last checked against the upstreams' advisories. */
export const advisoriesCheckedOn = "2026-11-26";

export const advisories: readonly Advisory[] = [
  {
    charts: ["istioBase", "istiod", "istioCni", "ztunnel", "istioGateway"],
    id: "ISTIO-SECURITY-2026-006",
    published: "2026-08-26",
    affected: [
      { from: "1.29.0", to: "1.29.6" },
      { from: "1.30.0", to: "1.30.3" },
    ],
    fixedIn: ["1.29.7", "1.30.4"],
    summary:
      "13 Envoy CVEs in the proxies (CVSS up to 7.7: use-after-free, RBAC fail-open and bypasses, HTTP/2 memory exhaustion), a BackendTLSPolicy that fails open to plaintext on sidecars (GHSA-qm8v-g4f9-qhjx), and an EnvoyFilter pattern that can exhaust istiod",
    source: "istio/istio.io content/en/news/security/istio-security-2026-006/index.md",
    meanwhile:
      'run istiod at 1.30.4 or later as a canary revision, with its charts\' digests (docs/istio.md, "Canary upgrades"), and move the apps to it',
  },
];

/** The advisories that reach a chart at a version (by the pin's app version). */
export function advisoriesOf(chart: ChartName, appVersion: string): Advisory[] {
  return advisories.filter(
    (a) =>
      a.charts.includes(chart) &&
      a.affected.some(
        (r) => compareVersions(appVersion, r.from) >= 0 && compareVersions(appVersion, r.to) <= 0,
      ),
  );
}
