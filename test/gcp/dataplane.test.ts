import { at, one } from "../helpers";
import { CLUSTER, renderCluster } from "./gke";

describe("Dataplane V2", () => {
  test("is the default with every mesh, Linkerd included: NetworkPolicy in eBPF, no Calico", async () => {
    for (const kind of ["linkerd", "istio", "none"]) {
      const cluster = one(await renderCluster({ mesh: { kind } }), CLUSTER);
      expect(at(cluster, "datapathProvider")).toBe("ADVANCED_DATAPATH");
      expect(at(cluster, "networkPolicy")).toBeUndefined();
      expect(at(cluster, "addonsConfig", "networkPolicyConfig")).toEqual({ disabled: true });
    }
  });

  test("a cluster keeps the datapath it was made with: the new default never recreates one", async () => {
    const cluster = one(await renderCluster({ mesh: { kind: "linkerd" } }), CLUSTER);
    expect(cluster.options.ignoreChanges).toEqual([
      "nodeConfig",
      "datapathProvider",
      "networkPolicy",
      "addonsConfig.networkPolicyConfig",
    ]);
  });
});
