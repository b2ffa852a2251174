export { clusterInputOf } from "./clusterInput";
export {
  clusterObjectsOf,
  clusterSummary,
  objectSetYaml,
  type ClusterObjects,
  type ClusterObjectsOptions,
} from "./clusterObjects";
export {
  diffRenders,
  earlierRender,
  readRenderFolder,
  resolveDiffBase,
  type DiffBase,
  type RenderDiff,
  type RenderFiles,
} from "./diff";
export { diffSummary, diffYaml } from "./diffOutput";
export {
  applyOrder,
  criticalPath,
  mermaid,
  stageGraph,
  type GraphResource,
  type OrderedResources,
} from "./graph";
export { certificatesOf, durationText, helmReleases, kubernetesObjects, renderFiles, summary } from "./files";
export { autoName, placeholder } from "./mocks";
export { viewsOf } from "./views";
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
