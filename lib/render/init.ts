import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import { ingressKinds, installedDoc, meshKinds, monitoringBackends, type EnvironmentInput } from "../config";
import { resolvePlan } from "../plan";
import { displayPath } from "./project";

/**
 * `gke-mesh-platform init`: a new Pulumi program of one's own that uses the platform, ready to render:
 * Pulumi.yaml, a dev stack (Pulumi.dev.yaml) with the mesh, ingress and monitoring asked for and one
 * example app, index.ts, package.json (the package and its peers at the versions it is tested with),
 * tsconfig.json and .gitignore. The stack's config is resolved into a plan before anything is written,
 * so a combination the platform cannot build is refused with the reason.
 */

export interface InitOptions {
  /** The program's folder; made if missing, and must hold none of the files init writes. */
  readonly dir: string;
  /** The Pulumi project's name. @default the folder's name */
  readonly name?: string;
  readonly mesh?: (typeof meshKinds)[number];
  readonly ingress?: (typeof ingressKinds)[number];
  readonly monitoring?: (typeof monitoringBackends)[number];
  /** The GCP project id. @default a placeholder to replace, my-gcp-project */
  readonly project?: string;
  /** @default europe-west1 */
  readonly region?: string;
  /** Where npm installs gke-mesh-platform from (a version range, a tarball, a folder). @default `packageSpec()` */
  readonly from?: string;
}

/** The choices init offers, with the defaults a new environment starts from. */
export const initChoices = {
  mesh: { values: meshKinds, default: "linkerd" },
  ingress: { values: ingressKinds, default: "gke-gateway" },
  monitoring: { values: monitoringBackends, default: "managed-prometheus" },
} as const;

/** The files init writes, in the order it lists them. */
export const initFiles = [
  "Pulumi.yaml",
  "Pulumi.dev.yaml",
  "index.ts",
  "package.json",
  "tsconfig.json",
  ".gitignore",
];

/** Something init will not do: the folder holds a file it would write, or the name is no project name. */
export class InitError extends Error {}

/** The package this code is part of: its root folder and package.json. */
function ownPackage(): { root: string; json: PackageJson } {
  // lib/render/init.ts and dist/render/init.js both sit two folders below the package's root.
  const root = path.resolve(__dirname, "..", "..");
  return { root, json: JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as PackageJson };
}

interface PackageJson {
  name: string;
  version: string;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
}

/**
 * Where the new program installs gke-mesh-platform from, as npm writes it in package.json: the way the
 * copy running this command was installed (`npx <tarball>` and `npm install <tarball>` record it in the
 * package.json that depends on it: a `file:` path, made absolute), a link to it where it is a clone
 * (`file:<clone>`, built with `npm run build`), else the registry at this version (`^0.1.0`).
 */
export function packageSpec(): string {
  const { root, json } = ownPackage();
  const parent = path.dirname(root);
  if (path.basename(parent) === "node_modules" || path.basename(path.dirname(parent)) === "node_modules") {
    const project =
      path.basename(parent) === "node_modules" ? path.dirname(parent) : path.dirname(path.dirname(parent));
    try {
      const dependent = JSON.parse(
        fs.readFileSync(path.join(project, "package.json"), "utf8"),
      ) as PackageJson;
      const spec = dependent.dependencies?.[json.name] ?? dependent.devDependencies?.[json.name];
      if (spec?.startsWith("file:")) return `file:${path.resolve(project, spec.slice("file:".length))}`;
      if (spec !== undefined && /^[\^~]?\d/.test(spec)) return spec;
    } catch {
      // no readable package.json above: the registry
    }
    return `^${json.version}`;
  }
  return fs.existsSync(path.join(root, ".git")) || fs.existsSync(path.join(root, "lib"))
    ? `file:${root}`
    : `^${json.version}`;
}

/** The stack file's config, as init writes it. */
function stackConfig(o: Required<Omit<InitOptions, "dir" | "from" | "name">>): EnvironmentInput {
  const exposed = o.ingress !== "none";
  return {
    tier: "dev",
    gcp: { project: o.project, region: o.region },
    mesh: { kind: o.mesh },
    ingress: {
      kind: o.ingress,
      ...(o.ingress === "traefik" || o.ingress === "ingress-nginx"
        ? { acme: { email: "ops@example.com" } }
        : {}),
    },
    monitoring: { backend: o.monitoring },
    apps: [
      {
        name: "hello",
        image: "us-docker.pkg.dev/google-samples/containers/gke/hello-app:2.0",
        port: 8080,
        ...(exposed ? { expose: { host: "hello.example.com" } } : {}),
      },
    ],
  };
}

