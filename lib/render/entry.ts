/**
 * gke-mesh-platform/render: the offline render, what the `gke-mesh-platform render` command runs.
 *
 * It evaluates a Pulumi program under the SDK's mock runtime, so it refuses to run inside a live
 * `pulumi up` or `preview` (`renderProgram`); a program that deploys imports `gke-mesh-platform`, which
 * loads none of this (test/entryPoints.test.ts).
 */
export {
  renderProgram,
  type RenderProgress,
  type RenderResult,
  type RenderedOptions,
  type RenderedResource,
} from "./run";
export { renderProject, readProject, stacksOf, RenderInputError, type PulumiProject } from "./project";
export { defaultOutDir, renderStack, type RenderStackOptions, type RenderedStack } from "./stack";
export { renderFiles } from "./files";
export { viewsOf } from "./views";
