import * as YAML from "yaml";
import {
  applyOrder,
  criticalPath,
  mermaid,
  renderFiles,
  stageGraph,
  summary,
  type RenderResult,
  type RenderedResource,
} from "../../lib/render";

function resource(
  key: string,
  dependencies: string[] = [],
  kind?: string,
  parent?: string,
): RenderedResource {
  const [type, name] = key.split("::");
  return {
    key,
    type,
    name,
    custom: !type.startsWith("pkg:component"),
    read: false,
    parent,
    dependsOn: [],
    dependencies,
    options: {
      protect: false,
      retainOnDelete: false,
      deleteBeforeReplace: false,
      ignoreChanges: [],
      replaceOnChanges: [],
    },
    inputs: kind ? { kind, metadata: { name } } : {},
  };
}

/** Resources with the order the render computes for them. */
const ordered = (resources: RenderedResource[]) => ({ resources, order: applyOrder(resources) });

describe("apply order", () => {
  test("dependencies first; among ready resources, cloud first, then CRDs and Namespaces, then the rest", () => {
    const order = applyOrder([
      resource("kubernetes:apps/v1:Deployment::web", ["kubernetes:core/v1:Namespace::apps"], "Deployment"),
      resource("kubernetes:core/v1:Namespace::apps", ["gcp:container/cluster:Cluster::c"], "Namespace"),
      resource(
        "kubernetes:apiextensions.k8s.io/v1:CustomResourceDefinition::crd",
        ["gcp:container/cluster:Cluster::c"],
        "CustomResourceDefinition",
      ),
      resource("gcp:container/cluster:Cluster::c"),
    ]);
    expect(order.map((r) => r.name)).toEqual(["c", "crd", "apps", "web"]);
  });

  test("a cycle is reported by name", () => {
    expect(() => applyOrder([resource("t:a::a", ["t:b::b"]), resource("t:b::b", ["t:a::a"])])).toThrow(
      "dependency cycle among: t:a::a, t:b::b",
    );
  });
});

test("the critical path is the longest dependency chain", () => {
  const resources = [
    resource("t:x::a"),
    resource("t:x::b", ["t:x::a"]),
    resource("t:x::c", ["t:x::b"]),
    resource("t:x::d", ["t:x::a"]),
  ];
  expect(criticalPath(applyOrder(resources))).toEqual(["t:x::a", "t:x::b", "t:x::c"]);
});

test("a Kubernetes object's label gives its kind, then its namespace and name", () => {
  const text = mermaid(
    ordered([
      {
        ...resource("kubernetes:apps/v1:Deployment::shop", [], "Deployment"),
        inputs: { kind: "Deployment", metadata: { name: "web", namespace: "shop" } },
      },
    ]),
  );
  expect(text).toBe(["flowchart LR", '  r0["Deployment<br/>shop/web"]', ""].join("\n"));
});

test("the Mermaid graph nests components and draws prerequisite --> dependent", () => {
  const text = mermaid(
    ordered([
      resource("pkg:component:C::group"),
      resource("t:x::a", [], undefined, "pkg:component:C::group"),
      resource("t:x::b", ["t:x::a"]),
    ]),
  );
  expect(text).toBe(
    [
      "flowchart LR",
      '  subgraph c0["C<br/>group"]',
      '    r1["x<br/>a"]',
      "  end",
      '  r2["x<br/>b"]',
      "  r1 --> r2",
      "",
    ].join("\n"),
  );
});

describe("the render's order is the one every output follows", () => {
  // Two ConfigMaps ready together: applyOrder puts `a` first (by key); the render's order given here
  // puts `b` first, which is as valid. Every output must follow the order it is given, computed once
  // by the render, rather than order the resources again.
  const configMap = (name: string) => ({
    ...resource(`kubernetes:core/v1:ConfigMap::${name}`, [], "ConfigMap", "pkg:component:C::group"),
    inputs: { apiVersion: "v1", kind: "ConfigMap", metadata: { name } },
  });
  const [a, b] = [configMap("a"), configMap("b")];
  const group = resource("pkg:component:C::group");
  const result: RenderResult = {
    project: "p",
    stack: "s",
    resources: [group, a, b],
    order: [b, a],
    outputs: {},
    warnings: [],
  };

  test("applyOrder alone would put a first", () => {
    expect(applyOrder(result.resources).map((r) => r.name)).toEqual(["a", "b"]);
  });

  test("resources.yaml, manifests.yaml and graph.mmd follow the render's order", () => {
    const files = renderFiles(result);
    const resources = YAML.parse(files["resources.yaml"]) as { resources: { name: string }[] };
    expect(resources.resources.map((r) => r.name)).toEqual(["group", "b", "a"]);
    const manifests = YAML.parseAllDocuments(files["manifests.yaml"]).map(
      (d) => (d.toJS() as { metadata: { name: string } }).metadata.name,
    );
    expect(manifests).toEqual(["b", "a"]);
    expect(files["graph.mmd"]).toBe(
      [
        "flowchart LR",
        '  subgraph c0["C<br/>group"]',
        '    r2["ConfigMap<br/>b"]',
        '    r1["ConfigMap<br/>a"]',
        "  end",
        "",
      ].join("\n"),
    );
  });

  test("the critical path follows it too", () => {
    expect(summary(result, "out/s")).toContain("critical path (1 steps): b");
  });

  test("the stages follow it too", () => {
    const root = resource("pkg:component:Root::root");
    const [p, q] = ["P", "Q"].map((c) => resource(`pkg:component:${c}::${c}`, [], undefined, root.key));
    const inP = resource("t:x::a", [], undefined, p.key);
    const inQ = resource("t:x::b", [], undefined, q.key);
    const resources = [root, p, q, inP, inQ];
    expect(stageGraph({ resources, order: applyOrder(resources) })).toBe(
      ["flowchart LR", '  P["P"]', '  Q["Q"]', ""].join("\n"),
    );
    expect(stageGraph({ resources, order: [inQ, inP] })).toBe(
      ["flowchart LR", '  Q["Q"]', '  P["P"]', ""].join("\n"),
    );
  });
});
