export { clusterInputOf } from "./clusterInput";
export {
  clusterObjectsOf,
  clusterSummary,
  objectSetYaml,
  type ClusterObjects,
  type ClusterObjectsOptions,
} from "./clusterObjects";
export { applyOrder, criticalPath, mermaid, stageGraph } from "./graph";
export { certificatesOf, durationText, helmReleases, kubernetesObjects, renderFiles, summary } from "./files";
export { placeholder } from "./mocks";
export { readProject, readStackConfig, renderProject, stacksOf, type PulumiProject } from "./project";
export {
  renderProgram,
  secretText,
  type RenderResult,
  type RenderedResource,
  type RenderedOptions,
} from "./run";
