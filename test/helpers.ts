import { parseEnvironment, type PlatformConfig } from "../lib/config";
import { renderProgram, type RenderResult, type RenderedResource } from "../lib/render";

/** The smallest valid environment; tests add what they exercise. */
export function input(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { tier: "dev", gcp: { project: "acme-test", region: "europe-west1" }, ...overrides };
}

export function config(overrides: Record<string, unknown> = {}, stack = "test"): PlatformConfig {
  return parseEnvironment(input(overrides), stack);
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
