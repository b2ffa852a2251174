import * as path from "path";
import * as ts from "typescript";
import * as api from "../lib";
import * as check from "../lib/check";
import * as render from "../lib/render/entry";

/**
 * The package's public API is a curated list: what users compose, the plan and config entry points and
 * the errors; the checks and the render are entries of their own (gke-mesh-platform/check, /render). Anything added or removed is a decision this test makes visible.
 */
test("the package exports a curated list of values", () => {
  expect(Object.keys(api).sort()).toEqual([
    "App",
    "CertManager",
    "ConfigError",
    "ExistingCluster",
    "GatewayApiCrds",
    "GkeCluster",
    "Ingress",
    "IngressNginx",
    "Istio",
    "Linkerd",
    "Platform",
    "Prometheus",
    "Traefik",
    "crdOwnership",
    "environmentFromConfig",
    "installMesh",
    "loadEnvironmentConfig",
    "loadPlan",
    "meshFor",
    "meshOf",
    "parseEnvironment",
    "planFor",
    "resolvePlan",
    "standaloneCharts",
  ]);
});

test("gke-mesh-platform/check and gke-mesh-platform/render export curated lists of values too", () => {
  expect(Object.keys(check).sort()).toEqual([
    "DoctorError",
    "certificateInventory",
    "checkClusterInvariants",
    "checkInvariants",
    "checkNames",
    "checkTitles",
    "checks",
    "clusterInvariants",
    "doctor",
    "doctorClusterRole",
    "doctorRoleName",
    "exitCodeOf",
    "invariants",
    "objectSource",
    "rbacYaml",
    "reportText",
  ]);
  expect(Object.keys(render).sort()).toEqual([
    "RenderInputError",
    "defaultOutDir",
    "readProject",
    "renderFiles",
    "renderProgram",
    "renderProject",
    "renderStack",
    "stacksOf",
    "viewsOf",
  ]);
});

/** An entry point's exports, as the TypeScript compiler sees them, with its type checker. */
function entryExports(file: string): { checker: ts.TypeChecker; exports: ts.Symbol[] } {
  const entry = path.resolve(__dirname, "..", file);
  const program = ts.createProgram([entry], {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    esModuleInterop: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  if (!source) throw new Error(`${file} not found`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`${file} has no module symbol`);
  return { checker, exports: checker.getExportsOfModule(moduleSymbol) };
}

describe("every exported Args field is documented", () => {
  const { checker, exports } = entryExports("lib/index.ts");
  const argsTypes = exports
    .filter((s) => /Args$/.test(s.name))
    .map((s) => ({ name: s.name, type: checker.getDeclaredTypeOfSymbol(checker.getAliasedSymbol(s)) }));

  test("the Args of every building block are exported", () => {
    expect(argsTypes.map((a) => a.name).sort()).toEqual([
      "AppArgs",
      "CertManagerArgs",
      "ExistingClusterArgs",
      "GkeClusterArgs",
      "IngressArgs",
      "IngressControllerArgs",
      "IstioArgs",
      "LinkerdArgs",
      "PlatformArgs",
      "PrometheusArgs",
    ]);
  });

  test.each(argsTypes.map((a) => [a.name, a.type] as const))("%s", (_name, type) => {
    const members = type.isUnion() ? type.types.flatMap((t) => t.getProperties()) : type.getProperties();
    expect(members.length).toBeGreaterThan(0);
    const undocumented = members
      .filter((p) => ts.displayPartsToString(p.getDocumentationComment(checker)).trim() === "")
      .map((p) => p.name);
    expect(undocumented).toEqual([]);
  });
});

describe("gke-mesh-platform/check's doctor is documented", () => {
  const { checker, exports } = entryExports("lib/check.ts");
  const doc = (s: ts.Symbol) => ts.displayPartsToString(s.getDocumentationComment(checker)).trim();
  const fromDoctor = exports
    .map((s) => ({ name: s.name, symbol: checker.getAliasedSymbol(s) }))
    .filter(({ symbol }) =>
      (symbol.declarations ?? []).some((d) => d.getSourceFile().fileName.includes("/lib/doctor/")),
    );

  test("its exports", () => {
    expect(fromDoctor.map((e) => e.name).sort()).toEqual([
      "CheckName",
      "CheckRun",
      "ClusterIdentity",
      "DoctorError",
      "DoctorOptions",
      "DoctorReport",
      "Finding",
      "KubeSource",
      "ListOutcome",
      "Note",
      "ResourceType",
      "SecretCertificates",
      "SecretOutcome",
      "Severity",
      "StackRender",
      "checkNames",
      "checkTitles",
      "doctor",
      "doctorClusterRole",
      "doctorRoleName",
      "exitCodeOf",
      "objectSource",
      "rbacYaml",
      "reportText",
    ]);
  });

  test.each(fromDoctor.map((e) => [e.name, e.symbol] as const))("%s and its members", (name, symbol) => {
    const undocumented = doc(symbol) === "" ? [name] : [];
    const declaration = symbol.declarations?.[0];
    if (declaration && (ts.isInterfaceDeclaration(declaration) || ts.isClassDeclaration(declaration))) {
      const type = checker.getDeclaredTypeOfSymbol(symbol);
      for (const p of type.getProperties()) {
        const own = (p.declarations ?? []).some((d) => d.getSourceFile().fileName.includes("/lib/doctor/"));
        if (own && doc(p) === "") undocumented.push(`${name}.${p.name}`);
      }
    }
    expect(undocumented).toEqual([]);
  });
});
