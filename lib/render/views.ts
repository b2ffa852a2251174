import type { ResourceView } from "../safety";
import type { RenderResult } from "./run";

/** The resources of an offline render, as the checks see them. */
export function viewsOf(result: RenderResult): ResourceView[] {
  return result.resources
    .filter((r) => r.custom && !r.read)
    .map((r) => ({
      type: r.type,
      name: r.name,
      inputs: r.inputs,
      protect: r.options.protect,
      retainOnDelete: r.options.retainOnDelete,
      ...(r.children ? { children: r.children } : {}),
    }));
}
