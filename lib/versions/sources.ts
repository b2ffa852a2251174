/**
 * Where charts and images come from, and the hosts their projects have retired. A pin that points at a
 * retired host stops downloading on the day the host goes away, so every pinned source is checked
 * against this list (test/versions/sources.test.ts) and `gke-mesh-platform versions` reports any.
 */

/** A chart or image host an upstream project no longer publishes to. */
export interface RetiredHost {
  /** The host, with the path prefix that is retired where the host serves other things too. */
  readonly host: string;
  readonly project: string;
  /** The day downloads stop (or stopped) for good, as the project announced it. */
  readonly retiredOn: string;
  /** Where the project publishes instead. */
  readonly replacement: string;
  /** Where the project said so. */
  readonly source: string;
}

export const retiredHosts: readonly RetiredHost[] = [
  {
    host: "istio-release.storage.googleapis.com",
    project: "Istio",
    // The last "scream test" switches the Google-hosted artifacts off from 8 December 2026 15:00 UTC.
    retiredOn: "2026-12-08",
    replacement: "https://blob.istio.io/istio-release/charts, or oci://ghcr.io/istio/release/charts",
    source: "istio/istio.io content/en/news/releases/1.31.x/announcing-1.31/upgrade-notes/index.md",
  },
  {
    host: "gcr.io/istio-release",
    project: "Istio",
    retiredOn: "2026-12-08",
    replacement: "docker.io/istio, or ghcr.io/istio/release",
    source: "istio/istio.io content/en/news/releases/1.31.x/announcing-1.31/upgrade-notes/index.md",
  },
  {
    host: "registry.istio.io",
    project: "Istio",
    retiredOn: "2026-12-08",
    replacement: "docker.io/istio, or ghcr.io/istio/release",
    source: "istio/istio.io content/en/news/releases/1.31.x/announcing-1.31/upgrade-notes/index.md",
  },
  {
    host: "k8s.gcr.io",
    project: "Kubernetes",
    // Frozen on 2023-04-03; registry.k8s.io has served every Kubernetes image since.
    retiredOn: "2023-04-03",
    replacement: "registry.k8s.io",
    source: "kubernetes.io/blog/2023/02/06/k8s-gcr-io-freeze-announcement",
  },
];

/** The host part of a chart repository URL, an OCI reference or an image reference. */
export function hostOf(reference: string): string {
  return reference.replace(/^[a-z]+:\/\//, "").replace(/\/+$/, "");
}

/** The retired host a chart repository URL, OCI reference or image reference points at, if any. */
export function retiredHostOf(reference: string): RetiredHost | undefined {
  const at = hostOf(reference);
  return retiredHosts.find((r) => at === r.host || at.startsWith(`${r.host}/`));
}

/** An OCI registry reference (`oci://host/path`), which Helm pulls as `<reference>/<chart>:<version>`. */
export function isOci(repo: string): boolean {
  return repo.startsWith("oci://");
}
