import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { ConfigError, type PlatformConfig } from "../../lib/config";
import { planFor } from "../../lib/plan";
import {
  ExistingCluster,
  GkeCluster,
  gkeKubeconfig,
  maintenancePolicy,
  nodeAccountId,
  nodeRoles,
} from "../../lib/gcp";
import { Platform } from "../../lib/platform";
import { autoName, placeholder, secretText, type RenderResult } from "../../lib/render";
import { at, config, ofType, one, render } from "../helpers";

const CLUSTER = "gcp:container/cluster:Cluster";
const NODE_POOL = "gcp:container/nodePool:NodePool";
const KMS_MEMBER = "gcp:kms/cryptoKeyIAMMember:CryptoKeyIAMMember";
const PROVIDER = "pulumi:providers:kubernetes";

function renderCluster(overrides: Record<string, unknown>): Promise<RenderResult> {
  const plan = planFor(config(overrides));
  const c = plan.config;
  return render(() => {
    new GkeCluster(c.cluster.name, {
      project: c.gcp.project,
      region: c.gcp.region,
      settings: { cluster: c.cluster, network: c.network },
      webhookPorts: plan.webhookPorts,
      proxyOnlySubnet: plan.proxyOnlySubnet,
    });
  });
}

const existing = (c: PlatformConfig) => ({ project: c.gcp.project, existing: c.cluster.existing });

describe("Standard cluster", () => {
  let result: RenderResult;
  beforeAll(async () => {
    result = await renderCluster({ tier: "dev", mesh: { kind: "linkerd" } });
  });

  test("Gateway API standard channel, VPC-native, private nodes, Workload Identity", () => {
    const cluster = one(result, CLUSTER);
    expect(at(cluster, "gatewayApiConfig")).toEqual({ channel: "CHANNEL_STANDARD" });
    expect(at(cluster, "networkingMode")).toBe("VPC_NATIVE");
    expect(at(cluster, "ipAllocationPolicy")).toEqual({
      clusterSecondaryRangeName: "pods",
      servicesSecondaryRangeName: "services",
    });
    expect(at(cluster, "privateClusterConfig")).toMatchObject({
      enablePrivateNodes: true,
      // The IP endpoints are off; GKE reports the private endpoint as on then.
      enablePrivateEndpoint: true,
      masterIpv4CidrBlock: "172.16.0.0/28",
    });
    expect(at(cluster, "workloadIdentityConfig")).toEqual({ workloadPool: "acme-test.svc.id.goog" });
    expect(at(cluster, "addonsConfig", "httpLoadBalancing")).toEqual({ disabled: false });
  });

  test("the default node pool is removed and never runs as the Editor default account", () => {
    const cluster = one(result, CLUSTER);
    expect(at(cluster, "removeDefaultNodePool")).toBe(true);
    expect(at(cluster, "nodeConfig", "serviceAccount")).toBe(
      "gke-test-nodes@acme-test.iam.gserviceaccount.com",
    );
    expect(cluster.options.ignoreChanges).toContain("nodeConfig");
  });

  test("secrets are encrypted with the platform's KMS key, and the cluster waits for the IAM binding", () => {
    const cluster = one(result, CLUSTER);
    const keyId = `projects/acme-test/locations/europe-west1/keyRings/${autoName("gke-test-secrets-ring")}/cryptoKeys/gke-secrets`;
    expect(at(cluster, "databaseEncryption")).toEqual({ state: "ENCRYPTED", keyName: keyId });
    const binding = one(result, KMS_MEMBER);
    expect(binding.inputs).toEqual({
      cryptoKeyId: keyId,
      role: "roles/cloudkms.cryptoKeyEncrypterDecrypter",
      member: `serviceAccount:service-${placeholder("project number of acme-test")}@container-engine-robot.iam.gserviceaccount.com`,
    });
    expect(cluster.dependsOn).toContain(binding.key);
    expect(at(one(result, "gcp:kms/cryptoKey:CryptoKey"), "rotationPeriod")).toBe("7776000s");
  });

  test("the node service account has GKE's node role and Artifact Registry read, nothing else", () => {
    const roles = ofType(result, "gcp:projects/iAMMember:IAMMember").map((m) => at(m, "role"));
    expect(roles).toEqual([...nodeRoles, "roles/artifactregistry.reader"]);
    expect(nodeRoles).toEqual(["roles/container.defaultNodeServiceAccount"]);
  });

  test("node pools: autoscaled, COS_CONTAINERD, shielded, GKE metadata server, after their IAM bindings", () => {
    const pool = one(result, NODE_POOL);
    expect(at(pool, "autoscaling")).toEqual({ minNodeCount: 1, maxNodeCount: 3 });
    expect(at(pool, "nodeConfig")).toMatchObject({
      imageType: "COS_CONTAINERD",
      spot: true,
      serviceAccount: "gke-test-nodes@acme-test.iam.gserviceaccount.com",
      shieldedInstanceConfig: { enableSecureBoot: true, enableIntegrityMonitoring: true },
      workloadMetadataConfig: { mode: "GKE_METADATA" },
      tags: ["gke-test-node"],
    });
    expect(at(pool, "upgradeSettings")).toEqual({ strategy: "SURGE", maxSurge: 1, maxUnavailable: 0 });
    expect(pool.dependsOn).toEqual(
      expect.arrayContaining(ofType(result, "gcp:projects/iAMMember:IAMMember").map((m) => m.key)),
    );
  });

  test("the Kubernetes provider: secret kubeconfig, stable clusterIdentifier, server-side apply, after node pools", () => {
    const provider = one(result, PROVIDER);
    expect(at(provider, "kubeconfig")).toBe(secretText);
    expect(at(provider, "clusterIdentifier")).toBe(
      "projects/acme-test/locations/europe-west1-b/clusters/gke-test",
    );
    expect(at(provider, "enableServerSideApply")).toBe("true");
    expect(provider.dependsOn).toEqual([one(result, NODE_POOL).key]);
  });

  test("private nodes get Cloud NAT and a webhook rule from the control plane for Linkerd's ports", () => {
    expect(ofType(result, "gcp:compute/routerNat:RouterNat")).toHaveLength(1);
    const rule = one(result, "gcp:compute/firewall:Firewall");
    expect(rule.inputs).toMatchObject({
      direction: "INGRESS",
      sourceRanges: ["172.16.0.0/28"],
      targetTags: ["gke-test-node"],
      allows: [{ protocol: "tcp", ports: ["8089", "8443", "9443"] }],
    });
  });

  test("dev is neither protected nor deletion-protected", () => {
    const cluster = one(result, CLUSTER);
    expect(cluster.options.protect).toBe(false);
    expect(at(cluster, "deletionProtection")).toBe(false);
  });
});

