/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  // Transpile only (isolatedModules in tsconfig.json); `npm run lint` type-checks.
  transform: { "^.+\\.ts$": ["ts-jest", { tsconfig: "tsconfig.json" }] },
  // Examples import the package by name, as a user's program does; in this repository that is lib/.
  moduleNameMapper: { "^gke-mesh-platform$": "<rootDir>/lib/index.ts" },
  testTimeout: 60000,
  reporters: ["default", "<rootDir>/test/summaryReporter.js"],
};
