import * as gcp from "@pulumi/gcp";
import * as pulumi from "@pulumi/pulumi";
import { isRegionalGatewayClass, type GatewayClass } from "../config";

export interface EdgeArgs {
  readonly project: string;
  readonly region: string;
  /** Prefix of every name, usually the cluster name. */
  readonly prefix: string;
  /** What every edge resource waits for: the enabled APIs it calls (`edgeApis`). @default none */
  readonly apis?: readonly pulumi.Resource[];
  readonly minTlsVersion: "TLS_1_2" | "TLS_1_3";
  /** The shared GKE Gateway, when any app is exposed through it. */
  readonly gateway?: {
    readonly gatewayClass: GatewayClass;
    readonly staticIp: boolean;
    /** Hosts that get a Google-managed Certificate Manager certificate (tls mode managed). */
    readonly managedHosts: readonly string[];
    /** The cluster's subnet, for an internal (gke-l7-rilb) address. */
    readonly subnetId?: pulumi.Input<string>;
  };
  /** GCE Ingress apps (namespace/name), each with its own static IP when `staticIp`. */
  readonly gceIngress?: { readonly apps: readonly string[]; readonly staticIp: boolean };
  /** A Google service account for cert-manager's DNS-01 solver, bound through Workload Identity. */
  readonly dns01?: {
    readonly certManagerNamespace: string;
    readonly certManagerServiceAccount: string;
    /**
     * What makes the project's Workload Identity pool (`<project>.svc.id.goog`) exist: the first cluster
     * with Workload Identity. IAM refuses a member of a pool that does not exist yet ("Identity Pool does
     * not exist"), so the solver's binding waits for it. @default none: the pool exists already
     */
    readonly poolReady?: readonly pulumi.Resource[];
  };
}

/**
 * The APIs the edge calls: Compute Engine; Certificate Manager for managed certificates; for DNS-01, Cloud
 * DNS, IAM (the solver's account) and Resource Manager (its project role binding).
 */
export function edgeApis(args: EdgeArgs): string[] {
  return [
    "compute.googleapis.com",
    ...((args.gateway?.managedHosts.length ?? 0) > 0 ? ["certificatemanager.googleapis.com"] : []),
    ...(args.dns01
      ? ["dns.googleapis.com", "iam.googleapis.com", "cloudresourcemanager.googleapis.com"]
      : []),
  ];
}

/** A GCP resource name: lowercase letters, digits and '-', at most 63 characters. */
export function gcpName(...parts: string[]): string {
  return parts
    .join("-")
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/-+/g, "-")
    .slice(0, 63)
    .replace(/-+$/, "");
}

/**
 * What Google's load balancers need outside the cluster: SSL policies (TLS 1.2 or newer, MODERN
 * ciphers), the Gateway's reserved address, Google-managed certificates per host, static IPs for
 * GCE Ingresses, and cert-manager's DNS-01 identity. Names are fixed, so the in-cluster objects
 * refer to them by name, and each waits only for the group it refers to.
 */
export class Edge extends pulumi.ComponentResource {
  /** Global SSL policy (global Gateway classes and GCE Ingress). */
  readonly globalSslPolicy?: string;
  /** The SSL policy the Gateway uses (regional for regional classes). */
  readonly gatewaySslPolicy?: string;
  readonly gatewayAddressName?: string;
  /** Certificate Manager map of the Gateway's Google-managed certificates, one entry per host. */
  readonly gatewayCertificateMap?: string;
  readonly gatewayAddress?: pulumi.Output<string>;
  readonly gceAddressNames: ReadonlyMap<string, string> = new Map();
  readonly dns01ServiceAccount?: pulumi.Output<string>;
  /** What the shared Gateway's objects refer to: its SSL policy, address and certificates. */
  readonly gatewayResources: readonly pulumi.Resource[];
  /** What GCE Ingresses refer to: the global SSL policy and their static IPs. */
  readonly gceResources: readonly pulumi.Resource[];
  /** cert-manager's DNS-01 identity: its account and bindings. */
  readonly dns01Resources: readonly pulumi.Resource[];

