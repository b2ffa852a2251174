export { applyOrder, criticalPath, mermaid, stageGraph } from "./graph";
export { helmReleases, kubernetesObjects, renderFiles, summary } from "./files";
export { placeholder } from "./mocks";
export {
  RenderInputError,
  readProject,
  readStackConfig,
  renderProject,
  stacksOf,
  type PulumiProject,
  type StackConfig,
} from "./project";
export { defaultOutDir, renderStack, type RenderStackOptions, type RenderedStack } from "./stack";
export {
  renderProgram,
  secretText,
  type RenderProgress,
  type RenderResult,
  type RenderedResource,
  type RenderedOptions,
} from "./run";
