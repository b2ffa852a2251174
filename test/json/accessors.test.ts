import { at, groupBy, isObj, list, num, obj, record, str, strings } from "../../lib/json";

/** The typed readers of untyped JSON: each gives the type it names, or nothing, and none throws. */

const pod: unknown = JSON.parse(
  JSON.stringify({
    metadata: { name: "web", labels: { app: "web", tier: 2 } },
    spec: {
      containers: [{ name: "app", ports: [{ containerPort: 8080 }] }, "junk", null, [1]],
      args: ["--port=8080", 3, null],
    },
  }),
);

describe("isObj and obj", () => {
  test("only a non-null, non-array object is an object", () => {
    expect([{}, { a: 1 }].map(isObj)).toEqual([true, true]);
    expect([null, undefined, [], "x", 1, true].map(isObj)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  test("obj gives the object itself, or an empty object for anything else", () => {
    const o = { a: 1 };
    expect(obj(o)).toBe(o);
    expect([null, undefined, [1], "x", 0].map(obj)).toEqual([{}, {}, {}, {}, {}]);
  });
});

describe("at", () => {
  test("follows keys and array indexes", () => {
    expect(at(pod, "metadata", "name")).toBe("web");
    expect(at(pod, "spec", "containers", 0, "ports", 0, "containerPort")).toBe(8080);
  });

  test("gives undefined where a step is missing or of the wrong type", () => {
    expect(at(pod, "metadata", "missing", "deeper")).toBeUndefined();
    expect(at(pod, "spec", "containers", "0")).toBeUndefined(); // a key into an array
    expect(at(pod, "metadata", 0)).toBeUndefined(); // an index into an object
    expect(at(pod, "spec", "containers", 9)).toBeUndefined();
    expect(at(undefined, "a")).toBeUndefined();
  });

  test("with no path, gives the value itself", () => {
    expect(at(pod)).toBe(pod);
  });
});

describe("scalars", () => {
  test("str and num give their type or undefined", () => {
    expect([str("a"), str(1), str(undefined), str({})]).toEqual(["a", undefined, undefined, undefined]);
    expect([num(0), num("1"), num(null)]).toEqual([0, undefined, undefined]);
  });
});

describe("lists and records", () => {
  test("list keeps a list's objects, dropping anything else", () => {
    expect(list(at(pod, "spec", "containers"))).toEqual([{ name: "app", ports: [{ containerPort: 8080 }] }]);
    expect([list(undefined), list({ a: 1 }), list("abc")]).toEqual([[], [], []]);
  });

  test("strings keeps a list's strings", () => {
    expect(strings(at(pod, "spec", "args"))).toEqual(["--port=8080"]);
    expect([strings(undefined), strings("a,b")]).toEqual([[], []]);
  });

  test("record keeps an object's string values (labels, annotations)", () => {
    expect(record(at(pod, "metadata", "labels"))).toEqual({ app: "web" });
    expect([record(undefined), record(["a"])]).toEqual([{}, {}]);
  });
});

describe("groupBy", () => {
  test("groups by the key each item gives, in the items' order; undefined is a key of its own", () => {
    const objects = [
      { kind: "Server", namespace: "shop" },
      { kind: "ClusterRole", namespace: undefined },
      { kind: "HTTPRoute", namespace: "shop" },
      { kind: "Server", namespace: "cart" },
    ];
    const byNamespace = groupBy(objects, (o) => o.namespace);
    expect([...byNamespace.keys()]).toEqual(["shop", undefined, "cart"]);
    expect(byNamespace.get("shop")?.map((o) => o.kind)).toEqual(["Server", "HTTPRoute"]);
    expect(byNamespace.get(undefined)).toEqual([objects[1]]);
    expect(groupBy([], (o: { kind: string }) => o.kind).size).toBe(0);
  });
});
