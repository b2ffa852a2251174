import type * as pulumi from "@pulumi/pulumi";
import { ConfigError, type ConfigProblem, type PlatformConfig } from "../lib/config";
import { parseEnvironment, planFor, resolvePlan, type Plan } from "../lib/plan";
import { Platform } from "../lib/platform";
import { renderProgram, type RenderResult, type RenderedResource } from "../lib/render";

/** The smallest valid environment; tests add what they exercise. */
export function input(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { tier: "dev", gcp: { project: "acme-test", region: "europe-west1" }, ...overrides };
}

export function config(overrides: Record<string, unknown> = {}, stack = "test"): PlatformConfig {
  return parseEnvironment(input(overrides), stack);
}

/** The plan of the smallest valid environment plus `overrides`. */
export function plan(overrides: Record<string, unknown> = {}, stack = "test"): Plan {
  return resolvePlan(input(overrides), stack);
}

/** The problems a bad environment produces; fails the test if the environment is accepted. */
/** The ConfigError `run` throws; fails the test if it throws none. */
export function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error("expected a ConfigError");
}

export function problems(raw: Record<string, unknown>): readonly ConfigProblem[] {
  try {
    parseEnvironment(raw, "test");
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error("expected a ConfigError");
}

/** Keys of every resource `r` waits for, directly or through others. */
export function waitsFor(result: RenderResult, r: RenderedResource): Set<string> {
  const all = new Set<string>();
  const visit = (key: string) => {
    for (const d of result.resources.find((x) => x.key === key)?.dependencies ?? []) {
      if (!all.has(d)) {
        all.add(d);
        visit(d);
      }
    }
  };
  visit(r.key);
  return all;
}

/** Runs a program under the offline mock runtime and returns what it registered. */
export function render(program: () => unknown, stack = "test"): Promise<RenderResult> {
  return renderProgram({ project: "test", stack, config: {}, program });
}

export function ofType(result: RenderResult, type: string): RenderedResource[] {
  return result.resources.filter((r) => r.type === type);
}

export function one(result: RenderResult, type: string): RenderedResource {
  const found = ofType(result, type);
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  return found[0];
}

/** Reads a nested input by path, e.g. `at(cluster, "privateClusterConfig", "enablePrivateNodes")`. */
export function at(r: RenderedResource, ...path: string[]): unknown {
  let cur: unknown = r.inputs;
  for (const p of path) cur = (cur as Record<string, unknown> | undefined)?.[p];
  return cur;
}

export const RELEASE = "kubernetes:helm.sh/v3:Release";

/** Renders a Platform for an environment: the smallest valid one plus `overrides`. A config error rejects, as a failed render does. */
export async function renderPlatform(
  overrides: Record<string, unknown>,
  opts?: pulumi.ComponentResourceOptions,
): Promise<RenderResult> {
  const c = config(overrides);
  return render(() => new Platform("platform", { plan: planFor(c) }, opts).outputs());
}

/** The Helm release of that name. */
export function release(result: RenderResult, name: string): RenderedResource {
  const r = result.resources.find((x) => x.type === RELEASE && x.inputs.name === name);
  if (!r) throw new Error(`no release ${name}`);
  return r;
}

/** The Kubernetes object of that kind and name (and namespace, when given). */
export function find(result: RenderResult, kind: string, name: string, namespace?: string): RenderedResource {
  const r = result.resources.find((x) => {
    const m = x.inputs.metadata as { name?: string; namespace?: string } | undefined;
    return (
      x.inputs.kind === kind && m?.name === name && (namespace === undefined || m.namespace === namespace)
    );
  });
  if (!r) throw new Error(`no ${kind} ${namespace ?? ""}/${name}`);
  return r;
}

/** A Helm release's values. */
export const values = (r: RenderedResource): Record<string, unknown> =>
  r.inputs.values as Record<string, unknown>;
