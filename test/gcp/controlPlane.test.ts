import * as pulumi from "@pulumi/pulumi";
import * as YAML from "yaml";
import { configWarnings } from "../../lib/config";
import { GkeCluster } from "../../lib/gcp";
import { planFor } from "../../lib/plan";
import { placeholder } from "../../lib/render";
import { at, config, one, render } from "../helpers";
import { CLUSTER, planProblems, renderCluster } from "./gke";

interface Kubeconfig {
  clusters: { cluster: { server: string; "certificate-authority-data"?: string } }[];
}

/** The kubeconfig a GkeCluster generates for the smallest valid environment plus `overrides`. */
async function kubeconfigFor(overrides: Record<string, unknown>): Promise<Kubeconfig> {
  const c = planFor(config(overrides)).config;
  const result = await render(() => {
    const cluster = new GkeCluster(c.cluster.name, {
      project: c.gcp.project,
      region: c.gcp.region,
      settings: { cluster: c.cluster, network: c.network },
    });
    return { kubeconfig: pulumi.unsecret(cluster.kubeconfig) };
  });
  return YAML.parse(String(result.outputs.kubeconfig)) as Kubeconfig;
}

const ci = [{ name: "ci", cidr: "203.0.113.0/24" }];

describe("control-plane access", () => {
  test("by default, in every tier: the DNS endpoint (IAM-authenticated), IP endpoints off", async () => {
    for (const tier of ["dev", "staging", "prod"]) {
      const cluster = one(await renderCluster({ tier }), CLUSTER);
      expect(at(cluster, "controlPlaneEndpointsConfig")).toEqual({
        dnsEndpointConfig: { allowExternalTraffic: true },
        ipEndpointsConfig: { enabled: false },
      });
      expect(at(cluster, "masterAuthorizedNetworksConfig")).toBeUndefined();
      expect(configWarnings(config({ tier }))).toEqual([]);
    }
  });

  test("the kubeconfig reaches the DNS endpoint, whose certificate is publicly trusted", async () => {
    const kubeconfig = await kubeconfigFor({});
    expect(kubeconfig.clusters[0].cluster).toEqual({
      server: `https://${placeholder("gke-test DNS endpoint")}`,
    });
  });

  test("authorized networks bring the IP endpoints back, limited to them", async () => {
    const cluster = one(await renderCluster({ cluster: { authorizedNetworks: ci } }), CLUSTER);
    expect(at(cluster, "controlPlaneEndpointsConfig", "ipEndpointsConfig")).toEqual({ enabled: true });
    expect(at(cluster, "privateClusterConfig", "enablePrivateEndpoint")).toBe(false);
    expect(at(cluster, "masterAuthorizedNetworksConfig")).toEqual({
      cidrBlocks: [{ cidrBlock: "203.0.113.0/24", displayName: "ci" }],
    });
  });

  test("without the DNS endpoint the kubeconfig names the IP endpoint and its CA", async () => {
    const kubeconfig = await kubeconfigFor({ cluster: { dnsEndpoint: false, authorizedNetworks: ci } });
    expect(kubeconfig.clusters[0].cluster).toEqual({
      server: `https://${placeholder("gke-test endpoint")}`,
      "certificate-authority-data": placeholder("gke-test CA certificate"),
    });
  });

  test("a public IP endpoint open to any address is warned about in every tier, dev included", () => {
    for (const tier of ["dev", "staging", "prod"]) {
      expect(configWarnings(config({ tier, cluster: { ipEndpoints: true } }))).toEqual([
        `platform:cluster.authorizedNetworks is empty in ${tier}: the control plane's public IP endpoint accepts connections from any address (IAM still applies); list your CI and office ranges, or set platform:cluster.ipEndpoints to false and use the DNS endpoint`,
      ]);
    }
    expect(configWarnings(config({ cluster: { ipEndpoints: true, privateEndpoint: true } }))).toEqual([]);
  });

  test("a control plane nothing can reach, and IP-only settings without IP endpoints, are refused", () => {
    expect(planProblems({ cluster: { dnsEndpoint: false } })).toEqual([
      {
        path: "platform:cluster.dnsEndpoint",
        problem:
          "is false and cluster.ipEndpoints is false, so nothing, `pulumi up` included, could reach the control plane",
        fix: "remove platform:cluster.dnsEndpoint (the DNS endpoint is authenticated by IAM), or set platform:cluster.ipEndpoints to true",
      },
    ]);
    expect(planProblems({ cluster: { ipEndpoints: false, authorizedNetworks: ci } })).toEqual([
      {
        path: "platform:cluster.authorizedNetworks",
        problem:
          "is set, but cluster.ipEndpoints is false; authorized networks limit the IP endpoints only (IAM limits the DNS endpoint)",
        fix: "set platform:cluster.ipEndpoints to true, or remove platform:cluster.authorizedNetworks",
      },
    ]);
    expect(planProblems({ cluster: { ipEndpoints: false, privateEndpoint: true } })).toEqual([
      {
        path: "platform:cluster.privateEndpoint",
        problem: "is true, but cluster.ipEndpoints is false; the private endpoint is one of the IP endpoints",
        fix: "set platform:cluster.ipEndpoints to true, or remove platform:cluster.privateEndpoint",
      },
    ]);
  });
});
