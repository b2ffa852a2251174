import { Platform } from "../../lib/platform";
import { invariants, type ResourceView } from "../../lib/safety";
import { viewsOf } from "../../lib/render";
import { notInPolicyPack, policies } from "../../policy/policies";
import { violations } from "./policyPack";
import { planFor } from "../../lib/plan";
import { config, render } from "../helpers";

let views: ResourceView[];
beforeAll(async () => {
  const c = config({
    tier: "prod",
    mesh: { kind: "linkerd" },
    apps: [{ name: "shop", image: "hello:2", port: 8080, expose: { host: "shop.example.com" } }],
  });
  views = viewsOf(await render(() => new Platform("p", { plan: planFor(c) }).outputs()));
});

test("one mandatory policy per invariant, but those a policy pack cannot see, each with its reason", () => {
  expect(policies.map((p) => p.name).sort()).toEqual(
    Object.keys(invariants)
      .filter((n) => !(n in notInPolicyPack))
      .sort(),
  );
  expect(Object.keys(notInPolicyPack)).toEqual(["no-plain-secrets"]);
  expect(policies.every((p) => p.enforcementLevel === "mandatory")).toBe(true);
});

test("the platform's own prod program passes every policy", async () => {
  expect(await violations(views)).toEqual([]);
});

test("an unprotected prod cluster is reported against the cluster's URN", async () => {
  const bad = views.map((v) => (v.type === "gcp:container/cluster:Cluster" ? { ...v, protect: false } : v));
  const cluster = views.find((v) => v.type === "gcp:container/cluster:Cluster") as ResourceView;
  expect(await violations(bad)).toEqual([
    {
      policy: "prod-protected",
      message: expect.stringContaining("needs deletionProtection true") as string,
      urn: `urn:pulumi:prod::app::gcp:container/cluster:Cluster::${cluster.name}`,
    },
  ]);
});

test("a chart installing Gateway API CRDs while GKE owns them is reported", async () => {
  const bad = views.map((v) =>
    v.type === "kubernetes:helm.sh/v3:Release" && v.inputs.name === "linkerd-crds"
      ? { ...v, inputs: { ...v.inputs, values: { ...(v.inputs.values as object), enableHttpRoutes: true } } }
      : v,
  );
  expect((await violations(bad)).map((v) => v.policy)).toEqual(["single-crd-owner"]);
});

test("a value unknown at preview is left out; the rest of the program is still judged", async () => {
  const unknownAtPreview = (props: Record<string, unknown>, key: string) =>
    new Proxy(props, {
      get: (target, p) => {
        if (p === key) throw new Error(`${key} is unknown during preview`);
        return target[p as string];
      },
    });
  const cluster = views.find((v) => v.type === "gcp:container/cluster:Cluster") as ResourceView;
  const bad = views.map((v) =>
    v === cluster
      ? { ...v, protect: false }
      : v.type === "gcp:compute/network:Network"
        ? { ...v, inputs: unknownAtPreview({ ...v.inputs, metadata: "(unknown)" }, "metadata") }
        : v,
  );
  expect((await violations(bad)).map((v) => v.policy)).toEqual(["prod-protected"]);
});

test("a Linkerd webhook certificate generated at template time is reported against the release's URN", async () => {
  const bad = views.map((v) =>
    v.type === "kubernetes:helm.sh/v3:Release" && v.inputs.name === "linkerd-control-plane"
      ? { ...v, inputs: { ...v.inputs, values: { ...(v.inputs.values as object), policyValidator: {} } } }
      : v,
  );
  expect(await violations(bad)).toEqual([
    {
      policy: "certificates-renewed",
      message: expect.stringContaining(
        "Secret linkerd/linkerd-policy-validator-k8s-tls (linkerd-policy-validator webhook's serving certificate)",
      ) as string,
      urn: "urn:pulumi:prod::app::kubernetes:helm.sh/v3:Release::linkerd-control-plane",
    },
  ]);
});
