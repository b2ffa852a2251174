import { nodePoolOptions } from "../../lib/gcp";
import { at, one } from "../helpers";
import { NODE_POOL, planProblems, renderCluster } from "./gke";

const pool = { name: "general", machineType: "e2-standard-8", minNodes: 1, maxNodes: 4 };

describe("node pools", () => {
  test("a new minNodes never recreates a pool: its initial size is ignored after creation", async () => {
    const p = one(await renderCluster({ cluster: { nodePools: [{ ...pool, minNodes: 3 }] } }), NODE_POOL);
    expect(at(p, "initialNodeCount")).toBe(3);
    expect(p.options.ignoreChanges).toEqual(["initialNodeCount"]);
  });

  test("a replacement creates the new pool beside the old one, never deleting first", async () => {
    // Explicitly false: unset, the provider deletes a resource with a fixed name before replacing it.
    expect(nodePoolOptions({ protect: false })).toMatchObject({ deleteBeforeReplace: false });
    const p = one(await renderCluster({}), NODE_POOL);
    expect(p.options.deleteBeforeReplace).toBe(false);
  });

  test("the name carries the one setting GKE cannot change in place, so a change never collides", async () => {
    const name = async (overrides: Record<string, unknown>) =>
      at(
        one(await renderCluster({ cluster: { nodePools: [{ ...pool, ...overrides }] } }), NODE_POOL),
        "name",
      );
    expect(await name({ spot: true })).toBe("general-spot");
    expect(await name({ spot: false })).toBe("general");
    // In place: no new name, no new pool.
    expect(await name({ spot: false, machineType: "n2-standard-8", diskSizeGb: 200, maxNodes: 9 })).toBe(
      "general",
    );
  });

  test("prod protects its pools; a pool can opt out for the change that retires it", async () => {
    expect(one(await renderCluster({ tier: "prod" }), NODE_POOL).options.protect).toBe(true);
    expect(one(await renderCluster({ tier: "dev" }), NODE_POOL).options.protect).toBe(false);
    const retiring = await renderCluster({
      tier: "prod",
      cluster: { nodePools: [{ ...pool, protect: false }] },
    });
    expect(one(retiring, NODE_POOL).options.protect).toBe(false);
    const unprotected = await renderCluster({ tier: "prod", cluster: { protect: false } });
    expect(one(unprotected, NODE_POOL).options.protect).toBe(false);
  });

  test("GKE pool names stay within GKE's 40 characters and distinct", () => {
    const long = "a".repeat(38);
    expect(planProblems({ cluster: { nodePools: [{ ...pool, name: long, spot: true }] } })).toEqual([
      {
        path: "platform:cluster.nodePools[0].name",
        problem: `"${long}" makes the GKE node pool name "${long}-spot", 43 characters; GKE allows 40`,
        fix: "shorten it to at most 35 characters",
      },
    ]);
    expect(
      planProblems({
        cluster: {
          nodePools: [
            { ...pool, spot: true },
            { ...pool, name: "general-spot", spot: false },
          ],
        },
      }),
    ).toEqual([
      {
        path: "platform:cluster.nodePools[1].name",
        problem:
          '"general-spot" makes the GKE node pool name "general-spot", which another pool has (spot pools are named <name>-spot)',
        fix: "give the pools names that differ by more than -spot",
      },
    ]);
  });
});
