import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";

/**
 * `npm run build`: compiles lib/ into a fresh dist/ (JavaScript and declarations, no source maps:
 * the sources are not shipped), then takes zod out of the declarations. The config types are
 * inferred from zod schemas, and zod's own declarations (its locales re-export `export =` modules)
 * fail to compile in a consumer with `module: commonjs` and neither `esModuleInterop` nor
 * `skipLibCheck`. So each `z.infer<typeof schema>` becomes the type it stands for, documentation
 * included, and the schemas themselves, internal, leave the declarations. The build fails if any
 * declaration still names zod.
 */

const root = path.resolve(__dirname, "..");
const dist = path.join(root, "dist");

function main(): number {
  fs.rmSync(dist, { recursive: true, force: true });
  const configFile = path.join(root, "tsconfig.build.json");
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configFile,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => report([d]),
    },
  );
  if (!parsed) return 1;
  const program = ts.createProgram(parsed.fileNames, parsed.options);
  const emitted = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  if (diagnostics.length > 0) {
    report(diagnostics);
    return 1;
  }
  const problems = withoutZod(program);
  if (problems.length > 0) {
    for (const p of problems) console.error(`build: ${p}`);
    return 1;
  }
  return 0;
}

function report(diagnostics: readonly ts.Diagnostic[]): void {
  console.error(
    ts.formatDiagnosticsWithColorAndContext(diagnostics, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => root,
      getNewLine: () => "\n",
    }),
  );
}

/** Rewrites every emitted declaration that imports zod; returns what could not be rewritten. */
function withoutZod(program: ts.Program): string[] {
  const checker = program.getTypeChecker();
  const problems: string[] = [];
  const declarations = listFiles(dist).filter((f) => f.endsWith(".d.ts"));
  /** Names taken out of each declaration file, to drop from the files that import them. */
  const removed = new Map<string, Set<string>>();

  for (const file of declarations) {
    const text = fs.readFileSync(file, "utf8");
    if (!/from "zod"/.test(text)) continue;
    const source = program.getSourceFile(sourceOf(file));
    if (!source) {
      problems.push(`${file}: no source file`);
      continue;
    }
    const dts = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const gone = new Set<string>();
    const out: string[] = [];
    for (const statement of dts.statements) {
      const full = statement.getFullText(dts);
      if (ts.isImportDeclaration(statement) && moduleOf(statement) === "zod") continue;
      if (!/\bz\./.test(full)) {
        out.push(full);
        continue;
      }
      if (ts.isVariableStatement(statement) || ts.isFunctionDeclaration(statement)) {
        // A schema or a schema helper: internal, and typed by zod.
        for (const name of declaredNames(statement)) gone.add(name);
        continue;
      }
      if (ts.isTypeAliasDeclaration(statement)) {
        const expanded = full.replace(/z\.infer<typeof (\w+)>/g, (_all, name: string) => {
          const schema = schemaSymbol(checker, source, name);
          const output = schema && checker.getTypeOfSymbol(schema).getProperty("_output");
          if (!output) {
            problems.push(`${file}: cannot find the schema ${name}`);
            return "unknown";
          }
          return printType(checker, checker.getTypeOfSymbol(output), "");
        });
        if (/\bz\./.test(expanded)) problems.push(`${file}: a type still names zod: ${statement.name.text}`);
        out.push(expanded);
        continue;
      }
      problems.push(`${file}: a declaration names zod: ${full.trim().split("\n")[0]}`);
    }
    removed.set(file, gone);
    // A module of schemas only keeps nothing: it stays a module, so `export *` of it still type-checks.
    const kept = out.join("");
    fs.writeFileSync(file, /^\s*(?:export|import)\b/m.test(kept) ? kept : `${kept}export {};\n`);
  }

  // Imports and re-exports of what was taken out.
  for (const file of declarations) {
    const text = fs.readFileSync(file, "utf8");
    const dts = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    let changed = false;
    const out = dts.statements.map((statement) => {
      const full = statement.getFullText(dts);
      const specifier = moduleOf(statement);
      if (!specifier?.startsWith(".")) return full;
      const target = path.resolve(path.dirname(file), `${specifier}.d.ts`);
      const gone =
        removed.get(target) ?? removed.get(path.resolve(path.dirname(file), specifier, "index.d.ts"));
      if (!gone || gone.size === 0) return full;
      const elements = namedElements(statement);
      if (!elements) return full;
      const kept = elements.filter((e) => !gone.has((e.propertyName ?? e.name).text));
      if (kept.length === elements.length) return full;
      changed = true;
      if (kept.length === 0) return "";
      const start = elements[0].getStart(dts) - statement.getFullStart();
      const end = elements[elements.length - 1].getEnd() - statement.getFullStart();
      return full.slice(0, start) + kept.map((e) => e.getText(dts)).join(", ") + full.slice(end);
    });
    if (changed) fs.writeFileSync(file, out.join(""));
  }

  for (const file of declarations) {
    if (/from "zod"|import\("zod"\)/.test(fs.readFileSync(file, "utf8"))) {
      problems.push(`${file} still names zod`);
    }
  }
  return problems;
}

function listFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? listFiles(p) : [p];
  });
}

/** dist/config/schema.d.ts → lib/config/schema.ts */
function sourceOf(declaration: string): string {
  return path.join(root, "lib", path.relative(dist, declaration)).replace(/\.d\.ts$/, ".ts");
}

function moduleOf(statement: ts.Statement): string | undefined {
  const specifier =
    ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)
      ? statement.moduleSpecifier
      : undefined;
  return specifier && ts.isStringLiteral(specifier) ? specifier.text : undefined;
}

function namedElements(
  statement: ts.Statement,
): readonly (ts.ImportSpecifier | ts.ExportSpecifier)[] | undefined {
  if (ts.isImportDeclaration(statement)) {
    const bindings = statement.importClause?.namedBindings;
    return bindings && ts.isNamedImports(bindings) ? bindings.elements : undefined;
  }
  if (
    ts.isExportDeclaration(statement) &&
    statement.exportClause &&
    ts.isNamedExports(statement.exportClause)
  ) {
    return statement.exportClause.elements;
  }
  return undefined;
}

function declaredNames(statement: ts.VariableStatement | ts.FunctionDeclaration): string[] {
  if (ts.isFunctionDeclaration(statement)) return statement.name ? [statement.name.text] : [];
  return statement.declarationList.declarations.flatMap((d) =>
    ts.isIdentifier(d.name) ? [d.name.text] : [],
  );
}

/** The schema a name refers to in a source module: exported from it, or imported into it. */
function schemaSymbol(checker: ts.TypeChecker, source: ts.SourceFile, name: string): ts.Symbol | undefined {
  const exportsOf = (file: ts.SourceFile) => {
    const module = checker.getSymbolAtLocation(file);
    return module ? checker.getExportsOfModule(module) : [];
  };
  const own = exportsOf(source).find((s) => s.name === name);
  if (own) return own;
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    const module = checker.getSymbolAtLocation(statement.moduleSpecifier);
    const found = module && checker.getExportsOfModule(module).find((s) => s.name === name);
    if (found) return found.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(found) : found;
  }
  return undefined;
}

/** A type written out in full, each property with its documentation. */
function printType(checker: ts.TypeChecker, type: ts.Type, indent: string): string {
  if (type.isUnion()) {
    const parts = type.types;
    const booleans = parts.filter((t) => t.flags & ts.TypeFlags.BooleanLiteral);
    const rest = parts.filter((t) => !(t.flags & ts.TypeFlags.BooleanLiteral));
    // undefined and null last, as people write them.
    const last = (t: ts.Type) => (t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null) ? 1 : 0);
    const printed = [
      ...(booleans.length === 2 ? ["boolean"] : booleans.map((t) => checker.typeToString(t))),
      ...[...rest].sort((a, b) => last(a) - last(b)).map((t) => printType(checker, t, indent)),
    ];
    return printed.join(" | ");
  }
  if (checker.isArrayType(type)) {
    const [element] = checker.getTypeArguments(type as ts.TypeReference);
    const printed = printType(checker, element, indent);
    return /[|&]/.test(printed) && !printed.startsWith("{") ? `(${printed})[]` : `${printed}[]`;
  }
  if (type.flags & ts.TypeFlags.Object && !(type.getCallSignatures().length > 0)) {
    const inner = `${indent}    `;
    const lines: string[] = [];
    for (const info of checker.getIndexInfosOfType(type)) {
      lines.push(
        `${inner}[key: ${checker.typeToString(info.keyType)}]: ${printType(checker, info.type, inner)};`,
      );
    }
    for (const property of type.getProperties()) {
      const doc = docOf(checker, property, inner);
      const optional = property.flags & ts.SymbolFlags.Optional ? "?" : "";
      const name = /^[A-Za-z_$][\w$]*$/.test(property.name) ? property.name : JSON.stringify(property.name);
      lines.push(
        `${doc}${inner}${name}${optional}: ${printType(checker, checker.getTypeOfSymbol(property), inner)};`,
      );
    }
    return lines.length === 0 ? "{}" : `{\n${lines.join("\n")}\n${indent}}`;
  }
  return checker.typeToString(type, undefined, ts.TypeFormatFlags.NoTruncation);
}

function docOf(checker: ts.TypeChecker, symbol: ts.Symbol, indent: string): string {
  const text = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
  const tags = symbol
    .getJsDocTags(checker)
    .map((t) => `@${t.name}${t.text ? ` ${ts.displayPartsToString(t.text)}` : ""}`);
  const lines = [...(text ? text.split("\n") : []), ...tags];
  if (lines.length === 0) return "";
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`.trimEnd()).join("\n")}\n${indent} */\n`;
}

process.exitCode = main();
