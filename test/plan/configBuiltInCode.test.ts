import { ConfigError, type PlatformConfig } from "../../lib/config";
import { planFor } from "../../lib/plan";
import { Platform } from "../../lib/platform";
import { config, render } from "../helpers";

/**
 * A config built in code (`new Platform({ config })`, `planFor(config)`) is refused for what the stack
 * file would be refused for: the rules that judge the resolved config run on every path to a plan.
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

test("new Platform({ config }) refuses it before registering anything", async () => {
  const c = config({ apps: [app("shop"), app("cart", "cart.example.com")] });
  const [shop, cart] = c.apps;
  const bad = { ...c, apps: [shop, { ...cart, expose: shop.expose }] };
  let constructed = false;
  await expect(
    render(() => {
      new Platform("platform", { config: bad });
      constructed = true;
    }),
  ).rejects.toThrow(
    /platform:apps\[1\].expose: exposes host "shop.example.com" and path "\/" through gke-gateway/,
  );
  expect(constructed).toBe(false);
});
