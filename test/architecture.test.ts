import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";

/**
 * The shape docs/architecture.md describes, kept: every folder under lib/ is a layer of its table,
 * importing the layers its row says; everything that differs by mesh is answered in lib/meshes, so no
 * other file compares the mesh's kind.
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

/** The layers each layer's files import (relative imports into another folder of lib/), and whether only for types. */
function importsByLayer(): Map<string, Map<string, { typesOnly: boolean }>> {
  const byLayer = new Map<string, Map<string, { typesOnly: boolean }>>();
  for (const file of sources(lib)) {
    const layer = path.relative(lib, file).split(path.sep)[0];
    if (layer.endsWith(".ts")) continue; // lib/index.ts, the public API, is no layer
    const imports = byLayer.get(layer) ?? new Map<string, { typesOnly: boolean }>();
    byLayer.set(layer, imports);
    const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
    for (const statement of source.statements) {
      let specifier: ts.Expression | undefined;
      let typesOnly = false;
      if (ts.isImportDeclaration(statement)) {
        specifier = statement.moduleSpecifier;
        const clause = statement.importClause;
        const named = clause?.namedBindings;
        typesOnly =
          clause !== undefined &&
          (clause.isTypeOnly ||
            (clause.name === undefined &&
              named !== undefined &&
              ts.isNamedImports(named) &&
              named.elements.every((e) => e.isTypeOnly)));
      } else if (ts.isExportDeclaration(statement)) {
        specifier = statement.moduleSpecifier;
        const named = statement.exportClause;
        typesOnly =
          statement.isTypeOnly ||
          (named !== undefined && ts.isNamedExports(named) && named.elements.every((e) => e.isTypeOnly));
      }
      if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith(".")) continue;
      const target = path.relative(lib, path.resolve(path.dirname(file), specifier.text)).split(path.sep)[0];
      if (target === layer) continue;
      imports.set(target, { typesOnly: typesOnly && (imports.get(target)?.typesOnly ?? true) });
    }
  }
  return byLayer;
}

/** The layer table of docs/architecture.md: each row's layer and what its imports column says. */
function layerTable(): { layer: string; imports: string }[] {
  const doc = fs.readFileSync(path.resolve(__dirname, "../docs/architecture.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Layers"), doc.indexOf("\n### ", doc.indexOf("## Layers")));
  return section
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const cells = line.split(/(?<!\\)\|/).map((c) => c.trim());
      return { layer: cells[1].replace(/`/g, ""), imports: cells[cells.length - 2] };
    });
}

test("docs/architecture.md's layer table has every folder under lib/, each importing what its row says", () => {
  const table = layerTable();
  const folders = fs
    .readdirSync(lib, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);
  expect(table.map((r) => r.layer).sort()).toEqual(folders.sort());

  const imports = importsByLayer();
  table.forEach((row, i) => {
    const above = table.slice(0, i).map((r) => r.layer);
    const actual = imports.get(row.layer) ?? new Map<string, { typesOnly: boolean }>();
    const imported = [...actual.keys()].sort();
    if (row.imports === "everything above") {
      expect({ layer: row.layer, beyondAbove: imported.filter((l) => !above.includes(l)) }).toEqual({
        layer: row.layer,
        beyondAbove: [],
      });
      return;
    }
    // `nothing`, or layer names, each above this row or followed by "(types only)".
    const listed = row.imports === "nothing" ? [] : row.imports.split(/,\s*/);
    const parsed = listed.map((entry) => {
      const m = /^(\w+)( \(types only\))?$/.exec(entry);
      if (!m) throw new Error(`${row.layer}: "${entry}" is no layer name (nor "<layer> (types only)")`);
      return { layer: m[1], typesOnly: m[2] !== undefined };
    });
    expect({ layer: row.layer, imports: imported }).toEqual({
      layer: row.layer,
      imports: parsed.map((p) => p.layer).sort(),
    });
    for (const p of parsed) {
      if (p.typesOnly) {
        expect({ layer: row.layer, [p.layer]: actual.get(p.layer) }).toEqual({
          layer: row.layer,
          [p.layer]: { typesOnly: true },
        });
      } else {
        expect({ layer: row.layer, importsFromBelow: above.includes(p.layer) ? [] : [p.layer] }).toEqual({
          layer: row.layer,
          importsFromBelow: [],
        });
      }
    }
  });
});
