import * as fs from "fs";
import * as path from "path";
import * as ts from "typescript";

/**
 * Validates Kubernetes objects against the published schema packages (kubernetes-models and
 * @kubernetes-models/*): their compiled validators check types, enums and required fields, and the
 * packages' TypeScript declarations make the check strict, since every field of the object must be
 * a property its interface declares. The API server would silently prune an unknown field, and the
 * object would not do what it says (`source_labels` in a PodMonitor is the classic case).
 */

const root = path.resolve(__dirname, "../..");

/** Which package publishes each API group's models. */
const packages: Record<string, string> = {
  "": "kubernetes-models",
  apps: "kubernetes-models",
  batch: "kubernetes-models",
  policy: "kubernetes-models",
  "networking.k8s.io": "kubernetes-models",
  "apiextensions.k8s.io": "kubernetes-models",
  "admissionregistration.k8s.io": "kubernetes-models",
  "rbac.authorization.k8s.io": "kubernetes-models",
  "gateway.networking.k8s.io": "@kubernetes-models/gateway-api",
  "cert-manager.io": "@kubernetes-models/cert-manager",
  "trust.cert-manager.io": "@kubernetes-models/cert-manager",
  "monitoring.coreos.com": "@kubernetes-models/prometheus-operator",
  "traefik.io": "@kubernetes-models/traefik",
  "security.istio.io": "@kubernetes-models/istio",
  "networking.istio.io": "@kubernetes-models/istio",
};

/**
 * Kinds no package publishes. The platform emits them only through typed builders whose field
 * names the tests check against the upstream CRDs (lib/manifests/ingressResources.ts,
 * customResources.ts, test/manifests/meshPolicy.test.ts); anything else without a schema is an error.
 */
export const typedBuilderKinds = new Set([
  "networking.gke.io/v1/HealthCheckPolicy",
  "networking.gke.io/v1/GCPBackendPolicy",
  "networking.gke.io/v1/GCPGatewayPolicy",
  "networking.gke.io/v1/ManagedCertificate",
  "networking.gke.io/v1beta1/FrontendConfig",
  "cloud.google.com/v1/BackendConfig",
  "monitoring.googleapis.com/v1/PodMonitoring",
  "monitoring.googleapis.com/v1/ClusterPodMonitoring",
  "monitoring.googleapis.com/v1/ClusterRules",
  "policy.linkerd.io/v1beta3/Server",
  "policy.linkerd.io/v1alpha1/AuthorizationPolicy",
  "policy.linkerd.io/v1alpha1/MeshTLSAuthentication",
  "policy.linkerd.io/v1alpha1/NetworkAuthentication",
]);

export interface KubeObjectLike {
  readonly apiVersion?: unknown;
  readonly kind?: unknown;
  readonly metadata?: { readonly name?: unknown; readonly namespace?: unknown };
  readonly [key: string]: unknown;
}

function split(apiVersion: string): [string, string] {
  const i = apiVersion.lastIndexOf("/");
  return i === -1 ? ["", apiVersion] : [apiVersion.slice(0, i), apiVersion.slice(i + 1)];
}

/** The module of an object's model, e.g. `@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1/HTTPRoute`. */
export function modelModule(apiVersion: string, kind: string): string | undefined {
  const [group, version] = split(apiVersion);
  const pkg = packages[group];
  if (!pkg) return undefined;
  return group === "" ? `${pkg}/${version}/${kind}` : `${pkg}/${group}/${version}/${kind}`;
}

// ---------- strict: the TypeScript declarations ----------

let program: ts.Program | undefined;
const declarationFiles = new Map<string, string>();

function declarationOf(module: string): string | undefined {
  const cached = declarationFiles.get(module);
  if (cached) return cached;
  const file = path.join(root, "node_modules", `${module}.d.ts`);
  if (!fs.existsSync(file)) return undefined;
  declarationFiles.set(module, file);
  return file;
}

function interfaceType(module: string, kind: string): { checker: ts.TypeChecker; type: ts.Type } | undefined {
  const file = declarationOf(module);
  if (!file) return undefined;
  if (!program || !program.getSourceFile(file)) {
    program = ts.createProgram({
      rootNames: [...declarationFiles.values()],
      options: {
        noEmit: true,
        skipLibCheck: true,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        module: ts.ModuleKind.ESNext,
      },
      oldProgram: program,
    });
  }
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  const symbol = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.name === `I${kind}`);
  return symbol ? { checker, type: checker.getDeclaredTypeOfSymbol(symbol) } : undefined;
}

