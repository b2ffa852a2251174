/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
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
  // A test run leaves no temp folder behind (test/tempFolders.js).
  globalSetup: "<rootDir>/test/globalSetup.js",
  globalTeardown: "<rootDir>/test/globalTeardown.js",
  reporters: ["default", "<rootDir>/test/summaryReporter.js"],
};