  constructor(name: string, args: EdgeArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:gcp:Edge", name, {}, opts);
    // Everything here waits for the APIs it calls.
    const parent = { parent: this, dependsOn: [...(args.apis ?? [])] };
    const gatewayResources: pulumi.Resource[] = [];
    const gceResources: pulumi.Resource[] = [];
    const dns01Resources: pulumi.Resource[] = [];
    const project = args.project;
    const gw = args.gateway;
    const regionalGateway = gw !== undefined && isRegionalGatewayClass(gw.gatewayClass);
    // MODERN: TLS 1.2+ with forward-secret AEAD ciphers only (Google's recommended profile).
    const policy = { profile: "MODERN", minTlsVersion: args.minTlsVersion, project };

    if ((gw && !regionalGateway) || args.gceIngress) {
      this.globalSslPolicy = gcpName(args.prefix, "tls");
      const global = new gcp.compute.SSLPolicy(
        `${name}-tls`,
        { name: this.globalSslPolicy, ...policy },
        parent,
      );
      if (gw && !regionalGateway) gatewayResources.push(global);
      if (args.gceIngress) gceResources.push(global);
    }
    if (gw) {
      if (regionalGateway) {
        this.gatewaySslPolicy = gcpName(args.prefix, "tls", args.region);
        gatewayResources.push(
          new gcp.compute.RegionSslPolicy(
            `${name}-tls-regional`,
            { name: this.gatewaySslPolicy, region: args.region, ...policy },
            parent,
          ),
        );
      } else {
        this.gatewaySslPolicy = this.globalSslPolicy;
      }
      if (gw.staticIp) {
        this.gatewayAddressName = gcpName(args.prefix, "gateway");
        const address =
          gw.gatewayClass === "gke-l7-rilb"
            ? new gcp.compute.Address(
                `${name}-gateway-ip`,
                {
                  name: this.gatewayAddressName,
                  project,
                  region: args.region,
                  addressType: "INTERNAL",
                  subnetwork: gw.subnetId,
                  // Internal Application Load Balancers share their VIP through this purpose.
                  purpose: "SHARED_LOADBALANCER_VIP",
                },
                parent,
              )
            : regionalGateway
              ? new gcp.compute.Address(
                  `${name}-gateway-ip`,
                  { name: this.gatewayAddressName, project, region: args.region, addressType: "EXTERNAL" },
                  parent,
                )
              : new gcp.compute.GlobalAddress(
                  `${name}-gateway-ip`,
                  { name: this.gatewayAddressName, project },
                  parent,
                );
        this.gatewayAddress = address.address;
        gatewayResources.push(address);
      }
      if (gw.managedHosts.length > 0) {
        // A certificate map, not a list on the listener: a listener's list is one string of at most
        // 4096 characters (Gateway API tls.options), about 150 hosts; a map takes an entry per host.
        this.gatewayCertificateMap = gcpName(args.prefix, "gateway");
        const map = new gcp.certificatemanager.CertificateMap(
          `${name}-certmap`,
          { name: this.gatewayCertificateMap, project },
          parent,
        );
        // The Gateway waits for the map and its entries (an empty map would fail every handshake);
        // each entry waits for its own certificate, which Google issues later, once DNS points at the Gateway.
        gatewayResources.push(map);
        for (const host of gw.managedHosts) {
          // Hosts are plain DNS names here: config rules refuse wildcards with Google-managed certificates.
          const certName = gcpName(args.prefix, host.replace(/\./g, "-"));
          // Load-balancer-authorized: Google issues and renews it once DNS points the host at the Gateway.
          const cert = new gcp.certificatemanager.Certificate(
            `${name}-cert-${certName}`,
            { name: certName, project, scope: "DEFAULT", managed: { domains: [host] } },
            parent,
          );
          gatewayResources.push(
            new gcp.certificatemanager.CertificateMapEntry(
              `${name}-certmap-${certName}`,
              { name: certName, project, map: map.name, hostname: host, certificates: [cert.id] },
              parent,
            ),
          );
        }
      }
    }

    if (args.gceIngress?.staticIp) {
      const names = new Map<string, string>();
      for (const app of args.gceIngress.apps) {
        const addressName = gcpName(args.prefix, app.replace("/", "-"));
        gceResources.push(
          new gcp.compute.GlobalAddress(`${name}-${addressName}`, { name: addressName, project }, parent),
        );
        names.set(app, addressName);
      }
      this.gceAddressNames = names;
    }

    if (args.dns01) {
      const account = new gcp.serviceaccount.Account(
        `${name}-dns01`,
        {
          project,
          accountId: gcpName(args.prefix, "dns01").slice(0, 30).replace(/-+$/, ""),
          displayName: "cert-manager DNS-01",
        },
        parent,
      );
      // cert-manager writes only TXT records for ACME challenges, but Cloud DNS has no narrower predefined role.
      const role = new gcp.projects.IAMMember(
        `${name}-dns01-dns-admin`,
        { project, role: "roles/dns.admin", member: account.member },
        parent,
      );
      const wi = new gcp.serviceaccount.IAMMember(
        `${name}-dns01-workload-identity`,
        {
          serviceAccountId: account.name,
          role: "roles/iam.workloadIdentityUser",
          member: `serviceAccount:${project}.svc.id.goog[${args.dns01.certManagerNamespace}/${args.dns01.certManagerServiceAccount}]`,
        },
        { ...parent, dependsOn: [...parent.dependsOn, ...(args.dns01.poolReady ?? [])] },
      );
      this.dns01ServiceAccount = account.email;
      dns01Resources.push(account, role, wi);
    }

    this.gatewayResources = gatewayResources;
    this.gceResources = gceResources;
    this.dns01Resources = dns01Resources;
    this.registerOutputs({
      gatewayAddress: this.gatewayAddress,
      dns01ServiceAccount: this.dns01ServiceAccount,
    });
  }
}
