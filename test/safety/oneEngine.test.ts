import {
  HelmTemplater,
  checkClusterInvariants,
  findHelm,
  joinObjectSet,
  objectSetOf,
  type ObjectSet,
} from "../../lib/cluster";
import { planFor } from "../../lib/plan";
import { Platform } from "../../lib/platform";
import { applyOrder, clusterInputOf, viewsOf, type RenderResult } from "../../lib/render";
import { checkInvariants } from "../../lib/safety";
import { supportedKubernetes } from "../../lib/versions";
import { config, render } from "../helpers";
import { chartsDir, helmChartsProblem } from "../upstream/reference";
import { violations } from "./policyPack";

/**
 * One invariant, one implementation: the same mutated render goes to the render's invariants, the
 * policy pack (validateStack, as Pulumi runs it) and the cluster tier's object set, and each reports the
 * same finding on the same workload.
 */

type Obj = Record<string, unknown>;

let clean: RenderResult;
let broken: RenderResult;
beforeAll(async () => {
  const c = config({
    tier: "prod",
    mesh: { kind: "linkerd" },
    apps: [
      {
        name: "shop",
        image: "hello:2",
        port: 8080,
        expose: { host: "shop.example.com", healthCheckPath: "/ready" },
        mesh: { authorization: { rules: [{ from: ["ops/oncall"] }] } },
      },
    ],
  });
  clean = await render(() => new Platform("p", { plan: planFor(c) }).outputs());
  // The mutation: the probe route's authorization for kubelet's networks points elsewhere.
  broken = JSON.parse(JSON.stringify(clean)) as RenderResult;
  const probeAuthorizations = broken.resources.filter((r) => {
    const name = (r.inputs.metadata as { name?: string } | undefined)?.name ?? "";
    return (
      r.inputs.kind === "AuthorizationPolicy" && name.includes("-get-ready-") && name.endsWith("-cluster")
    );
  });
  expect(probeAuthorizations).toHaveLength(1);
  ((probeAuthorizations[0].inputs.spec as Obj).targetRef as Obj).name = "elsewhere";
  // The copy's apply order holds copies of its own: order the mutated resources again.
  broken = { ...broken, order: applyOrder(broken.resources) };
});

/** The render's invariants: workload and message. */
const fromRender = (result: RenderResult) =>
  checkInvariants(viewsOf(result))
    .filter((v) => v.invariant === "probes-authorized")
    .map((v) => v.message);

/** The policy pack, over the same resources as Pulumi hands them to it. */
async function fromPolicyPack(result: RenderResult): Promise<string[]> {
  return (await violations(viewsOf(result)))
    .filter((v) => v.policy === "probes-authorized")
    .map((v) => v.message);
}

/** The cluster tier's invariant over an object set. */
const fromCluster = (set: ObjectSet) =>
  checkClusterInvariants(set)
    .filter((f) => f.invariant === "probes-authorized")
    .map((f) => `${f.object}: ${f.message}`);

/** The object set of the platform's objects and each release's values, its charts untemplated. */
function untemplated(result: RenderResult): ObjectSet {
  const input = clusterInputOf("stacks/prod", "prod", result);
  const releases = input.releases.map((r) => ({ ...r, objects: [] }));
  return joinObjectSet(input, releases, supportedKubernetes.highest, []);
}

const readinessAndStartup = [
  "its readinessProbe GET /ready reaches Server shop/shop, which has routes, and no route that matches it is authorized from the networks kubelet probes from",
  "its startupProbe GET /ready reaches Server shop/shop, which has routes, and no route that matches it is authorized from the networks kubelet probes from",
];

test("probes-authorized: the render, the policy pack and the cluster tier report the same broken probes", async () => {
  expect(fromRender(clean)).toEqual([]);
  expect(await fromPolicyPack(clean)).toEqual([]);
  expect(fromCluster(untemplated(clean))).toEqual([]);

  const render = fromRender(broken);
  expect(render).toEqual(readinessAndStartup.map((m) => expect.stringContaining(m) as string));
  expect(render[0]).toMatch(/^Deployment shop\/shop: /);
  expect(await fromPolicyPack(broken)).toEqual(render);
  // The cluster tier names the object its own way (`Kind namespace/name`); the finding is the same.
  expect(fromCluster(untemplated(broken))).toEqual(render);
});

const helm = findHelm();
const missing = helmChartsProblem(helm);
(missing ? test.skip : test)(
  `probes-authorized over the templated charts too: the same finding, and none in the charts' own pods${missing ? ` (skipped: ${missing})` : ""}`,
  async () => {
    const templater = new HelmTemplater(helm ?? "helm", 2);
    const setOf = (result: RenderResult) =>
      objectSetOf(clusterInputOf("stacks/prod", "prod", result), {
        templater,
        chartsDir: chartsDir ?? "",
        kubeVersion: supportedKubernetes.highest,
      });
    expect(fromCluster(await setOf(clean))).toEqual([]);
    expect(fromCluster(await setOf(broken))).toEqual(fromRender(broken));
  },
  120_000,
);
