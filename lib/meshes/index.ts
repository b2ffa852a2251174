import type { ConfigProblem, EnvironmentInput, SizingComponent } from "../config";
import type { RouteParentKind } from "../manifests";
import type { ChartName } from "../versions";
import { istioMesh, istioNamespace } from "./istio";
import {
  linkerdCniNamespace,
  linkerdMesh,
  linkerdNamespace,
  linkerdRouteParents,
  linkerdVizNamespace,
} from "./linkerd";
import type { Mesh, MeshConfig, MeshConfigRules, MeshIdentity, MeshKey, MeshKind } from "./mesh";
import { noMesh } from "./none";

export * from "./mesh";
export type * from "./admissionModel";
export * from "./linkerd";
export * from "./istio";
export { noMesh } from "./none";

/** Every mesh the platform builds, by kind: the one place a mesh is chosen. */
const implementations: { readonly [K in MeshKind]: (config: MeshConfig) => Mesh } = {
  linkerd: linkerdMesh,
  istio: istioMesh,
  none: noMesh,
};

/**
 * Every namespace a mesh the platform builds installs into, whichever mesh the environment runs: none
 * is ever a team's (lib/plan/teams.ts), so a team's namespace stays valid when the mesh changes.
 */
export const meshNamespaces: readonly string[] = [
  linkerdNamespace,
  linkerdVizNamespace,
  linkerdCniNamespace,
  istioNamespace,
];

/**
 * The parents of routes that carry east-west calls only, whichever mesh the environment runs: a Service
 * (GAMMA, which Istio and Linkerd both read) and Linkerd's Server. A team's route whose every parent is one
 * of them is not on a Gateway (lib/manifests/teamRoutes.ts).
 */
export const eastWestRouteParents: readonly RouteParentKind[] = [
  { group: "", kind: "Service" },
  ...linkerdRouteParents,
];

/** The environment's mesh. */
export function meshFor(config: MeshConfig): Mesh {
  return implementations[config.kind](config);
}

/**
 * The charts that run each mesh workload `platform:sizing` sizes, over every mesh (the environment's
 * and the others), each component's charts in the order of the meshes above.
 */
export function meshSizedCharts(config: MeshConfig): {
  readonly [K in SizingComponent]?: readonly ChartName[];
} {
  const sized: { [K in SizingComponent]?: readonly ChartName[] } = {};
  for (const kind of Object.keys(implementations) as MeshKind[]) {
    const mesh = implementations[kind]({ ...config, kind });
    for (const [component, charts] of Object.entries(mesh.sizedCharts) as [
      SizingComponent,
      readonly ChartName[],
    ][]) {
      sized[component] = [...(sized[component] ?? []), ...charts];
    }
  }
  return sized;
}

/** Mesh settings for building blocks used without an environment config. */
export type MeshSettings = { readonly kind: MeshKind } & Partial<Omit<MeshConfig, "kind" | "istio">> & {
    readonly istio?: Partial<MeshConfig["istio"]>;
  };

/**
 * A mesh for building blocks used on their own (`Traefik`, `IngressNginx`, `App`): the settings given,
 * and for the rest the defaults an environment config gets (docs/configuration.md).
 */
export function meshOf(settings: MeshSettings): Mesh {
  const dataplane = settings.dataplane ?? "sidecar";
  return meshFor({
    kind: settings.kind,
    dataplane,
    cni: settings.cni ?? dataplane === "ambient",
    nativeSidecars: settings.nativeSidecars ?? true,
    highAvailability: settings.highAvailability ?? false,
    dashboard: settings.dashboard ?? false,
    previousTrustAnchor: settings.previousTrustAnchor ?? false,
    denyByDefault: settings.denyByDefault ?? [],
    tracing: settings.tracing,
    istio: { mtls: "STRICT", loadBalancerTraffic: "permissive-ports", ...settings.istio },
  });
}

/** The metadata of an app namespace enrolled in a mesh (`meshNamespaceMetadata`). */
export interface MeshNamespaceMetadata {
  /** The Pod Security level meshed pods need (`pod-security.kubernetes.io/enforce`), then the mesh's enrolment labels. */
  readonly labels: Readonly<Record<string, string>>;
  /** The mesh's enrolment annotations (Linkerd's `linkerd.io/inject`). */
  readonly annotations: Readonly<Record<string, string>>;
}

/**
 * The labels and annotations of a namespace of your own whose pods join the mesh, for building blocks
 * used without an environment config: the Pod Security level a meshed namespace must allow (with the
 * settings given: a sidecar's init container without the mesh's CNI plugin needs more than with it) and
 * the mesh's enrolment, as the Platform labels its app namespaces.
 */
export function meshNamespaceMetadata(settings: MeshSettings): MeshNamespaceMetadata {
  const mesh = meshOf(settings);
  return {
    labels: {
      "pod-security.kubernetes.io/enforce": mesh.meshedPodSecurity,
      ...mesh.namespaceEnrolment.labels,
    },
    annotations: { ...mesh.namespaceEnrolment.annotations },
  };
}

/**
 * Keys of `platform:mesh` that configure another mesh than the environment's: an error, never ignored.
 */
export function otherMeshKeyProblems(
  mesh: MeshIdentity & MeshConfigRules,
  input: EnvironmentInput,
): ConfigProblem[] {
  /** Each key set in the input that the environment's mesh does not read, with the meshes that do. */
  const readers = new Map<MeshKey, Mesh[]>();
  for (const kind of Object.keys(implementations) as MeshKind[]) {
    if (kind === mesh.kind) continue;
    const other = implementations[kind]({ ...mesh.config, kind });
    for (const key of other.ownKeys) {
      // A key several meshes read (previousTrustAnchor) is an error only where none of them is the environment's.
      if (input.mesh?.[key] === undefined || mesh.ownKeys.includes(key)) continue;
      readers.set(key, [...(readers.get(key) ?? []), other]);
    }
  }
  return [...readers].map(([key, meshes]) => ({
    path: `platform:mesh.${key}`,
    problem: `is set, but mesh.kind is "${mesh.kind}"; it configures ${meshes.map((m) => m.title).join(" and ")}`,
    fix: `remove platform:mesh.${key}, or set platform:mesh.kind to ${meshes.map((m) => `"${m.kind}"`).join(" or ")}`,
  }));
}
