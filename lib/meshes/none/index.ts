import type { ConfigProblem, EnvironmentInput } from "../../config";
import { plainScrape, type Mesh, type MeshConfig, type MeshKey } from "../mesh";

/** Keys every mesh reads, which mean nothing without one. */
const meshOnlyKeys: readonly MeshKey[] = ["nativeSidecars", "highAvailability", "dashboard", "cni"];

/** No mesh: namespaces are not enrolled, nothing is injected, no east-west policy. */
export function noMesh(config: MeshConfig): Mesh {
  return {
    kind: "none",
    title: "no mesh",
    config,
    ownKeys: [],
    configProblems: (input) => (input ? unusedKeyProblems(input) : []),
    releases: [],
    crdOwners: [],
    sizedCharts: {},
    needsCertManager: false,
    needsTrustManager: false,
    webhookPorts: [],
    namespaceEnrolment: { labels: {}, annotations: {} },
    meshedPodSecurity: "restricted",
    unmanagedNamespaceLabels: {},
    jobPodMetadata: { labels: {}, annotations: {} },
    acmeSolverPod: { labels: {}, annotations: {} },
    probesThroughPolicy: false,
    appScrape: (m) => plainScrape(m, false),
    configWarnings: () => [],
    ingressControllerPod: () => ({}),
    ingressControllerPodSecurity: "restricted",
    // The controller balances over pod endpoints itself.
    ingressBackend: { serviceClusterIp: false, serviceHostHeader: false },
  };
}

function unusedKeyProblems(input: EnvironmentInput): ConfigProblem[] {
  return meshOnlyKeys
    .filter((key) => input.mesh?.[key] !== undefined)
    .map((key) => ({
      path: `platform:mesh.${key}`,
      problem: 'is set, but mesh.kind is "none"',
      fix: `remove platform:mesh.${key}, or choose a mesh`,
    }));
}
