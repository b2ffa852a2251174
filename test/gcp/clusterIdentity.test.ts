import { at, one, renderPlatform } from "../helpers";
import { K8S_PROVIDER, renderCluster } from "./gke";

describe("a cluster recreated outside Pulumi", () => {
  test("the provider keeps state of an unreachable cluster by default, unless the environment says otherwise", async () => {
    // Unset, so PULUMI_K8S_DELETE_UNREACHABLE=true still works for one `pulumi refresh`.
    expect(at(one(await renderCluster({}), K8S_PROVIDER), "deleteUnreachable")).toBeUndefined();
  });

  test("cluster.deleteUnreachable lets one `pulumi refresh` drop the lost objects", async () => {
    expect(
      at(
        one(await renderCluster({ cluster: { deleteUnreachable: true } }), K8S_PROVIDER),
        "deleteUnreachable",
      ),
    ).toBe("true");
  });

  test("for a cluster made elsewhere too", async () => {
    const result = await renderPlatform({
      cluster: {
        mode: "existing",
        existing: { name: "shared", location: "europe-west1" },
        deleteUnreachable: true,
      },
      ingress: { kind: "none" },
    });
    expect(at(one(result, K8S_PROVIDER), "deleteUnreachable")).toBe("true");
  });
});
