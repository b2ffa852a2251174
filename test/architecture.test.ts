import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as ts from "typescript";
import { meshKinds, sizingComponents } from "../lib/config";
import { meshOf, meshSizedCharts, type MeshKind } from "../lib/meshes";
import { meshAdmissions } from "../lib/meshes/models";
import { platformSizedBy } from "../lib/plan";
import { charts, type ChartName } from "../lib/versions";

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

/** The charts a mesh installs, which only lib/meshes and lib/versions name. */
const meshCharts: readonly ChartName[] = [
  "linkerdCrds",
  "linkerdControlPlane",
  "linkerdCni",
  "linkerdViz",
  "istioBase",
  "istiod",
  "istioCni",
  "ztunnel",
  "istioGateway",
  "istioCsr",
];
/** The platform's other charts, which any layer may name. */
const platformCharts: readonly ChartName[] = [
  "certManager",
  "trustManager",
  "traefik",
  "ingressNginx",
  "kubePrometheusStack",
];

test("every pinned chart is a mesh's or the platform's", () => {
  expect([...meshCharts, ...platformCharts].sort()).toEqual(Object.keys(charts).sort());
});

/**
 * What names a mesh's chart in code: its key in `charts`, and its chart name where that names the mesh
 * (`linkerd-viz`, `istiod`; not Istio's `base`, `cni` or `gateway`, words other code uses for itself).
 */
const meshChartNames = new Set<string>([
  ...meshCharts,
  ...meshCharts.map((c) => charts[c].chart).filter((name) => /linkerd|istio|ztunnel/.test(name)),
]);
/** A mesh's annotation or label key, API group or version (`config.linkerd.io/...`, `security.istio.io/v1`). */
const meshKey = /(?:[\w-]+\.)*(?:linkerd|istio)\.io\b|\bistio-injection\b/;

/** Each place in the code of `file` that names a mesh's chart or key, as `file:line what`. */
function meshNamings(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) =>
    found.push(
      `${path.relative(lib, file)}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1} ${what}`,
    );
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
      // A link to a mesh's documentation names no key.
      const key = meshKey.exec(node.text.replace(/https?:\/\/\S+/g, ""));
      if (meshChartNames.has(node.text)) at(node, `chart "${node.text}"`);
      else if (key) at(node, `key "${key[0]}"`);
    } else if (
      ts.isPropertyAccessExpression(node) &&
      node.expression.getText(source) === "charts" &&
      meshChartNames.has(node.name.text)
    ) {
      at(node, `chart charts.${node.name.text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test("nothing outside lib/meshes and lib/versions names a mesh's chart, annotation or label key, or API group", () => {
  const named = sources(lib)
    .map((file) => path.relative(lib, file))
    .filter((file) => !file.startsWith(`meshes${path.sep}`) && !file.startsWith(`versions${path.sep}`))
    .flatMap((file) => meshNamings(path.join(lib, file)));
  expect(named).toEqual([]);
});

test("the mesh-naming check finds a chart key, a chart name, an annotation key and an API group, and not a link", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mesh-naming-"));
  const file = path.join(dir, "probe.ts");
  fs.writeFileSync(
    file,
    [
      'const a = { proxy: ["linkerdControlPlane"] };',
      "const b = charts.istiod.chart;",
      'const c = { "sidecar.istio.io/inject": "false" };',
      "const d = `policy.linkerd.io/${v}`;",
      '// "linkerd.io/inject" in a comment',
      'const e = "see https://linkerd.io/2-edge/reference/ and istio base";',
      'const f = x === "linkerd-viz";',
    ].join("\n"),
  );
  try {
    expect(meshNamings(file).map((n) => n.slice(n.indexOf(":") + 1))).toEqual([
      '1 chart "linkerdControlPlane"',
      "2 chart charts.istiod",
      '3 key "sidecar.istio.io"',
      '4 key "policy.linkerd.io"',
      '7 chart "linkerd-viz"',
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** docs/architecture.md's "Adding a mesh" list: each place, and the names its line gives. */
function meshPlaces(): { place: string; names: string[] }[] {
  const doc = fs.readFileSync(path.resolve(__dirname, "../docs/architecture.md"), "utf8");
  const start = doc.indexOf("### Adding a mesh");
  const section = doc.slice(start, doc.indexOf("\n## ", start));
  return section
    .split(/\n(?=- `)/)
    .filter((item) => item.startsWith("- `"))
    .map((item) => {
      const [place, ...names] = [...item.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
      return { place, names };
    });
}

