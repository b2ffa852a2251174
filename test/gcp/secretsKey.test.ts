import { autoName } from "../../lib/render";
import { at, ofType, one } from "../helpers";
import { CLUSTER, CRYPTO_KEY, KEY_RING, KMS_MEMBER, planProblems, renderCluster } from "./gke";

const adopted = "projects/acme-security/locations/europe-west1/keyRings/gke/cryptoKeys/secrets";

describe("the secrets encryption key", () => {
  test("its key ring takes a random suffix Pulumi keeps, so a destroy then up never collides", async () => {
    const result = await renderCluster({ tier: "dev" });
    const ring = one(result, KEY_RING);
    expect(ring.inputs).toEqual({ project: "acme-test", location: "europe-west1" });
    expect(ring.options).toMatchObject({ retainOnDelete: true, ignoreChanges: ["name"] });
    const key = one(result, CRYPTO_KEY);
    expect(at(key, "keyRing")).toBe(
      `projects/acme-test/locations/europe-west1/keyRings/${autoName("gke-test-secrets-ring")}`,
    );
    // A destroy forgets the key: deleting it would destroy its versions and every Secret with them.
    expect(key.options).toMatchObject({ retainOnDelete: true, protect: false });
  });

  test("prod protects the key", async () => {
    expect(one(await renderCluster({ tier: "prod" }), CRYPTO_KEY).options.protect).toBe(true);
  });

  test("an existing key is adopted: nothing is created, GKE's agent is granted access to it", async () => {
    const result = await renderCluster({ cluster: { secretsEncryption: { key: adopted } } });
    expect(ofType(result, KEY_RING)).toEqual([]);
    expect(ofType(result, CRYPTO_KEY)).toEqual([]);
    expect(at(one(result, KMS_MEMBER), "cryptoKeyId")).toBe(adopted);
    expect(at(one(result, CLUSTER), "databaseEncryption")).toEqual({ state: "ENCRYPTED", keyName: adopted });
    expect(one(result, CLUSTER).dependsOn).toContain(one(result, KMS_MEMBER).key);
  });

  test("an adopted key outside the cluster's region is refused", () => {
    const key = "projects/acme-security/locations/us-east1/keyRings/gke/cryptoKeys/secrets";
    expect(planProblems({ cluster: { secretsEncryption: { key } } })).toEqual([
      {
        path: "platform:cluster.secretsEncryption.key",
        problem: `"${key}" is in "us-east1", but GKE uses a key only in the cluster's region "europe-west1"`,
        allowed: "a key under projects/<project>/locations/europe-west1/",
        fix: "name a key in europe-west1, or remove platform:cluster.secretsEncryption.key to let the platform create one",
      },
    ]);
  });

  test("an adopted key takes no rotation period and needs encryption on", () => {
    expect(planProblems({ cluster: { secretsEncryption: { key: adopted, rotationDays: 30 } } })).toEqual([
      {
        path: "platform:cluster.secretsEncryption.rotationDays",
        problem:
          "is set, but secretsEncryption.key names a key the platform does not manage; its rotation is set where the key is managed",
        fix: "remove platform:cluster.secretsEncryption.rotationDays",
      },
    ]);
    expect(planProblems({ cluster: { secretsEncryption: { key: adopted, enabled: false } } })).toEqual([
      {
        path: "platform:cluster.secretsEncryption.key",
        problem: "is set, but secretsEncryption.enabled is false, so no key is used",
        fix: "remove platform:cluster.secretsEncryption.key, or set platform:cluster.secretsEncryption.enabled to true",
      },
    ]);
  });

  test("a key id that is not one is refused by the schema", () => {
    expect(planProblems({ cluster: { secretsEncryption: { key: "gke-secrets" } } })).toEqual([
      {
        path: "platform:cluster.secretsEncryption.key",
        problem: '"gke-secrets" is not a Cloud KMS key id',
        allowed:
          "a Cloud KMS key id such as projects/acme-sec/locations/europe-west1/keyRings/gke/cryptoKeys/secrets",
        fix: "set platform:cluster.secretsEncryption.key to a Cloud KMS key id such as projects/acme-sec/locations/europe-west1/keyRings/gke/cryptoKeys/secrets",
      },
    ]);
  });
});
