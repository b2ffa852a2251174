import { ConfigError } from "../../lib/config";
import { GkeCluster } from "../../lib/gcp";
import { resolvePlan } from "../../lib/plan";
import type { RenderResult } from "../../lib/render";
import { at, input, one, render } from "../helpers";
import { CLUSTER, CRYPTO_KEY, NODE_POOL } from "./gke";

/**
 * `GkeCluster` on its own: a project and a region, every other setting the default an environment
 * config gets (lib/config/defaults.ts), resolved and checked inside the component.
 */

/** Every resource's type, name, inputs and options, in registration order. */
const registered = (result: RenderResult) =>
  result.resources.map((r) => ({ type: r.type, name: r.name, inputs: r.inputs, options: r.options }));

describe("new GkeCluster(name, { project, region })", () => {
  let result: RenderResult;
  beforeAll(async () => {
    result = await render(() => new GkeCluster("shop", { project: "acme-shop", region: "europe-west1" }));
  });

  test("registers the cluster with the documented defaults (tier prod)", () => {
    const cluster = one(result, CLUSTER);
    expect(at(cluster, "name")).toBe("shop");
    // Regional, protected from a destroy, on the STABLE channel with a weekend maintenance window.
    expect(at(cluster, "location")).toBe("europe-west1");
    expect(at(cluster, "releaseChannel")).toEqual({ channel: "STABLE" });
    expect(at(cluster, "deletionProtection")).toBe(true);
    expect(cluster.options.protect).toBe(true);
    expect(at(cluster, "maintenancePolicy")).toEqual({
      recurringWindow: {
        startTime: "2024-01-01T02:00:00Z",
        endTime: "2024-01-01T08:00:00Z",
        recurrence: "FREQ=WEEKLY;BYDAY=SA,SU",
      },
    });
    // GKE owns the Gateway API on its standard channel; private nodes; Workload Identity; Dataplane V2.
    expect(at(cluster, "gatewayApiConfig")).toEqual({ channel: "CHANNEL_STANDARD" });
    expect(at(cluster, "privateClusterConfig")).toMatchObject({
      enablePrivateNodes: true,
      masterIpv4CidrBlock: "172.16.0.0/28",
    });
    expect(at(cluster, "workloadIdentityConfig")).toEqual({ workloadPool: "acme-shop.svc.id.goog" });
    expect(at(cluster, "datapathProvider")).toBe("ADVANCED_DATAPATH");
    // Secrets encrypted with a key of its own, rotated every 90 days.
    expect(at(one(result, CRYPTO_KEY), "rotationPeriod")).toBe("7776000s");
    expect(at(one(result, NODE_POOL), "nodeConfig", "spot")).toBe(false);
  });

  test("is what the Platform builds for an environment of the same tier and cluster name", async () => {
    const plan = resolvePlan(
      input({
        tier: "prod",
        gcp: { project: "acme-shop", region: "europe-west1" },
        cluster: { name: "shop" },
      }),
      "test",
    );
    const viaPlan = await render(
      () =>
        new GkeCluster("shop", {
          project: "acme-shop",
          region: "europe-west1",
          settings: { cluster: plan.config.cluster, network: plan.config.network },
        }),
    );
    expect(registered(result)).toEqual(registered(viaPlan));
  });
});

test("tier dev: a zonal cluster on the REGULAR channel, neither protected nor deletion-protected", async () => {
  const result = await render(
    () => new GkeCluster("shop", { project: "acme-shop", region: "europe-west1", tier: "dev" }),
  );
  const cluster = one(result, CLUSTER);
  expect(at(cluster, "location")).toBe("europe-west1-b");
  expect(at(cluster, "releaseChannel")).toEqual({ channel: "REGULAR" });
  expect(at(cluster, "deletionProtection")).toBe(false);
  expect(cluster.options.protect).toBe(false);
});

test("settings an environment config would refuse are refused with the same message", async () => {
  await expect(
    render(
      () =>
        new GkeCluster("shop", {
          project: "acme-shop",
          region: "europe-west1",
          cluster: { location: "us-central1" },
        }),
    ),
  ).rejects.toThrow(
    new ConfigError([
      {
        path: "platform:cluster.location",
        problem: '"us-central1" is outside gcp:region "europe-west1", where the network is built',
        allowed: "europe-west1 or one of its zones",
        fix: 'set platform:cluster.location to "europe-west1", or change gcp:region',
      },
    ]).message,
  );
});

test("resolved settings beside the fields they replace are refused", async () => {
  const plan = resolvePlan(input(), "test");
  await expect(
    render(
      () =>
        new GkeCluster("shop", {
          project: "acme-test",
          region: "europe-west1",
          tier: "dev",
          settings: { cluster: plan.config.cluster, network: plan.config.network },
        }),
    ),
  ).rejects.toThrow(
    "GkeCluster shop: tier set beside settings, which are already resolved; pass one or the other",
  );
});