describe("tiers and options", () => {
  test("prod: regional, deletion protection, protect on the cluster and its key, backups, maintenance window", async () => {
    const result = await renderCluster({ tier: "prod" });
    const cluster = one(result, CLUSTER);
    expect(at(cluster, "location")).toBe("europe-west1");
    expect(at(cluster, "deletionProtection")).toBe(true);
    expect(cluster.options.protect).toBe(true);
    expect(one(result, "gcp:kms/cryptoKey:CryptoKey").options.protect).toBe(true);
    expect(at(cluster, "addonsConfig", "gkeBackupAgentConfig")).toEqual({ enabled: true });
    expect(at(cluster, "releaseChannel")).toEqual({ channel: "STABLE" });
    expect(at(cluster, "maintenancePolicy")).toEqual({
      recurringWindow: {
        startTime: "2024-01-01T02:00:00Z",
        endTime: "2024-01-01T08:00:00Z",
        recurrence: "FREQ=WEEKLY;BYDAY=SA,SU",
      },
    });
    expect(at(one(result, NODE_POOL), "nodeConfig", "spot")).toBe(false);
  });

  test("Dataplane V2, Managed Prometheus, NodeLocal DNSCache and authorized networks follow config", async () => {
    const result = await renderCluster({
      mesh: { kind: "istio" },
      monitoring: { backend: "managed-prometheus" },
      cluster: { nodeLocalDns: false, authorizedNetworks: [{ name: "ci", cidr: "203.0.113.0/24" }] },
    });
    const cluster = one(result, CLUSTER);
    expect(at(cluster, "datapathProvider")).toBe("ADVANCED_DATAPATH");
    expect(at(cluster, "networkPolicy")).toBeUndefined();
    expect(at(cluster, "monitoringConfig", "managedPrometheus")).toEqual({ enabled: true });
    expect(at(cluster, "addonsConfig", "dnsCacheConfig")).toEqual({ enabled: false });
    expect(at(cluster, "masterAuthorizedNetworksConfig")).toEqual({
      cidrBlocks: [{ cidrBlock: "203.0.113.0/24", displayName: "ci" }],
    });
    expect(one(result, "gcp:compute/firewall:Firewall").inputs).toMatchObject({
      allows: [{ ports: ["15017"] }],
    });
  });

  test("without Dataplane V2, Calico enforces NetworkPolicy", async () => {
    const cluster = one(await renderCluster({ cluster: { dataplaneV2: false } }), CLUSTER);
    expect(at(cluster, "datapathProvider")).toBe("LEGACY_DATAPATH");
    expect(at(cluster, "networkPolicy")).toEqual({ enabled: true, provider: "CALICO" });
  });

  test("secrets encryption off: no key, DECRYPTED, no dependency", async () => {
    const result = await renderCluster({ cluster: { secretsEncryption: { enabled: false } } });
    expect(ofType(result, KMS_MEMBER)).toEqual([]);
    expect(at(one(result, CLUSTER), "databaseEncryption")).toEqual({ state: "DECRYPTED" });
    expect(one(result, CLUSTER).dependsOn.filter((d) => d.startsWith("gcp:kms"))).toEqual([]);
  });

  test("a regional Gateway class gets a proxy-only subnet; the global class does not", async () => {
    const regional = await renderCluster({
      ingress: {
        kind: "gke-gateway",
        gatewayClass: "gke-l7-regional-external-managed",
        tls: { mode: "pre-shared", certificates: ["shop-regional"] },
      },
    });
    const proxyOnly = ofType(regional, "gcp:compute/subnetwork:Subnetwork").filter((s) => at(s, "purpose"));
    expect(proxyOnly.map((s) => s.inputs)).toEqual([
      expect.objectContaining({
        purpose: "REGIONAL_MANAGED_PROXY",
        role: "ACTIVE",
        ipCidrRange: "10.9.0.0/23",
      }),
    ]);
    expect(planFor(config({ ingress: { kind: "gke-gateway" } })).proxyOnlySubnet).toBe(false);
  });

  test("public nodes need neither NAT nor a webhook rule", async () => {
    const result = await renderCluster({ cluster: { privateNodes: false } });
    expect(ofType(result, "gcp:compute/routerNat:RouterNat")).toEqual([]);
    expect(ofType(result, "gcp:compute/firewall:Firewall")).toEqual([]);
    expect(at(one(result, CLUSTER), "privateClusterConfig")).toBeUndefined();
  });
});

