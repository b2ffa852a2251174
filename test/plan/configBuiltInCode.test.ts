import { ConfigError, type EnvironmentInput, type PlatformConfig } from "../../lib/config";
import { planFor } from "../../lib/plan";
import { Platform } from "../../lib/platform";
import { config, input, render } from "../helpers";

/**
 * A resolved config changed in code (`planFor(config)`, how the library's own tests and tools build a
 * plan) is refused for what the stack file would be refused for: the rules that judge the resolved
 * config run on every path to a plan. Users write a config as `EnvironmentInput`, which
 * `new Platform({ config })` resolves as `resolvePlan` does (test/platform/oneWayToAPlan.test.ts).
 */

const app = (name: string, host = "shop.example.com") => ({
  name,
  image: "hello:2",
  port: 8080,
  expose: { host },
});

function refusedPaths(c: PlatformConfig): string[] {
  try {
    planFor(c);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((p) => p.path);
    throw err;
  }
  return [];
}

test("overlapping networks", () => {
  const c = config();
  expect(refusedPaths({ ...c, network: { ...c.network, podsCidr: c.network.nodesCidr } })).toContain(
    "platform:network.podsCidr",
  );
});

test("two apps on one host and path, and two apps with one name", () => {
  const c = config({ apps: [app("shop"), app("cart", "cart.example.com")] });
  const [shop, cart] = c.apps;
  expect(refusedPaths({ ...c, apps: [shop, { ...cart, expose: shop.expose }] })).toEqual([
    "platform:apps[1].expose",
  ]);
  expect(refusedPaths({ ...c, apps: [shop, { ...cart, name: "shop", namespace: "shop" }] })).toContain(
    "platform:apps[1].name",
  );
});

test("the mesh's own rules: an Istio revision at an unpinned version without its charts' digests", () => {
  const c = config({ mesh: { kind: "istio" } });
  const istio = {
    ...c.mesh.istio,
    revisions: [{ name: "next", version: "1.31.2" }],
    defaultRevision: "next",
  };
  expect(refusedPaths({ ...c, mesh: { ...c.mesh, istio } })).toEqual([
    "platform:mesh.istio.revisions.0.charts",
  ]);
});

test("new Platform({ config }) refuses a config written in code before it builds anything", async () => {
  let constructed = false;
  await expect(
    render(() => {
      const bad = input({ apps: [app("shop"), app("cart", "shop.example.com")] }) as EnvironmentInput;
      new Platform("platform", { config: bad });
      constructed = true;
    }),
  ).rejects.toThrow(
    /platform:apps\[1\].expose: exposes host "shop.example.com" and path "\/" through gke-gateway/,
  );
  expect(constructed).toBe(false);
});
