/**
 * The jest tiers beside the everyday `npm test`: each a set of test files with its own npm script
 * (`npm run test:<name>`), kept out of `npm test` for its time; CI runs every one (.ci/run).
 * jest.config.js reads this table; test/tiers.test.ts holds package.json's scripts and docs/testing.md
 * to it. (`npm run test:cluster` and `npm run test:real` are not jest runs: test/cluster/tier.ts, test/real.)
 */

/** @type {readonly { name: string, paths: readonly string[], what: string }[]} paths: globs from the repository's root */
const tiers = [
  {
    name: "renders",
    paths: ["test/render/render.test.ts", "test/render/diff.test.ts", "test/validation/*.test.ts"],
    what: "whole renders of every stack and example, validated against the published schemas; the property tests; render diffs",
  },
  {
    name: "docs",
    paths: ["test/docs.test.ts", "test/api.test.ts"],
    what: "every block of the README and docs against the code, and the public API's documentation, with the TypeScript compiler",
  },
  {
    name: "scale",
    paths: ["test/render/scale.test.ts"],
    what: "the 1,000-app environment",
  },
  {
    name: "package",
    paths: ["test/package/*.test.ts"],
    what: "the packed tarball installed into new programs",
  },
];

/**
 * Which test files a run takes, as jest options: for `npm run test:<tier>` that tier's files
 * (`testMatch`); for `npm test` every test file but the tiers' (`testPathIgnorePatterns`).
 */
function selection(tierName) {
  const tier = tiers.find((t) => t.name === tierName);
  if (tier) return { testMatch: tier.paths.map((p) => `<rootDir>/${p}`) };
  return {
    testMatch: ["<rootDir>/test/**/*.test.ts"],
    testPathIgnorePatterns: [
      "/node_modules/",
      ...tiers.flatMap((t) =>
        t.paths.map((p) => `<rootDir>/${p.replace(/\./g, "\\.").replace(/\*/g, "[^/]*")}$`),
      ),
    ],
  };
}

module.exports = { tiers, selection };
