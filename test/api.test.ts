import * as path from "path";
import * as ts from "typescript";
import * as api from "../lib";
import * as check from "../lib/check";
import * as render from "../lib/render/entry";

/**
 * The package's public API is a curated list: what users compose, the one way from a config to a plan
 * (`loadPlan` for a stack's config, `resolvePlan` for one written in code) and the errors; the checks and the render are entries of their own (gke-mesh-platform/check, /render). Anything added or removed is a decision this test makes visible.
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
    "Team",
    "Traefik",
    "loadPlan",
    "meshNamespaceMetadata",
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
      "TeamArgs",
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

/**
 * What a building block cannot work out for itself, with the reason: every other field is optional,
 * with a `@default` saying what the block does without it. A new required field fails here until it is
 * listed with its reason.
 */
const requiredFields: Record<string, Record<string, string>> = {
  PlatformArgs: {
    plan: "one of the two ways in: a plan resolved by loadPlan/resolvePlan (a union with `config`)",
    config: "the other way in: an environment written in code (a union with `plan`)",
  },
  TeamArgs: {
    name: "names the team's objects, and its namespace where none is given",
    provider: "the cluster the objects go to",
  },
  AppArgs: {
    name: "names the app's Deployment, Service and every object derived for it",
    namespace: "an app runs in a namespace of the user's; there is no sensible one to pick",
    image: "what the app runs",
    port: "the port its Service and routes reach",
    provider: "the cluster the objects go to",
  },
  IngressArgs: {
    plan: "routes the apps of one environment: their exposures are resolved against its ingress kind and mesh",
    provider: "the cluster the objects go to",
  },
  ExistingClusterArgs: {
    project: "the Google Cloud project that holds the cluster",
    existing: "which cluster (name and location) to use",
  },
  GkeClusterArgs: {
    project: "the Google Cloud project the cluster is made in",
    region: "where the network, KMS key and Cloud NAT live",
  },
  CertManagerArgs: { provider: "the cluster the release goes to" },
  IngressControllerArgs: {
    provider: "the cluster the release goes to",
    certManager: "the controller's certificates (and ingress-nginx's webhook) come from cert-manager",
  },
  PrometheusArgs: { provider: "the cluster the release goes to" },
  IstioArgs: {
    provider: "the cluster the releases go to",
    certManager: "Istio's CA and istio-csr's certificates come from cert-manager with trust-manager",
  },
  LinkerdArgs: {
    provider: "the cluster the releases go to",
    certManager: "Linkerd's trust anchor and issuer come from cert-manager with trust-manager",
  },
};

describe("every exported Args field is optional with a documented default, or required for a listed reason", () => {
  const { checker, exports } = entryExports("lib/index.ts");
  const argsTypes = exports
    .filter((s) => /Args$/.test(s.name))
    .map((s) => [s.name, checker.getDeclaredTypeOfSymbol(checker.getAliasedSymbol(s))] as const);

  test("every building block's required fields are listed", () => {
    expect(Object.keys(requiredFields).sort()).toEqual(argsTypes.map(([name]) => name).sort());
  });

  test.each(argsTypes)("%s", (name, type) => {
    const members = type.isUnion() ? type.types.flatMap((t) => t.getProperties()) : type.getProperties();
    const optional = (p: ts.Symbol): boolean => (p.flags & ts.SymbolFlags.Optional) !== 0;
    const required = [...new Set(members.filter((p) => !optional(p)).map((p) => p.name))].sort();
    expect(required).toEqual(Object.keys(requiredFields[name] ?? {}).sort());
    const withoutDefault = members
      .filter((p) => optional(p) && !p.getJsDocTags(checker).some((t) => t.name === "default"))
      .map((p) => p.name);
    expect(withoutDefault).toEqual([]);
  });
});

describe("every type an exported Args names is exported", () => {
  const { checker, exports } = entryExports("lib/index.ts");
  const resolved = (s: ts.Symbol): ts.Symbol =>
    s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s;
  const exported = new Set(exports.map(resolved));
  const libFolder = path.resolve(__dirname, "..", "lib") + path.sep;
  const ownDeclaration = (s: ts.Symbol): boolean =>
    (s.declarations ?? []).some((d) => d.getSourceFile().fileName.startsWith(libFolder));

  /**
   * The library's own named types the Args' fields are written with (`readonly mesh?: MeshSettings`,
   * `Pick<Exposure, "via">`, and the types an Args extends): what a user must be able to import to
   * write a field's value or keep it in a variable of its type. The SDKs' types are theirs to export.
   */
  function namedTypes(args: ts.Symbol): string[] {
    const names = new Set<string>();
    const visit = (node: ts.Node): void => {
      const name = ts.isTypeReferenceNode(node)
        ? node.typeName
        : ts.isExpressionWithTypeArguments(node)
          ? node.expression
          : undefined;
      if (name) {
        const at = ts.isQualifiedName(name)
          ? name.right
          : ts.isPropertyAccessExpression(name)
            ? name.name
            : name;
        const symbol = checker.getSymbolAtLocation(at);
        if (symbol && ownDeclaration(resolved(symbol)) && !exported.has(resolved(symbol)))
          names.add(at.getText());
      }
      ts.forEachChild(node, visit);
    };
    for (const d of args.declarations ?? []) {
      if (ts.isInterfaceDeclaration(d)) {
        d.heritageClauses?.forEach(visit);
        d.members.forEach(visit);
      } else if (ts.isTypeAliasDeclaration(d)) visit(d.type);
    }
    return [...names].sort();
  }

  const argsTypes = exports.filter((s) => /Args$/.test(s.name)).map((s) => [s.name, resolved(s)] as const);

  test.each(argsTypes)("%s names no type the entry leaves out", (_name, symbol) => {
    expect(namedTypes(symbol)).toEqual([]);
  });

  /**
   * A `Plan` is what `loadPlan` and `resolvePlan` give a program and `Platform` takes: its fields are read
   * by programs (`platform.plan.mesh.jobPodMetadata`), so each field's type is exported too, and documented.
   */
  const planExport = exports.find((s) => s.name === "Plan");
  const plan = planExport && resolved(planExport);

  test("Plan names no type the entry leaves out", () => {
    expect(plan?.declarations?.map((d) => ts.SyntaxKind[d.kind])).toEqual(["InterfaceDeclaration"]);
    expect(namedTypes(plan!)).toEqual([]);
  });

  test("every Plan field, and every field of the mesh it names, is documented", () => {
    const undocumented = (type: ts.Type, prefix: string) =>
      type
        .getProperties()
        .filter((p) => ts.displayPartsToString(p.getDocumentationComment(checker)).trim() === "")
        .map((p) => `${prefix}.${p.name}`);
    const planType = checker.getDeclaredTypeOfSymbol(plan!);
    const meshField = planType.getProperty("mesh")!;
    expect([
      ...undocumented(planType, "Plan"),
      ...undocumented(checker.getTypeOfSymbol(meshField), "Plan.mesh"),
    ]).toEqual([]);
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
