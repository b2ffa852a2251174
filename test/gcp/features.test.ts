import { at, ofType, one } from "../helpers";
import { CLUSTER, SERVICE, renderCluster } from "./gke";

describe("cost allocation, security posture and Binary Authorization", () => {
  test("every tier: costs per namespace and label, configuration auditing, retired scanning off", async () => {
    for (const tier of ["dev", "staging", "prod"]) {
      const cluster = one(await renderCluster({ tier }), CLUSTER);
      expect(at(cluster, "costManagementConfig")).toEqual({ enabled: true });
      expect(at(cluster, "securityPostureConfig")).toEqual({
        mode: "BASIC",
        vulnerabilityMode: "VULNERABILITY_DISABLED",
      });
    }
  });

  test("Binary Authorization enforces the project's policy in staging and prod, not in dev", async () => {
    const mode = async (tier: string) =>
      at(one(await renderCluster({ tier }), CLUSTER), "binaryAuthorization", "evaluationMode");
    expect(await mode("dev")).toBe("DISABLED");
    expect(await mode("staging")).toBe("PROJECT_SINGLETON_POLICY_ENFORCE");
    expect(await mode("prod")).toBe("PROJECT_SINGLETON_POLICY_ENFORCE");
    const prod = await renderCluster({ tier: "prod" });
    expect(ofType(prod, SERVICE).map((s) => at(s, "service"))).toContain(
      "binaryauthorization.googleapis.com",
    );
  });

  test("each is a typed option", async () => {
    const cluster = one(
      await renderCluster({
        tier: "prod",
        cluster: { costAllocation: false, securityPosture: "disabled", binaryAuthorization: "disabled" },
      }),
      CLUSTER,
    );
    expect(cluster.inputs).toMatchObject({
      costManagementConfig: { enabled: false },
      securityPostureConfig: { mode: "DISABLED" },
      binaryAuthorization: { evaluationMode: "DISABLED" },
    });
  });

  test("Autopilot gets the same", async () => {
    const cluster = one(await renderCluster({ tier: "prod", cluster: { mode: "autopilot" } }), CLUSTER);
    expect(cluster.inputs).toMatchObject({
      costManagementConfig: { enabled: true },
      securityPostureConfig: { mode: "BASIC" },
      binaryAuthorization: { evaluationMode: "PROJECT_SINGLETON_POLICY_ENFORCE" },
    });
  });
});

describe("Google Groups for RBAC", () => {
  const securityGroup = "gke-security-groups@example.com";

  test("the cluster's security group exactly when set, on Standard and Autopilot", async () => {
    for (const mode of ["standard", "autopilot"]) {
      const location = "europe-west1";
      const set = one(
        await renderCluster({ tier: "prod", cluster: { mode, location, googleGroups: { securityGroup } } }),
        CLUSTER,
      );
      expect(at(set, "authenticatorGroupsConfig")).toEqual({ securityGroup });
      const unset = one(await renderCluster({ tier: "prod", cluster: { mode, location } }), CLUSTER);
      expect("authenticatorGroupsConfig" in unset.inputs).toBe(false);
    }
  });
});
