import { applyOrder, criticalPath, mermaid, type RenderedResource } from "../../lib/render";

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
  expect(criticalPath(resources)).toEqual(["t:x::a", "t:x::b", "t:x::c"]);
});

test("a Kubernetes object's label gives its kind, then its namespace and name", () => {
  const text = mermaid([
    {
      ...resource("kubernetes:apps/v1:Deployment::shop", [], "Deployment"),
      inputs: { kind: "Deployment", metadata: { name: "web", namespace: "shop" } },
    },
  ]);
  expect(text).toBe(["flowchart LR", '  r0["Deployment<br/>shop/web"]', ""].join("\n"));
});

test("the Mermaid graph nests components and draws prerequisite --> dependent", () => {
  const text = mermaid([
    resource("pkg:component:C::group"),
    resource("t:x::a", [], undefined, "pkg:component:C::group"),
    resource("t:x::b", ["t:x::a"]),
  ]);
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
