import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import type { PlatformConfig } from "../config";

/** Secondary range names the cluster's IP allocation policy refers to. */
export const podsRangeName = "pods";
export const servicesRangeName = "services";

export interface NetworkArgs {
  readonly project: string;
  readonly region: string;
  readonly network: PlatformConfig["network"];
  /** Private nodes need Cloud NAT for egress and firewall rules for webhooks. */
  readonly privateNodes: boolean;
  /** Network tag on every node, the target of the webhook firewall rule. */
  readonly nodeTag: string;
  /** TCP ports the control plane must reach on nodes (admission webhooks). */
  readonly webhookPorts: readonly number[];
  /** Create a REGIONAL_MANAGED_PROXY subnet (regional and internal Gateway classes). */
  readonly proxyOnlySubnet: boolean;
}

/**
 * A VPC-native network for one cluster: a node subnet with secondary ranges for pods and Services,
 * so Google load balancers send traffic straight to pod NEGs; Cloud NAT for private nodes; the
 * proxy-only subnet regional Gateways need; and the control-plane-to-node rule for webhooks.
 */
export class Network extends pulumi.ComponentResource {
  readonly networkId: pulumi.Output<string>;
  readonly networkName: pulumi.Output<string>;
  readonly subnetId: pulumi.Output<string>;
  readonly subnetName: pulumi.Output<string>;
  readonly proxyOnlySubnetId?: pulumi.Output<string>;

  constructor(name: string, args: NetworkArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:gcp:Network", name, {}, opts);
    // Everything here waits for what the component waits for (the project's APIs).
    const parent = { parent: this, dependsOn: opts?.dependsOn };
    const n = args.network;

    const vpc = new gcp.compute.Network(
      name,
      {
        name: n.name,
        project: args.project,
        // Subnets are explicit so their ranges are known and non-overlapping.
        autoCreateSubnetworks: false,
        routingMode: "REGIONAL",
      },
      parent,
    );

    const subnet = new gcp.compute.Subnetwork(
      `${name}-nodes`,
      {
        name: `${n.name}-nodes`,
        project: args.project,
        region: args.region,
        network: vpc.id,
        ipCidrRange: n.nodesCidr,
        // Private nodes reach Google APIs (Artifact Registry, logging) without public IPs.
        privateIpGoogleAccess: true,
        secondaryIpRanges: [
          { rangeName: podsRangeName, ipCidrRange: n.podsCidr },
          { rangeName: servicesRangeName, ipCidrRange: n.servicesCidr },
        ],
        // Sampled flow logs make "who talked to what" answerable after an incident.
        logConfig: {
          aggregationInterval: "INTERVAL_10_MIN",
          flowSampling: 0.5,
          metadata: "INCLUDE_ALL_METADATA",
        },
      },
      parent,
    );

    if (args.privateNodes) {
      const router = new gcp.compute.Router(
        `${name}-router`,
        { name: `${n.name}-router`, project: args.project, region: args.region, network: vpc.id },
        parent,
      );
      new gcp.compute.RouterNat(
        `${name}-nat`,
        {
          name: `${n.name}-nat`,
          project: args.project,
          region: args.region,
          router: router.name,
          // Private nodes have no public IPs; NAT gives them egress to image registries outside Google.
          natIpAllocateOption: "AUTO_ONLY",
          sourceSubnetworkIpRangesToNat: "ALL_SUBNETWORKS_ALL_IP_RANGES",
          logConfig: { enable: true, filter: "ERRORS_ONLY" },
        },
        parent,
      );
      if (args.webhookPorts.length > 0) {
        new gcp.compute.Firewall(
          `${name}-webhooks`,
          {
            name: `${n.name}-webhooks`,
            project: args.project,
            network: vpc.id,
            description:
              "Control plane to admission webhooks on nodes (GKE's own rule opens only 443 and 10250).",
            direction: "INGRESS",
            sourceRanges: [n.controlPlaneCidr],
            targetTags: [args.nodeTag],
            allows: [{ protocol: "tcp", ports: args.webhookPorts.map(String) }],
          },
          parent,
        );
      }
    }

    if (args.proxyOnlySubnet) {
      const proxyOnly = new gcp.compute.Subnetwork(
        `${name}-proxy-only`,
        {
          name: `${n.name}-proxy-only`,
          project: args.project,
          region: args.region,
          network: vpc.id,
          ipCidrRange: n.proxyOnlyCidr,
          // Regional and internal Application Load Balancers run their Envoy proxies in this subnet.
          purpose: "REGIONAL_MANAGED_PROXY",
          role: "ACTIVE",
        },
        parent,
      );
      this.proxyOnlySubnetId = proxyOnly.id;
    }

    this.networkId = vpc.id;
    this.networkName = vpc.name;
    this.subnetId = subnet.id;
    this.subnetName = subnet.name;
    this.registerOutputs({
      networkId: this.networkId,
      subnetId: this.subnetId,
      proxyOnlySubnetId: this.proxyOnlySubnetId,
    });
  }
}
