/**
 * Why a test skips, and what makes it run. A test that needs something a fresh clone lacks (the
 * upstream reference copies, helm and the pinned charts, git) skips with its reason in its title;
 * test/summaryReporter.js groups the skipped tests by these reasons and names, for each group, what
 * enables it. Under CI=true a skip for any of these reasons fails the run: CI has them all.
 *
 * Each group matches the reasons tests give in their titles: test/upstream/reference.ts's
 * `skipReason` and `chartsProblem`, and the words the helm, chart and git checks use ("no helm", "no charts at ...").
 */

/**
 * `ci`: CI has what the group needs, so under CI=true a skip in it fails the run.
 * @type {readonly { id: string, needs: string, enable: string, ci: boolean, patterns: readonly RegExp[] }[]}
 */
const groups = [
  {
    id: "reference",
    needs: "the reference folder (../shared/reference, and what the pins need beyond it)",
    enable:
      "put the team's shared folder beside the clone as ../shared (or set SHARED_DIR), run npm run reference (needs Go), then npm test (docs/testing.md)",
    ci: true,
    patterns: [/no reference folder/, /lacks .*npm run reference/, /needs the upstream reference/],
  },
  {
    id: "dashboards",
    needs: "Linkerd's Grafana dashboards (../shared/reference/upstream/dashboards)",
    enable:
      "copy the dashboards of linkerd/linkerd2's grafana/dashboards at the pinned tag there and run npm test; CI does not have them either",
    ci: false,
    patterns: [/no upstream dashboards/],
  },
  {
    id: "helm",
    needs: "helm and the pinned charts",
    ci: true,
    enable:
      "install Helm 3 (https://helm.sh/docs/intro/install/) or set HELM, and have the reference folder's charts (npm run reference), then npm test; npm run test:cluster runs the cluster tier",
    patterns: [/no helm/, /set HELM/, /no charts? (folder )?at /, /no [\w.-]+ v?\d[\w.-]* in \S*charts/],
  },
  {
    id: "git",
    needs: "git",
    ci: true,
    enable: "install git and run npm test",
    patterns: [/\bno git\b/],
  },
];

/** The group a skipped test belongs to, by its full title; undefined for a skip its code decides. */
function groupOf(fullTitle) {
  return groups.find((g) => g.patterns.some((p) => p.test(fullTitle)));
}

module.exports = { groups, groupOf };
