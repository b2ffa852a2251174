import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import { readProject, stacksOf } from "../../lib/render";
import { stackConfigJsonSchema } from "../../lib/render/stackSchema";

/**
 * The JSON Schema of a stack file, made from the config's zod schema, shipped in the package for
 * editors: it accepts every stack file of the repository and its examples, and refuses a misspelled
 * platform key, a wrong enum value and a wrong type, where an editor then underlines them.
 */

// A JSON Schema validator: ajv, as the repository's lint tools install it (eslint's dependency).
// eslint-disable-next-line @typescript-eslint/no-require-imports -- ajv 6 publishes CommonJS without types here
const Ajv = require("ajv") as new (options: { allErrors: boolean }) => {
  compile(
    schema: unknown,
  ): ((data: unknown) => boolean) & { errors?: { dataPath: string; message: string }[] | null };
};

const root = path.resolve(__dirname, "../..");
const validate = new Ajv({ allErrors: true }).compile(stackConfigJsonSchema());

const stackFiles = [
  root,
  ...fs.readdirSync(path.join(root, "examples")).map((e) => path.join(root, "examples", e)),
].flatMap((dir) => {
  const project = readProject(dir);
  return stacksOf(project).map((stack) => path.join(project.stackConfigDir, `Pulumi.${stack}.yaml`));
});

test.each(stackFiles.map((f) => [path.relative(root, f)]))("%s is valid", (file) => {
  const ok = validate(YAML.parse(fs.readFileSync(path.join(root, file), "utf8")));
  expect(ok ? [] : validate.errors).toEqual([]);
});

test("a misspelled platform key, a wrong enum value, a wrong type and an encrypted value", () => {
  const config = (extra: Record<string, unknown>) => ({
    config: { "gcp:project": "acme-dev", "gcp:region": "europe-west1", "platform:tier": "dev", ...extra },
  });
  expect(validate(config({ "platform:meshh": { kind: "linkerd" } }))).toBe(false);
  expect(validate(config({ "platform:mesh": { kind: "linkred" } }))).toBe(false);
  expect(validate(config({ "platform:apps": [{ name: "a", image: "a:1", port: "80" }] }))).toBe(false);
  // Another namespace's keys (the program's own, a provider's) are not the platform's to judge.
  expect(validate(config({ "shop:replicas": 3, "gcp:zone": "europe-west1-b" }))).toBe(true);
  // A value Pulumi encrypted, at the top or inside (pulumi config set --secret --path).
  expect(
    validate(config({ "platform:ingress": { kind: "traefik", acme: { email: { secure: "v1:abc" } } } })),
  ).toBe(true);
});

test("the package ships it where init's stack file and the README point editors", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
    exports: Record<string, string>;
    scripts: Record<string, string>;
    files: string[];
  };
  expect(pkg.exports["./stack-config.schema.json"]).toBe("./dist/stack-config.schema.json");
  expect(pkg.scripts.build).toContain("tsx scripts/stackSchema.ts");
  expect(pkg.files).toContain("dist");
  const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
  expect(readme).toContain(
    "# yaml-language-server: $schema=./node_modules/gke-mesh-platform/dist/stack-config.schema.json",
  );
});
