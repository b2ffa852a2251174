import * as fs from "fs";
import * as path from "path";

/**
 * The shape docs/architecture.md describes, kept: everything that differs by mesh is answered in
 * lib/meshes, so no other file compares the mesh's kind.
 */

const lib = path.resolve(__dirname, "../lib");

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith(".ts") ? [p] : [];
  });
}

/** A comparison with a mesh's name, or a switch on it. */
const meshComparison =
  /(?:[!=]==\s*"(?:linkerd|istio)"|"(?:linkerd|istio)"\s*[!=]==|case\s+"(?:linkerd|istio)"\s*:|mesh\w*\.kind\s*[!=]==)/;

test("only the mesh implementations and the config schema compare the mesh's kind", () => {
  const comparing = sources(lib)
    .filter((file) => meshComparison.test(fs.readFileSync(file, "utf8")))
    .map((file) => path.relative(lib, file))
    .sort();
  const allowed = (file: string) => file.startsWith("meshes/") || file === "config/schema.ts";
  expect(comparing.filter((f) => !allowed(f))).toEqual([]);
  expect(comparing.length).toBeLessThanOrEqual(4);
});
