import * as fs from "fs";
import * as path from "path";

/**
 * A copied example installs what the README says the package needs: the Node.js floor, and the Pulumi
 * SDK, providers and Node types at the versions the package is tested with (its peer dependencies), so
 * an example never pulls an SDK below the package's floor.
 */

const root = path.resolve(__dirname, "..");
const own = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
  engines: { node: string };
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const examples = fs.readdirSync(path.join(root, "examples")).sort();

test.each(examples)("examples/%s/package.json asks for the package's floors", (name) => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, "examples", name, "package.json"), "utf8")) as {
    engines?: { node?: string };
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  expect({
    engines: pkg.engines,
    peers: Object.fromEntries(Object.keys(own.peerDependencies).map((p) => [p, pkg.dependencies[p]])),
    types: pkg.devDependencies["@types/node"],
    typescript: pkg.devDependencies.typescript,
  }).toEqual({
    engines: own.engines,
    peers: own.peerDependencies,
    types: own.devDependencies["@types/node"],
    typescript: own.devDependencies.typescript,
  });
});

test("the README's floors are the package's", () => {
  const readme = fs.readFileSync(path.join(root, "README.md"), "utf8");
  const floor = (range: string) => range.replace(/^[\^~>=]+/, "").replace(/\.0$/, "");
  expect(readme).toContain(`Node.js ${own.engines.node.replace(">=", "")} or 24`);
  for (const [name, range] of Object.entries(own.peerDependencies))
    expect({
      name,
      inReadme: readme.includes(`\`${name}\` ${floor(range).split(".").slice(0, 2).join(".")}`),
    }).toEqual({
      name,
      inReadme: true,
    });
});
