import pulumi from "@pulumi/eslint-plugin";
import prettier from "eslint-config-prettier";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["node_modules/", "dist/", "out/", "coverage/", "**/*.js", "**/*.mjs"] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    // One program for the whole repository: examples resolve the package by name through its paths mapping.
    languageOptions: {
      parserOptions: { project: ["./tsconfig.json"], tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "@pulumi": pulumi },
    rules: {
      // An Output inside a template literal renders as a warning string, not its value: use pulumi.interpolate.
      "@pulumi/no-output-in-template-literal": "error",
      "@pulumi/no-output-instance-in-template-literal": "error",
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/restrict-template-expressions": [
        "error",
        { allowNumber: true, allowBoolean: true },
      ],
      // cdk8s's Testing.app() makes a temp folder per call that nothing removes.
      "no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "cdk8s",
              importNames: ["Testing"],
              message:
                "Testing.app() leaves a temp folder behind: use new Chart(new App(), id) and chart.toJson().",
            },
          ],
        },
      ],
    },
  },
  prettier,
);