/** Paths of `value` that `type` does not declare. */
function unknownPaths(checker: ts.TypeChecker, type: ts.Type, value: unknown, at: string): string[] {
  if (value === null || typeof value !== "object") return [];
  const candidates = type.isUnion() ? type.types : [type];
  const objectTypes = candidates.filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)));
  if (Array.isArray(value)) {
    const element = objectTypes
      .map((t) => (checker.isArrayType(t) ? checker.getTypeArguments(t as ts.TypeReference)[0] : undefined))
      .find((t): t is ts.Type => t !== undefined);
    return element ? value.flatMap((v, i) => unknownPaths(checker, element, v, `${at}[${i}]`)) : [];
  }
  const t = objectTypes.find(
    (c) => c.getProperties().length > 0 || checker.getIndexInfosOfType(c).length > 0,
  );
  if (!t || checker.getIndexInfosOfType(t).length > 0 || t.flags & ts.TypeFlags.Any) return [];
  const out: string[] = [];
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const next = at ? `${at}.${key}` : key;
    const prop = t.getProperty(key);
    if (!prop) {
      out.push(next);
      continue;
    }
    out.push(...unknownPaths(checker, checker.getTypeOfSymbol(prop), child, next));
  }
  return out;
}

// ---------- runtime: the compiled validators ----------

interface Model {
  validate(): void;
}
type ModelClass = new (data: unknown) => Model;

async function runtimeErrors(module: string, kind: string, object: KubeObjectLike): Promise<string[]> {
  const mod = (await import(module)) as Record<string, ModelClass | undefined>;
  const Class = mod[kind];
  if (!Class) return [`${module} exports no ${kind}`];
  try {
    new Class(object).validate();
    return [];
  } catch (err) {
    return [(err as Error).message];
  }
}

/** Every problem with one object: no schema, schema violations, fields the schema does not declare. */
export async function validateObject(object: KubeObjectLike): Promise<string[]> {
  const apiVersion = String(object.apiVersion);
  const kind = String(object.kind);
  const module = modelModule(apiVersion, kind);
  if (!module || !declarationOf(module)) {
    return typedBuilderKinds.has(`${apiVersion}/${kind}`)
      ? []
      : [`no published schema for ${apiVersion} ${kind}, and no typed builder`];
  }
  const problems = await runtimeErrors(module, kind, object);
  const declared = interfaceType(module, kind);
  if (!declared) return [...problems, `${module} declares no I${kind}`];
  return [
    ...problems,
    ...unknownPaths(declared.checker, declared.type, object, "").map(
      (p) => `unknown field ${p} (the API server would prune it)`,
    ),
  ];
}

/**
 * Validates many objects; the TypeScript program behind the strict check is built once for all
 * their kinds. Identical objects are checked once. Returns the problems by object.
 */
export async function validateObjects(objects: readonly KubeObjectLike[]): Promise<Map<string, string[]>> {
  const known = declarationFiles.size;
  for (const o of objects) {
    const module = modelModule(String(o.apiVersion), String(o.kind));
    if (module) declarationOf(module);
  }
  // The program is rebuilt only when new kinds bring new declaration files.
  if (declarationFiles.size !== known) program = undefined;
  const problems = new Map<string, string[]>();
  const seen = new Set<string>();
  for (const o of objects) {
    const json = JSON.stringify(o);
    if (seen.has(json)) continue;
    seen.add(json);
    let found = checked.get(json);
    if (!found) {
      found = await validateObject(o);
      checked.set(json, found);
    }
    if (found.length > 0) problems.set(label(o), [...(problems.get(label(o)) ?? []), ...found]);
  }
  return problems;
}

/** Every object checked so far, by its JSON: many renders share most of their objects. */
const checked = new Map<string, string[]>();

export function label(object: KubeObjectLike): string {
  const ns = typeof object.metadata?.namespace === "string" ? `${object.metadata.namespace}/` : "";
  return `${String(object.kind)} ${ns}${String(object.metadata?.name)}`;
}
