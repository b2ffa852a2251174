import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import type { KubeObject } from "./objects";

/** One Helm release to template, exactly as the platform installs it. */
export interface HelmTemplateArgs {
  readonly release: string;
  readonly namespace: string;
  /** The unpacked chart's folder. */
  readonly chartDir: string;
  readonly values: Readonly<Record<string, unknown>>;
  /** Mirrors the release's `skipCrds`: false templates the chart's crds/ directory too. */
  readonly skipCrds: boolean;
  /** The cluster's Kubernetes version, e.g. 1.34.0. */
  readonly kubeVersion: string;
  /** Every API group/version (and group/version/Kind) the cluster serves; charts gate templates on them. */
  readonly apiVersions: readonly string[];
}

/** What helm rendered, or its error (a chart's `fail` or `required`). */
export type HelmResult = { readonly objects: KubeObject[] } | { readonly error: string };

/**
 * Runs `helm template` with a real Helm 3 (the major version Pulumi's `helm.v3.Release` renders with),
 * with a bounded number of processes at once and every identical call answered once.
 */
export class HelmTemplater {
  private readonly cache = new Map<string, Promise<HelmResult>>();
  private running = 0;
  private readonly queue: (() => void)[] = [];
  /** How many distinct `helm template` runs it made. */
  runs = 0;

  constructor(
    readonly helm: string,
    private readonly parallelism = 2,
  ) {}

  template(requested: HelmTemplateArgs): Promise<HelmResult> {
    // A chart's output depends on the API versions only through the ones its templates ask about, so
    // passing just those renders the same and lets identical releases of different renders share a run.
    const asked = capabilityQueries(requested.chartDir);
    const args =
      asked === "all"
        ? requested
        : { ...requested, apiVersions: requested.apiVersions.filter((v) => asked.has(v)) };
    const key = JSON.stringify(args);
    const cached = this.cache.get(key);
    if (cached) return cached;
    const result = this.slot().then(() => this.run(args).finally(() => this.release()));
    this.cache.set(key, result);
    return result;
  }

  private slot(): Promise<void> {
    if (this.running < this.parallelism) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push(resolve));
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.running--;
  }

  private run(args: HelmTemplateArgs): Promise<HelmResult> {
    this.runs++;
    const flags = [
      "template",
      args.release,
      args.chartDir,
      "--namespace",
      args.namespace,
      "--values",
      "-",
      // A plain `go install` helm assumes Kubernetes v1.20 without it (charts/PROVENANCE.md).
      "--kube-version",
      args.kubeVersion,
      ...args.apiVersions.flatMap((v) => ["--api-versions", v]),
      args.skipCrds ? "--skip-crds" : "--include-crds",
    ];
    return new Promise((resolve) => {
      const child = execFile(this.helm, flags, { maxBuffer: 256 * 1024 * 1024 }, (err, stdout, stderr) => {
        if (err) {
          resolve({ error: (stderr || err.message).trim().replace(/\s+/g, " ") });
          return;
        }
        resolve({ objects: parseManifests(stdout) });
      });
      child.stdin?.end(YAML.stringify(args.values));
    });
  }
}

const queries = new Map<string, ReadonlySet<string> | "all">();

/**
 * The API versions a chart's templates (its subcharts' included) ask about with
 * `.Capabilities.APIVersions.Has "<version>"`; "all" where one asks with anything but a literal.
 */
export function capabilityQueries(chartDir: string): ReadonlySet<string> | "all" {
  const known = queries.get(chartDir);
  if (known) return known;
  const found = new Set<string>();
  let dynamic = false;
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      // A chart's crds/ are applied as they are, never templated.
      if (e.isDirectory()) {
        if (e.name !== "crds") walk(p);
      } else if (/\.(ya?ml|tpl|txt)$/.test(e.name)) {
        const text = fs.readFileSync(p, "utf8");
        for (const m of text.matchAll(/APIVersions\.Has\s+("([^"]*)"|\S)/g)) {
          if (m[2] !== undefined) found.add(m[2]);
          else dynamic = true;
        }
      }
    }
  };
  walk(chartDir);
  const result = dynamic ? "all" : found;
  queries.set(chartDir, result);
  return result;
}

/** Every object of a multi-document YAML stream; empty documents skipped, lists flattened. */
export function parseManifests(text: string): KubeObject[] {
  const out: KubeObject[] = [];
  for (const doc of YAML.parseAllDocuments(text)) {
    const value: unknown = doc.toJS();
    if (!value || typeof value !== "object") continue;
    const o = value as KubeObject & { items?: KubeObject[] };
    if (o.kind?.endsWith("List") && Array.isArray(o.items)) out.push(...o.items);
    else if (typeof o.kind === "string" && o.metadata) out.push(o);
  }
  return out;
}

/** The helm binary to use: HELM, else `helm` on PATH, else the one .ci/run builds. */
export function findHelm(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const candidates = [
    env.HELM,
    ...(env.PATH ?? "").split(path.delimiter).map((d) => path.join(d, "helm")),
    path.join(env.HOME ?? "", ".cache/gke-mesh-platform/bin/helm"),
  ];
  return candidates.find((c): c is string => !!c && fs.existsSync(c));
}
