import { at, ofType, one } from "../helpers";
import { NODE_POOL, PROJECT_MEMBER, planProblems, renderCluster } from "./gke";

const REPOSITORY_MEMBER = "gcp:artifactregistry/repositoryIamMember:RepositoryIamMember";
const member = "serviceAccount:gke-test-nodes@acme-test.iam.gserviceaccount.com";

describe("the node service account", () => {
  test("GKE's node role (CIS GKE 5.2.1) and image pulls from the project's registries, in every tier", async () => {
    for (const tier of ["dev", "staging", "prod"]) {
      const result = await renderCluster({ tier });
      expect(ofType(result, PROJECT_MEMBER).map((m) => m.inputs)).toEqual([
        { project: "acme-test", role: "roles/container.defaultNodeServiceAccount", member },
        { project: "acme-test", role: "roles/artifactregistry.reader", member },
      ]);
    }
  });

  test("named repositories get read access each, and the project none", async () => {
    const result = await renderCluster({
      cluster: {
        imageRepositories: ["europe-west1/images", "projects/acme-shared/locations/europe/repositories/base"],
      },
    });
    expect(ofType(result, PROJECT_MEMBER).map((m) => at(m, "role"))).toEqual([
      "roles/container.defaultNodeServiceAccount",
    ]);
    expect(ofType(result, REPOSITORY_MEMBER).map((m) => m.inputs)).toEqual([
      {
        project: "acme-test",
        location: "europe-west1",
        repository: "images",
        role: "roles/artifactregistry.reader",
        member,
      },
      {
        project: "acme-shared",
        location: "europe",
        repository: "base",
        role: "roles/artifactregistry.reader",
        member,
      },
    ]);
    // Nodes start only once they can pull.
    expect(one(result, NODE_POOL).dependsOn).toEqual(
      expect.arrayContaining(ofType(result, REPOSITORY_MEMBER).map((m) => m.key)),
    );
  });

  test("an extra role already granted is granted once", async () => {
    const result = await renderCluster({
      cluster: {
        nodeServiceAccountRoles: ["roles/artifactregistry.reader", "roles/secretmanager.secretAccessor"],
      },
    });
    expect(ofType(result, PROJECT_MEMBER).map((m) => at(m, "role"))).toEqual([
      "roles/container.defaultNodeServiceAccount",
      "roles/artifactregistry.reader",
      "roles/secretmanager.secretAccessor",
    ]);
  });

  test("a repository that is not one is refused", () => {
    expect(planProblems({ cluster: { imageRepositories: ["images"] } })).toEqual([
      {
        path: "platform:cluster.imageRepositories[0]",
        problem: '"images" is not valid',
        allowed:
          "an Artifact Registry repository such as europe-west1/images or projects/acme-shared/locations/europe/repositories/images",
        fix: "set platform:cluster.imageRepositories[0] to an Artifact Registry repository such as europe-west1/images or projects/acme-shared/locations/europe/repositories/images",
      },
    ]);
  });
});
