const { selection } = require("./test/tiers");

// Below package.json's Node.js floor the tests would fail deep in the Pulumi SDK: say so in one line,
// as the command does (lib/render/nodeFloor.ts).
const floor = Number(/^>=\s*(\d+)/.exec(require("./package.json").engines.node)?.[1] ?? 0);
if (Number(process.versions.node.split(".")[0]) < floor) {
  console.error(
    `the tests need Node.js ${floor} or later (package.json engines), and this is Node.js ${process.versions.node}: install Node.js ${floor} or a later LTS (https://nodejs.org/en/download), or switch to it (nvm use ${floor})`,
  );
  process.exit(1);
}

// `npm test` runs every test file but the slower tiers' (test/tiers.js); `npm run test:<tier>` runs that
// tier's; jest run otherwise (`npx jest test/render/diff.test.ts`) takes any test file it is given.
const script = process.env.npm_lifecycle_event;
const files =
  script === "test" || script?.startsWith("test:")
    ? selection(script.slice("test:".length))
    : { testMatch: ["<rootDir>/test/**/*.test.ts"] };

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  ...files,
  // Transpile only, with swc (several times faster than ts-jest on a cold cache, as CI's is); `npm run
  // lint` type-checks. The published schema packages are ES modules and jest runs CommonJS, so they are
  // transpiled too.
  transform: {
    "^.+\\.(ts|js)$": [
      "@swc/jest",
      {
        jsc: { parser: { syntax: "typescript" }, target: "es2022" },
        module: { type: "commonjs" },
      },
    ],
  },
  transformIgnorePatterns: [
    "/node_modules/(?!(kubernetes-models|@kubernetes-models|is-cidr|cidr-regex|ip-regex|ajv-formats-draft2019|smtp-address-parser|schemes|uri-js)/)",
  ],
  // Examples import the package by name, as a user's program does; in this repository that is lib/.
  moduleNameMapper: {
    "^gke-mesh-platform$": "<rootDir>/lib/index.ts",
    "^gke-mesh-platform/check$": "<rootDir>/lib/check.ts",
    "^gke-mesh-platform/render$": "<rootDir>/lib/render/entry.ts",
    // What @pulumi/pulumi loads on import and the tests never call, loaded on first use (test/lazy).
    "^@npmcli/arborist$": "<rootDir>/test/lazy/arborist.js",
    "^normalize-package-data$": "<rootDir>/test/lazy/normalizePackageData.js",
    "^(?:\\.{1,2}/)+typescript-shim$": "<rootDir>/test/lazy/typescriptShim.js",
    // The schema packages publish only `import` exports; jest resolves `require`, so map them to their files.
    "^(kubernetes-models|@kubernetes-models/(?:gateway-api|cert-manager|prometheus-operator|traefik|istio|apimachinery))/(.+?)(?:\\.js)?$":
      "<rootDir>/node_modules/$1/$2.js",
    "^@kubernetes-models/(base|validate)$": "<rootDir>/node_modules/@kubernetes-models/$1/dist/index.js",
    "^@kubernetes-models/validate/runtime/(.+?)(?:\\.js)?$":
      "<rootDir>/node_modules/@kubernetes-models/validate/dist/runtime/$1.js",
  },
  testTimeout: 60000,
  // Every core: jest's default leaves one free, which on CI's two cores means a single worker.
  maxWorkers: "100%",
  // A worker that has grown past this after a test file is replaced: each file loads the Pulumi SDK and
  // the providers into its own module registry, and a worker that keeps the heap of twenty files
  // collects garbage longer, and can take longer than jest's half a second to exit at the end.
  workerIdleMemoryLimit: "600MB",
  // A test run leaves no temp folder behind (test/tempFolders.js).
  globalSetup: "<rootDir>/test/globalSetup.js",
  globalTeardown: "<rootDir>/test/globalTeardown.js",
  reporters: ["default", "<rootDir>/test/summaryReporter.js"],
};