/** A Pulumi project name: what `pulumi new` accepts. */
const projectName = /^[A-Za-z0-9_.-]{1,100}$/;

/**
 * Writes the new program's files into `options.dir` and returns their names. Refuses, writing nothing,
 * where a file it would write is there already, or where the platform would refuse the config.
 */
export function initProgram(options: InitOptions): string[] {
  const dir = path.resolve(options.dir);
  const name = options.name ?? path.basename(dir);
  if (!projectName.test(name)) {
    throw new InitError(
      `${JSON.stringify(name)} is no Pulumi project name: letters, digits, '-', '_' and '.' only; give one with --name, such as --name my-platform`,
    );
  }
  const there = initFiles.filter((f) => fs.existsSync(path.join(dir, f)));
  if (there.length > 0) {
    throw new InitError(
      `${displayPath(dir)} already has ${there.join(", ")}: init writes a new program and overwrites nothing; give an empty or new folder, such as gke-mesh-platform init my-platform`,
    );
  }
  const choice = {
    mesh: options.mesh ?? initChoices.mesh.default,
    ingress: options.ingress ?? initChoices.ingress.default,
    monitoring: options.monitoring ?? initChoices.monitoring.default,
    project: options.project ?? "my-gcp-project",
    region: options.region ?? "europe-west1",
  };
  const config = stackConfig(choice);
  // The platform's own check, before anything is written: the same the render and pulumi up make.
  resolvePlan(config, "dev", "Pulumi.dev.yaml");

  const { json: own } = ownPackage();
  const stackFile = YAML.stringify(
    {
      config: {
        "gcp:project": config.gcp.project,
        "gcp:region": config.gcp.region,
        ...Object.fromEntries(
          Object.entries(config)
            .filter(([k]) => k !== "gcp")
            .map(([k, v]) => [`platform:${k}`, v]),
        ),
      },
    },
    { lineWidth: 0 },
  );
  const files: Record<string, string> = {
    "Pulumi.yaml": YAML.stringify(
      {
        name,
        description: "A GKE platform: cluster, mesh, ingress, monitoring and apps, from gke-mesh-platform",
        runtime: { name: "nodejs", options: { typescript: true } },
      },
      { lineWidth: 0 },
    ),
    "Pulumi.dev.yaml": [
      "# yaml-language-server: $schema=./node_modules/gke-mesh-platform/dist/stack-config.schema.json",
      "# The dev stack. Replace gcp:project with your project's id, and the app with your own.",
      `# Every key, its default per tier and the rules between keys: ${installedDoc("docs/configuration.md")}`,
      stackFile.replace(/^( {2}gcp:project: .*)$/m, "$1 # your Google Cloud project's id"),
    ].join("\n"),
    "index.ts": [
      'import { Platform, loadPlan } from "gke-mesh-platform";',
      "",
      "// The whole platform from the stack's config (Pulumi.<stack>.yaml). `npx gke-mesh-platform render`",
      "// writes what it would deploy into out/<stack>/, offline; `pulumi up` deploys it.",
      'export = () => new Platform("platform", { plan: loadPlan() }).outputs();',
      "",
    ].join("\n"),
    "package.json": `${JSON.stringify(
      {
        name,
        private: true,
        main: "index.ts",
        scripts: {
          render: "gke-mesh-platform render",
          check: "gke-mesh-platform render --check",
          typecheck: "tsc",
        },
        engines: { node: (own as { engines?: { node?: string } }).engines?.node ?? ">=22" },
        dependencies: {
          [own.name]: options.from ?? packageSpec(),
          ...own.peerDependencies,
        },
        devDependencies: {
          typescript: own.devDependencies?.typescript ?? "^5.9.3",
          "@types/node": own.devDependencies?.["@types/node"] ?? "^22.0.0",
        },
      },
      null,
      2,
    )}\n`,
    "tsconfig.json": `${JSON.stringify(
      {
        compilerOptions: {
          strict: true,
          target: "ES2022",
          module: "commonjs",
          moduleResolution: "node",
          esModuleInterop: true,
          skipLibCheck: true,
          noEmit: true,
        },
        files: ["index.ts"],
      },
      null,
      2,
    )}\n`,
    ".gitignore": "node_modules/\nout/\n",
  };
  fs.mkdirSync(dir, { recursive: true });
  for (const file of initFiles) fs.writeFileSync(path.join(dir, file), files[file]);
  return initFiles;
}