/** Property names of the object literal that `name` is declared with in `file`. */
function tableRows(file: string, name: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const d of statement.declarationList.declarations) {
      if (ts.isIdentifier(d.name) && d.name.text === name && d.initializer) {
        const init = ts.isAsExpression(d.initializer) ? d.initializer.expression : d.initializer;
        if (ts.isObjectLiteralExpression(init)) {
          return init.properties.map((p) => (p.name ? p.name.getText(source) : ""));
        }
        if (ts.isArrayLiteralExpression(init)) return init.elements.map((e) => e.getText(source));
      }
    }
  }
  throw new Error(`${path.relative(lib, file)} declares no table ${name}`);
}

test("docs/architecture.md's 'Adding a mesh' names places that exist, each holding what its line names", () => {
  const places = meshPlaces();
  expect(places.map((p) => p.place)).toEqual([
    "lib/meshes/<mesh>/",
    "lib/meshes/index.ts",
    "lib/meshes/models.ts",
    "lib/meshes/components.ts",
    "lib/config/schema.ts",
    "lib/config/sizing.ts",
    "lib/versions/",
  ]);
  const root = path.resolve(__dirname, "..");
  for (const { place, names } of places) {
    const folders = place.includes("<mesh>") ? meshKinds.map((k) => place.replace("<mesh>", k)) : [place];
    for (const p of folders) {
      const at = path.join(root, p);
      expect({ place: p, exists: fs.existsSync(at) }).toEqual({ place: p, exists: true });
      // A file named on a folder's line is in that folder.
      for (const file of names.filter((n) => n.endsWith(".ts") && place.endsWith("/"))) {
        expect({ place: p, file, exists: fs.existsSync(path.join(at, file)) }).toEqual({
          place: p,
          file,
          exists: true,
        });
      }
      // An identifier named on a file's line is declared there.
      if (!place.endsWith("/")) {
        const text = fs.readFileSync(at, "utf8");
        for (const name of names.filter((n) => /^\w+$/.test(n))) {
          const declared = new RegExp(`(?:const|function|class|interface|type) ${name}\\b`).test(text);
          expect({ place: p, name, declared }).toEqual({ place: p, name, declared: true });
        }
      }
    }
  }
});

test("each table that picks a mesh by kind has a row for every mesh kind", () => {
  const tables: [string, string][] = [
    ["meshes/index.ts", "implementations"],
    ["meshes/components.ts", "installers"],
    ["config/schema.ts", "meshDefaults"],
  ];
  for (const [file, name] of tables) {
    expect({ table: name, rows: tableRows(path.join(lib, file), name) }).toEqual({
      table: name,
      rows: [...meshKinds],
    });
  }
  // A mesh that installs anything injects a proxy, which its admission model says how.
  const installing = meshKinds.filter((kind) => meshOf({ kind }).releases.length > 0);
  expect(meshAdmissions.map((a) => a.mesh)).toEqual(installing);
});

test("each mesh sizes only workloads of charts it installs, and every sized workload has its charts", () => {
  // Every optional part on: the dashboard, the CNI, and (for Istio) each data plane.
  const installs = (kind: MeshKind) =>
    new Set(
      (["sidecar", "ambient"] as const).flatMap((dataplane) =>
        meshOf({ kind, dataplane, cni: true, dashboard: true }).releases.map((r) => r.chart),
      ),
    );
  for (const kind of meshKinds) {
    const sized = Object.values(meshOf({ kind }).sizedCharts).flat();
    expect({ kind, notInstalled: sized.filter((c) => !installs(kind).has(c)) }).toEqual({
      kind,
      notInstalled: [],
    });
  }
  // The meshes' sized workloads are sizing components, and each is sized by all of its meshes' charts.
  const bySizing = meshSizedCharts(meshOf({ kind: "none" }).config);
  // Every sized workload is a mesh's or the platform's, never both: else sizing it would go unchecked.
  expect(Object.keys(bySizing).filter((k) => k in platformSizedBy)).toEqual([]);
  expect([...Object.keys(bySizing), ...Object.keys(platformSizedBy)].sort()).toEqual(
    Object.keys(sizingComponents).sort(),
  );
  expect(bySizing.proxy).toEqual(meshKinds.flatMap((kind) => meshOf({ kind }).sizedCharts.proxy ?? []));
});

