import { placeholder } from "../../lib/render";
import { at, ofType, one, plan, renderPlatform, waitsFor } from "../helpers";
import { CLUSTER, KEY_RING, KMS_MEMBER, SERVICE, SERVICE_IDENTITY, planProblems, renderCluster } from "./gke";

const shop = {
  name: "shop",
  image: "europe-west1-docker.pkg.dev/acme-test/images/shop:1.0",
  port: 8080,
  expose: { host: "shop.example.com" },
};
const agent = `serviceAccount:service-${placeholder("project number of acme-test")}@container-engine-robot.iam.gserviceaccount.com`;

describe("a fresh project", () => {
  test("every API the environment uses is enabled, and never disabled on destroy", async () => {
    const result = await renderPlatform({ apps: [shop], ingress: { kind: "gke-gateway" } });
    expect(ofType(result, SERVICE).map((s) => s.inputs)).toEqual(
      [
        "certificatemanager.googleapis.com",
        "cloudkms.googleapis.com",
        "cloudresourcemanager.googleapis.com",
        "compute.googleapis.com",
        "container.googleapis.com",
        "containersecurity.googleapis.com",
        "iam.googleapis.com",
      ].map((service) => ({
        project: "acme-test",
        service,
        disableOnDestroy: false,
        disableDependentServices: false,
      })),
    );
  });

  test("every GCP resource waits for the API it calls, so the first `pulumi up` never races them", async () => {
    // A team with a Google service account and a project role, and DNS-01's identity, as well as the edge.
    const result = await renderPlatform({
      apps: [{ ...shop, namespace: "payments", team: "payments" }],
      ingress: { kind: "gke-gateway" },
      teams: [{ name: "payments", workloadIdentity: { roles: ["roles/pubsub.publisher"] } }],
    });
    // The API behind each module of @pulumi/gcp the environment uses.
    const apiOf: Record<string, string> = {
      certificatemanager: "certificatemanager",
      compute: "compute",
      container: "container",
      kms: "cloudkms",
      serviceaccount: "iam",
      projects: "cloudresourcemanager",
    };
    const users = result.resources.filter(
      (r) => r.custom && r.type.startsWith("gcp:") && r.type !== SERVICE && r.type !== SERVICE_IDENTITY,
    );
    // The network, KMS, IAM, cluster, node pools, the edge's certificates, addresses and SSL policy, the team's account.
    expect(users.length).toBeGreaterThan(15);
    expect(users.filter((r) => r.name.startsWith("platform-team-payments-"))).toHaveLength(3);
    const notWaiting = users.flatMap((r) => {
      const module = r.type.split(":")[1].split("/")[0];
      const api = `${SERVICE}::gke-test-apis-${apiOf[module] ?? `(no API known for gcp:${module})`}`;
      return waitsFor(result, r).has(api) ? [] : [`${r.key} does not wait for ${api}`];
    });
    expect(notWaiting).toEqual([]);
  });

  test("a host's certificate and map entry wait for the two APIs they call, not for every API and agent", async () => {
    const result = await renderPlatform({ apps: [shop], ingress: { kind: "gke-gateway" } });
    const apis = ["certificatemanager", "compute"].map((a) => `${SERVICE}::gke-test-apis-${a}`);
    for (const type of [
      "gcp:certificatemanager/certificate:Certificate",
      "gcp:certificatemanager/certificateMapEntry:CertificateMapEntry",
    ]) {
      expect([...one(result, type).dependsOn].sort()).toEqual(apis);
    }
  });

  test("GKE's service agent is created before the KMS key is granted to it", async () => {
    const result = await renderCluster({});
    const identity = one(result, SERVICE_IDENTITY);
    expect(identity.inputs).toEqual({ project: "acme-test", service: "container.googleapis.com" });
    expect(identity.dependsOn).toEqual(["gcp:projects/service:Service::gke-test-apis-container"]);
    const binding = one(result, KMS_MEMBER);
    expect(at(binding, "member")).toBe(agent);
    expect(binding.dependencies).toContain(identity.key);
  });

  test("the key ring waits for the APIs only, not for GKE's agent; the cluster waits for both", async () => {
    const result = await renderCluster({});
    const identity = one(result, SERVICE_IDENTITY).key;
    // Made beside the agent rather than after it: the chain before the cluster is one step shorter.
    expect(one(result, KEY_RING).dependsOn).not.toContain(identity);
    expect(waitsFor(result, one(result, KEY_RING)).has(identity)).toBe(false);
    expect(one(result, CLUSTER).dependsOn).toContain(identity);
  });

  test("enableApis: false enables nothing, and the key's binding names GKE's agent from the project number", async () => {
    const result = await renderCluster({ cluster: { enableApis: false } });
    expect(ofType(result, SERVICE)).toEqual([]);
    expect(ofType(result, SERVICE_IDENTITY)).toEqual([]);
    expect(at(one(result, KMS_MEMBER), "member")).toBe(agent);
  });

  test("an existing cluster's project is not the platform's to change", () => {
    expect(
      plan({ cluster: { mode: "existing", existing: { name: "shared", location: "europe-west1" } } }).config
        .cluster.enableApis,
    ).toBe(false);
    expect(
      planProblems({
        cluster: {
          mode: "existing",
          existing: { name: "shared", location: "europe-west1" },
          enableApis: true,
        },
      }),
    ).toEqual([
      {
        path: "platform:cluster.enableApis",
        problem: "is set, but the platform does not manage an existing cluster, so it would have no effect",
        fix: 'remove platform:cluster.enableApis, or set platform:cluster.mode to "standard" to let the platform build the cluster',
      },
    ]);
  });
});
