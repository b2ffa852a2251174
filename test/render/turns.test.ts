import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { inTurn } from "../../lib/deploy";
import { render } from "../helpers";

/**
 * Units of work registered on later turns of the event loop (lib/deploy/turns.ts): the Platform builds
 * each app, each app's exposure and each namespace's policy so. A render (and `pulumi up`) waits for
 * every unit, registers their objects in the order given, and fails with a unit's error.
 */

const configMap = (name: string, parent: pulumi.Resource) =>
  new k8s.core.v1.ConfigMap(name, { metadata: { name } }, { parent });

test("units run after the program's synchronous part, in the order given, and the render waits for all of them", async () => {
  const result = await render(() => {
    const group = new pulumi.ComponentResource("test:index:Group", "group");
    for (const n of [1, 2, 3]) inTurn(() => void configMap(`unit-${n}`, group));
    configMap("synchronous", group);
    return {};
  });
  const maps = result.resources.filter((r) => r.type === "kubernetes:core/v1:ConfigMap");
  expect(maps.map((r) => r.name)).toEqual(["synchronous", "unit-1", "unit-2", "unit-3"]);
  expect(maps.map((r) => r.parent)).toEqual(Array(4).fill("test:index:Group::group"));
});

test("a unit that throws fails the render with its own error, after the units before it have run", async () => {
  let ran: string[] = [];
  const rendering = render(() => {
    inTurn(() => void ran.push("first"));
    inTurn(() => {
      throw new Error("app shop: its port 0 is not a port");
    });
    return {};
  });
  await expect(rendering).rejects.toThrow("app shop: its port 0 is not a port");
  expect(ran).toEqual(["first"]);
  // The next render is not affected by the failed one.
  ran = [];
  await expect(render(() => (inTurn(() => void ran.push("again")), {}))).resolves.toBeDefined();
  expect(ran).toEqual(["again"]);
});