/**
 * The modules each file of lib/ imports: every `import` and `export ... from` of a relative specifier,
 * type-only ones and `import("...")` types included, resolved to a file (`x.ts`, or `x/index.ts`). A
 * dynamic `import()` call (the doctor's render, the command's doctor) loads its module later, on demand,
 * so it is no edge: a cycle through one does not decide the order modules load in.
 */
function importGraph(): Map<string, string[]> {
  const resolve = (from: string, specifier: string): string | undefined => {
    const target = path.resolve(path.dirname(from), specifier);
    return [target, `${target}.ts`, path.join(target, "index.ts")].find(
      (f) => f.endsWith(".ts") && fs.existsSync(f) && fs.statSync(f).isFile(),
    );
  };
  const graph = new Map<string, string[]>();
  for (const file of sources(lib)) {
    const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
    const targets = new Set<string>();
    const add = (specifier: ts.Node | undefined): void => {
      if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith(".")) return;
      const target = resolve(file, specifier.text);
      if (target) targets.add(path.relative(lib, target));
    };
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier);
      else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
        add(node.moduleReference.expression);
      else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal);
      ts.forEachChild(node, visit);
    };
    visit(source);
    graph.set(path.relative(lib, file), [...targets].sort());
  }
  return graph;
}

/** The strongly connected components of a graph with more than one node, or a node importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node);
  return found;
}

/** One cycle through a component's first module, as `a → b → a`: the shortest way back to it. */
function cyclePath(graph: Map<string, string[]>, component: readonly string[]): string {
  const start = component[0];
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!component.includes(next)) continue;
      if (next === start) {
        const route = [start];
        for (let at = node; at !== start; at = previous.get(at)!) route.splice(1, 0, at);
        return [...route, start].join(" → ");
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return component.join(", ");
}

test("lib has no import cycles", () => {
  const graph = importGraph();
  const found = cycles(graph).map((component) => ({
    modules: component,
    cycle: cyclePath(graph, component),
  }));
  expect(found).toEqual([]);
});

test("the cycle finder finds a cycle, its path and a module importing itself, and no cycle in a chain", () => {
  const graph = new Map([
    ["a.ts", ["b.ts"]],
    ["b.ts", ["c.ts"]],
    ["c.ts", ["a.ts", "d.ts"]],
    ["d.ts", []],
    ["e.ts", ["e.ts"]],
  ]);
  const found = cycles(graph);
  expect(found).toEqual([["a.ts", "b.ts", "c.ts"], ["e.ts"]]);
  expect(found.map((c) => cyclePath(graph, c))).toEqual(["a.ts → b.ts → c.ts → a.ts", "e.ts → e.ts"]);
  expect(
    cycles(
      new Map([
        ["a.ts", ["b.ts"]],
        ["b.ts", []],
      ]),
    ),
  ).toEqual([]);
});

/**
 * Files over 500 lines, each with its one job: a file that grows past 500 lines must be split by
 * responsibility or listed here with the one job it holds; an entry whose file shrank below goes.
 */
const longFiles: Readonly<Record<string, string>> = {};

test("no file over 500 lines in lib holds more than one job", () => {
  const long = sources(lib)
    .filter((file) => fs.readFileSync(file, "utf8").split("\n").length > 500)
    .map((file) => path.relative(lib, file).split(path.sep).join("/"))
    .sort();
  expect(long).toEqual(Object.keys(longFiles).sort());
});