describe("Autopilot", () => {
  test("same posture, Google-managed nodes as the least-privilege account, NET_ADMIN for the mesh", async () => {
    const result = await renderCluster({ cluster: { mode: "autopilot" }, mesh: { kind: "linkerd" } });
    const cluster = one(result, CLUSTER);
    expect(cluster.inputs).toMatchObject({
      enableAutopilot: true,
      allowNetAdmin: true,
      location: "europe-west1",
      gatewayApiConfig: { channel: "CHANNEL_STANDARD" },
      privateClusterConfig: { enablePrivateNodes: true },
      databaseEncryption: { state: "ENCRYPTED" },
      clusterAutoscaling: {
        autoProvisioningDefaults: { serviceAccount: "gke-test-nodes@acme-test.iam.gserviceaccount.com" },
      },
      nodePoolAutoConfig: { networkTags: { tags: ["gke-test-node"] } },
    });
    expect(at(cluster, "removeDefaultNodePool")).toBeUndefined();
    expect(ofType(result, NODE_POOL)).toEqual([]);
  });
});

describe("existing cluster", () => {
  test("by name and location: only the provider, with the cluster's id as its identity", async () => {
    const c = config({
      cluster: { mode: "existing", existing: { name: "shared", location: "europe-west1" } },
    });
    const result = await render(() => {
      new ExistingCluster("existing", existing(c));
    });
    expect(result.resources.filter((r) => r.custom).map((r) => r.type)).toEqual([PROVIDER]);
    expect(at(one(result, PROVIDER), "clusterIdentifier")).toBe(
      "projects/acme-test/locations/europe-west1/clusters/shared",
    );
    expect(at(one(result, PROVIDER), "kubeconfig")).toBe(secretText);
  });

  test("by kubeconfig file: its context is used, and a missing context is a config error", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kubeconfig-"));
    try {
      const file = path.join(dir, "config");
      fs.writeFileSync(
        file,
        gkeKubeconfig({ contextName: "kind-dev", endpoint: "127.0.0.1:6443", caCertificate: "Q0E=" }),
      );
      const c = config({ cluster: { mode: "existing", existing: { kubeconfigPath: file } } });
      const result = await render(() => {
        new ExistingCluster("existing", existing(c));
      });
      expect(one(result, PROVIDER).inputs).toMatchObject({
        context: "kind-dev",
        clusterIdentifier: "kubeconfig/kind-dev",
      });

      const wrong = config({
        cluster: { mode: "existing", existing: { kubeconfigPath: file, context: "prod" } },
      });
      await expect(
        render(() => {
          new ExistingCluster("existing", existing(wrong));
        }),
      ).rejects.toThrow(
        new ConfigError([
          {
            path: "platform:cluster.existing.context",
            problem: `context "prod" is not in ${file}`,
            allowed: "kind-dev",
            fix: "set platform:cluster.existing.context to one of its contexts",
          },
        ]).message,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("Platform stage 1", () => {
  test("builds the cluster and exports a secret kubeconfig and explicit placeholders", async () => {
    const c = config({ tier: "dev" });
    const result = await render(() => new Platform("platform", { plan: planFor(c) }).outputs());
    expect(result.outputs).toEqual({
      kubeconfig: secretText,
      clusterName: "gke-test",
      clusterLocation: "europe-west1-b",
      endpoint: placeholder("gke-test DNS endpoint"),
      gatewayApiChannel: "CHANNEL_STANDARD",
      networkId: "projects/acme-test/global/networks/gke-test-vpc",
      subnetId: "projects/acme-test/regions/europe-west1/subnetworks/gke-test-vpc-nodes",
      workloadIdentityPool: "acme-test.svc.id.goog",
      grafanaUrl: "http://kube-prometheus-stack-grafana.monitoring.svc.cluster.local",
    });
  });
});

describe("helpers", () => {
  test("webhook ports come from the add-ons in use", () => {
    const ports = (c: Record<string, unknown>) => planFor(config(c)).webhookPorts;
    expect(ports({ mesh: { kind: "none" }, ingress: { kind: "traefik" } })).toEqual([]);
    expect(ports({ mesh: { kind: "istio" }, ingress: { kind: "ingress-nginx" } })).toEqual([8443, 15017]);
  });

  test("maintenance windows crossing midnight end the next day", () => {
    expect(maintenancePolicy({ days: ["SU"], start: "22:00", hours: 6 }).recurringWindow).toEqual({
      startTime: "2024-01-01T22:00:00Z",
      endTime: "2024-01-02T04:00:00Z",
      recurrence: "FREQ=WEEKLY;BYDAY=SU",
    });
  });

  test("node account ids fit GCP's 6-30 character rule", () => {
    expect(nodeAccountId("gke-a-very-long-cluster-name-for-prod")).toMatch(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/);
    expect(nodeAccountId("x")).toMatch(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/);
  });

  test("the kubeconfig authenticates with gke-gcloud-auth-plugin and holds no token", () => {
    const text = gkeKubeconfig({ contextName: "c", endpoint: "1.2.3.4", caCertificate: "Q0E=" });
    expect(text).toContain("command: gke-gcloud-auth-plugin");
    expect(text).toContain("server: https://1.2.3.4");
    expect(text).not.toMatch(/token|password/);
  });
});
