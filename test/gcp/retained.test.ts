import * as path from "path";
import { renderProject, type RenderResult, type RenderedResource } from "../../lib/render";
import { at } from "../helpers";

/**
 * `pulumi destroy` then `pulumi up` of an environment must create nothing whose name collides with
 * something Google Cloud kept. This lists every GCP resource the platform retains on delete or that
 * GCP never deletes, and checks how each one's name avoids the collision.
 */

const root = path.resolve(__dirname, "../..");
const KEY_RING = "gcp:kms/keyRing:KeyRing";
const CRYPTO_KEY = "gcp:kms/cryptoKey:CryptoKey";

/** Left behind by a destroy: retained by the platform, or never deleted by GCP. */
function kept(r: RenderedResource): boolean {
  return r.custom && r.type.startsWith("gcp:") && r.options.retainOnDelete;
}

/** Pulumi names it `<resource name>-<random suffix>` once and keeps the name in state. */
function autoNamed(r: RenderedResource): void {
  expect(at(r, "name")).toBeUndefined();
  // A stack made before the suffix keeps the fixed name it has instead of replacing the resource.
  expect(r.options.ignoreChanges).toContain("name");
}

/** How each kind of kept resource stays clear of what a previous environment left behind. */
const nameStrategies: Record<string, (r: RenderedResource, result: RenderResult) => void> = {
  // Cloud KMS never deletes key rings.
  [KEY_RING]: autoNamed,
  // Keys are never deleted either; a key's full name is its ring's, so a new ring makes it new.
  [CRYPTO_KEY]: (r, result) => {
    const ring = result.resources.find((x) => x.type === KEY_RING && r.dependencies.includes(x.key));
    expect(ring).toBeDefined();
    autoNamed(ring as RenderedResource);
    expect(String(at(r, "keyRing"))).toMatch(/\/keyRings\/.+-<known after deploy: random suffix>$/);
  },
};

const renders = new Map<string, Promise<RenderResult>>();
const renderOf = (stack: string): Promise<RenderResult> => {
  const cached = renders.get(stack) ?? renderProject(root, stack);
  renders.set(stack, cached);
  return cached;
};

describe.each([
  ["dev", [`${KEY_RING}::gke-dev-secrets-ring`, `${CRYPTO_KEY}::gke-dev-secrets-key`]],
  ["staging", [`${KEY_RING}::gke-staging-secrets-ring`, `${CRYPTO_KEY}::gke-staging-secrets-key`]],
  ["prod", [`${KEY_RING}::gke-prod-secrets-ring`, `${CRYPTO_KEY}::gke-prod-secrets-key`]],
])("stacks/%s", (stack, expected) => {
  test("every resource left behind by a destroy is listed", async () => {
    const result = await renderOf(stack);
    expect(
      result.resources
        .filter(kept)
        .map((r) => r.key)
        .sort(),
    ).toEqual([...expected].sort());
  });

  test("and each one's name cannot collide with what a previous environment left", async () => {
    const result = await renderOf(stack);
    for (const r of result.resources.filter(kept)) {
      const strategy = nameStrategies[r.type];
      expect(strategy).toBeDefined();
      strategy(r, result);
    }
  });
});
