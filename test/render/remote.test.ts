import * as k8s from "@pulumi/kubernetes";
import * as YAML from "yaml";
import { kubernetesObjects, renderFiles } from "../../lib/render";
import { checkInvariants } from "../../lib/safety";
import { viewsOf } from "../../lib/render";
import { render } from "../helpers";

/**
 * A remote (multi-language) component under the mock runtime: the mocks get its type, inputs and
 * transforms, never its children (its provider registers them at deploy). The render records it as a
 * deployable leaf and runs its transforms on a stand-in CRD and a stand-in other object.
 */

const CHART = "kubernetes:helm.sh/v4:Chart";

test("a helm.v4.Chart is a leaf with its inputs; what waits for it waits for it; its transforms are probed", async () => {
  const r = await render(() => {
    const provider = new k8s.Provider("k", { kubeconfig: "{}" });
    const chart = new k8s.helm.v4.Chart(
      "plain",
      { chart: "traefik", version: "41.3.0", namespace: "traefik", values: { x: 1 } },
      { provider },
    );
    new k8s.core.v1.ConfigMap("after", { metadata: { name: "after" } }, { provider, dependsOn: [chart] });
  });
  const chart = r.resources.find((x) => x.type === CHART);
  expect(chart).toMatchObject({
    custom: true,
    remote: true,
    provider: "pulumi:providers:kubernetes::k",
    inputs: { chart: "traefik", version: "41.3.0", namespace: "traefik", values: { x: 1 } },
    // No transforms: a CRD it registers would not be retained, and it registers anything.
    children: { crd: { retainOnDelete: false, annotations: {} }, crdsOnly: false },
  });
  const after = r.resources.find((x) => x.name === "after");
  expect(after?.dependencies).toContain(chart?.key);
  // Not an object of the program's own.
  expect(kubernetesObjects(r).map((x) => x.type)).toEqual(["kubernetes:core/v1:ConfigMap"]);
  const releases = (YAML.parse(renderFiles(r)["helm-releases.yaml"]) as { releases: unknown[] }).releases;
  expect(releases).toEqual([
    {
      name: "plain",
      namespace: "traefik",
      repository: "",
      chart: "traefik",
      version: "41.3.0",
      resource: "helm.v4.Chart",
      crds: {
        installedByChart: true,
        retainOnDelete: false,
        note: "each object server-side applied as its own resource",
      },
      values: { x: 1 },
    },
  ]);
  // Traefik's chart applies its crds/ here, unretained: the invariant says so.
  expect(checkInvariants(viewsOf(r))).toEqual([
    expect.objectContaining({ invariant: "crd-releases-retained", resource: `${CHART}::plain` }),
  ]);
});
