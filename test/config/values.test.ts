import { gcpLocationProblem, gcpRegionProblem, machineTypeProblem } from "../../lib/config/gcpValues";
import { hostNameProblem, imageReferenceProblem, type ValueProblem } from "../../lib/config/valueChecks";
import { gcpRegions } from "../../lib/versions";

/** The suggestion in a problem, `did you mean "x"?`, or undefined. */
const suggestionOf = (p: ValueProblem | undefined) => /did you mean "([^"]+)"/.exec(p?.problem ?? "")?.[1];

describe("GCP regions and zones: the pinned list, with the nearest name", () => {
  test.each(["europe-west1", "us-central1", "africa-south1", "europe-west12", "northamerica-south1"])(
    "%s is a region",
    (region) => expect(gcpRegionProblem(region)).toBeUndefined(),
  );

  test.each([
    ["eu-west1", "europe-west1"],
    ["eu-west-1", "europe-west1"],
    ["Europe-West1", "europe-west1"],
    ["us-centrall1", "us-central1"],
    ["asia-northeast-1", "asia-northeast1"],
  ])("%s is not a region; did you mean %s", (typo, region) => {
    expect(suggestionOf(gcpRegionProblem(typo))).toBe(region);
  });

  test("a zone where a region is wanted says so, and the fix names the region", () => {
    const p = gcpRegionProblem("europe-west1-b");
    expect(p?.problem).toBe('"europe-west1-b" is a zone, not a region');
    expect(p?.fix("gcp:region")).toBe('set gcp:region to "europe-west1"');
  });

  test("a name far from every region gets no guess, and the fix sends to the list", () => {
    const p = gcpRegionProblem("mars-north1");
    expect(suggestionOf(p)).toBeUndefined();
    expect(p?.fix("gcp:region")).toBe(
      "set gcp:region to a region of cloud.google.com/compute/docs/regions-zones, such as europe-west1",
    );
  });

  test("every zone of every pinned region is a location, and so is the region", () => {
    for (const [region, zones] of Object.entries(gcpRegions)) {
      expect(gcpLocationProblem(region)).toBeUndefined();
      for (const z of zones) expect(gcpLocationProblem(`${region}-${z}`)).toBeUndefined();
    }
  });

  test.each([
    ["us-east1-a", "us-east1-b"],
    ["us-central1-f", undefined],
    ["eu-west1-c", "europe-west1-c"],
    ["europe-west1-e", "europe-west1-b"],
  ])("location %s: did you mean %s", (location, suggestion) => {
    const p = gcpLocationProblem(location);
    if (suggestion === undefined) expect(p).toBeUndefined();
    else expect(suggestionOf(p)).toBe(suggestion);
  });
});

describe("machine types: a known family and type, with the nearest", () => {
  test.each([
    "e2-standard-4",
    "e2-micro",
    "e2-custom-4-8192",
    "n2-highmem-8",
    "n2-custom-4-16384-ext",
    "custom-4-16384",
    "c3-standard-4-lssd",
    "c4-standard-288-metal",
    "a2-highgpu-1g",
    "a3-megagpu-8g",
    "g2-standard-4",
    "ct5lp-hightpu-4t",
    "t2a-standard-8",
    "f1-micro",
  ])("%s is a machine type", (type) => expect(machineTypeProblem(type)).toBeUndefined());

  test.each([
    ["e2-standrad-4", "e2-standard-4"],
    ["n2-hihgmem-8", "n2-highmem-8"],
    ["e3-standard-4", "e2-standard-4"],
    ["n2d-standart-2", "n2d-standard-2"],
  ])("%s: did you mean %s", (typo, type) => {
    expect(suggestionOf(machineTypeProblem(typo))).toBe(type);
  });

  test("a family that does not offer a type is named", () => {
    expect(machineTypeProblem("c2-highmem-8")?.problem).toBe(
      '"c2-highmem-8" is not a Compute Engine machine type: c2 has no type "highmem"',
    );
  });

  test.each(["standard-4", "E2-standard-4", "e2_standard_4", ""])("%j is refused", (type) => {
    expect(machineTypeProblem(type)).toBeDefined();
  });
});

describe("image references: the OCI reference grammar", () => {
  const digest = `sha256:${"a".repeat(64)}`;
  test.each([
    "nginx",
    "nginx:1.27",
    "library/nginx:latest",
    "ghcr.io/acme/api:1.4",
    "localhost:5000/app",
    "registry.example.com:443/team/app:v1.2.3-rc.1",
    `europe-docker.pkg.dev/acme/apps/shop@${digest}`,
    `europe-docker.pkg.dev/acme/apps/shop:1.4.2@${digest}`,
    "a__b/c-d.e:f_g",
    "[::1]:5000/app:1",
  ])("%s is an image reference", (image) => expect(imageReferenceProblem(image)).toBeUndefined());

  test.each([
    ["NGINX latest", "it contains a space", "nginx:latest"],
    ["Nginx", "the repository has capital letters", "nginx"],
    [
      "nginx:",
      "the tag after ':' has letters, digits, '_', '.' and '-' only, at most 128 characters",
      undefined,
    ],
    [
      "nginx@sha256:abc",
      "the digest after '@' is not an algorithm and hex digits, such as sha256:<64 hex digits>",
      undefined,
    ],
    [
      "acme//app",
      "the repository has lowercase letters, digits and single '.', '_' or '-' between them, in parts separated by '/'",
      undefined,
    ],
    ["", "it is empty", undefined],
  ])("%j: %s", (image, reason, suggestion) => {
    const p = imageReferenceProblem(image);
    expect(p?.problem).toBe(
      `${JSON.stringify(image)} is not an image reference: ${reason}` +
        (suggestion ? ` (did you mean "${suggestion}"?)` : ""),
    );
  });

  test("a repository longer than 255 characters is refused", () => {
    expect(imageReferenceProblem(`${"a".repeat(256)}:1`)?.problem).toContain("longer than 255 characters");
  });
});

describe("host names: DNS label and name lengths", () => {
  test.each(["shop.example.com", "*.example.org", `${"a".repeat(63)}.example.com`])("%s is a host", (host) =>
    expect(hostNameProblem(host)).toBeUndefined(),
  );

  test("a label of 64 characters, and a name of 254, are refused", () => {
    expect(hostNameProblem(`${"a".repeat(64)}.example.com`)?.problem).toContain("a label of 64 characters");
    const long = `${Array.from({ length: 4 }, () => "a".repeat(62)).join(".")}.example`;
    expect(long.length).toBeGreaterThan(253);
    expect(hostNameProblem(long)?.problem).toContain(
      `is ${long.length} characters long; a DNS name has at most 253`,
    );
  });

  test("capitals get the lowercase name as the suggestion; a single label none", () => {
    expect(suggestionOf(hostNameProblem("Shop.Example.com"))).toBe("shop.example.com");
    expect(hostNameProblem("shop")?.problem).toBe('"shop" is not a DNS host name');
  });
});
