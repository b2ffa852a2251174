import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { z } from "zod";
import { ConfigError, environmentFromConfig, environmentInputSchema } from "../../lib/config";
import { kindOf } from "../../lib/config/validate";
import { istioVersions } from "../../lib/versions";
import { parseEnvironment } from "../../lib/plan";
import { input } from "../helpers";

/**
 * Each bad input a new user met, with the whole message it now gets: the field, the value, what is
 * allowed with a concrete example, and the fix, in plain words. Accepted before, each failed at
 * deploy, or was silently ignored.
 */

function messageOf(parse: () => unknown): string {
  try {
    parse();
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error("expected a ConfigError");
}

const parse = (raw: Record<string, unknown>) => () => parseEnvironment(raw, "test", "Pulumi.test.yaml");
const flat = { "gcp:project": "acme-test", "gcp:region": "europe-west1", "platform:tier": "dev" };

describe("config the platform would not read is an error, not ignored", () => {
  test("a namespace one typo from platform: platfrom:monitoring", () => {
    expect(
      messageOf(() =>
        environmentFromConfig({ ...flat, "platfrom:monitoring": '{"backend":"prometheus"}' }, "books"),
      ),
    ).toBe(
      [
        "Invalid environment config:",
        '  platfrom:monitoring: is in namespace "platfrom", which nothing reads (did you mean "platform"?)',
        "    allowed: platform:<key>, with a key of tier, network, cluster, mesh, isolation, ingress, monitoring, crds, chartSource, teams, apps, sizing, overrides",
        "    fix: rename it to platform:monitoring",
      ].join("\n"),
    );
  });
  test("a platform key without platform:, which lands in the program's own namespace", () => {
    expect(
      messageOf(() =>
        environmentFromConfig({ ...flat, "books:mesh": '{"kind":"istio"}', "books:replicas": "3" }, "books"),
      ),
    ).toBe(
      [
        "Invalid environment config:",
        '  books:mesh: is in the program\'s own namespace "books", where the platform does not look; mesh is a platform key',
        "    allowed: platform:mesh",
        "    fix: rename it to platform:mesh (in a stack file, a key without a namespace belongs to the program)",
      ].join("\n"),
    );
  });
  test("the provider's region one typo from gcp:", () => {
    expect(
      messageOf(() =>
        environmentFromConfig({ "gpc:region": "europe-west1", "platform:tier": "dev" }, "books"),
      ),
    ).toBe(
      [
        "Invalid environment config:",
        '  gpc:region: is in namespace "gpc", which nothing reads (did you mean "gcp"?)',
        "    allowed: gcp:project and gcp:region, the Google provider's keys",
        "    fix: rename it to gcp:region",
      ].join("\n"),
    );
  });
});

describe("accepted before, failing at deploy: refused with the fix", () => {
  test("two apps on one host and path through one way in", () => {
    expect(
      messageOf(() =>
        parse(
          input({
            apps: [
              { name: "web", image: "web:1", port: 8080, expose: { host: "shop.example.com" } },
              { name: "shop", image: "shop:1", port: 8080, expose: { host: "shop.example.com", path: "/" } },
            ],
          }),
        )(),
      ),
    ).toBe(
      [
        "Invalid environment config in Pulumi.test.yaml:",
        '  platform:apps[1].expose: exposes host "shop.example.com" and path "/" through gke-gateway, as app "web" (platform:apps[0]) already does; one of the two routes would get no traffic',
        '    allowed: one app per host and path on each way in, such as path "/api" for one and "/" for the other',
        "    fix: give platform:apps[1].expose another path or host, or expose the two apps as one",
      ].join("\n"),
    );
  });
  test("a region that matches the pattern but does not exist", () => {
    expect(messageOf(() => parse({ tier: "dev", gcp: { project: "acme-test", region: "eu-west1" } })())).toBe(
      [
        "Invalid environment config in Pulumi.test.yaml:",
        '  gcp:region: "eu-west1" is not a GCP region (did you mean "europe-west1"?)',
        "    allowed: a GCP region such as europe-west1 (one of the 42 of cloud.google.com/compute/docs/regions-zones)",
        '    fix: set gcp:region to "europe-west1"',
      ].join("\n"),
    );
  });
  test("a zone the region does not have", () => {
    expect(messageOf(() => parse(input({ cluster: { location: "europe-west1-a" } }))())).toBe(
      [
        "Invalid environment config in Pulumi.test.yaml:",
        '  platform:cluster.location: "europe-west1-a" is not a zone of europe-west1 (did you mean "europe-west1-b"?)',
        "    allowed: europe-west1, or one of its zones: europe-west1-b, europe-west1-c, europe-west1-d",
        '    fix: set platform:cluster.location to "europe-west1-b"',
      ].join("\n"),
    );
  });
  test("a location in another region that starts with the region's name", () => {
    expect(messageOf(() => parse(input({ cluster: { location: "europe-west10-b" } }))())).toBe(
      [
        "Invalid environment config in Pulumi.test.yaml:",
        '  platform:cluster.location: "europe-west10-b" is outside gcp:region "europe-west1", where the network is built',
        "    allowed: europe-west1 or one of its zones",
        '    fix: set platform:cluster.location to "europe-west1", or change gcp:region',
      ].join("\n"),
    );
  });
  test("a misspelled machine type", () => {
    expect(
      messageOf(() =>
        parse(
          input({
            cluster: {
              nodePools: [{ name: "default", machineType: "e2-standrad-4", minNodes: 1, maxNodes: 3 }],
            },
          }),
        )(),
      ),
    ).toBe(
      [
        "Invalid environment config in Pulumi.test.yaml:",
        '  platform:cluster.nodePools[0].machineType: "e2-standrad-4" is not a Compute Engine machine type: e2 has no type "standrad" (did you mean "e2-standard-4"?)',
        "    allowed: e2-<type>-<vCPUs> with a type of standard, highcpu, highmem, micro, small, medium, custom, such as e2-standard-4",
        '    fix: set platform:cluster.nodePools[0].machineType to "e2-standard-4"',
      ].join("\n"),
    );
  });
  test("an image that is not an image reference", () => {
    expect(
      messageOf(() => parse(input({ apps: [{ name: "web", image: "NGINX latest", port: 8080 }] }))()),
    ).toBe(
      [
        "Invalid environment config in Pulumi.test.yaml:",
        '  platform:apps[0].image: "NGINX latest" is not an image reference: it contains a space (did you mean "nginx:latest"?)',
        "    allowed: an image reference [registry/]repository[:tag][@digest], the repository in lowercase, such as europe-docker.pkg.dev/acme/apps/shop:1.4.2",
        '    fix: set platform:apps[0].image to "nginx:latest"',
      ].join("\n"),
    );
  });
  test("a host whose DNS label is longer than 63 characters", () => {
    expect(
      messageOf(() =>
        parse(
          input({
            apps: [
              { name: "web", image: "web:1", port: 8080, expose: { host: `${"a".repeat(70)}.example.com` } },
            ],
          }),
        )(),
      ),
    ).toBe(
      [
        "Invalid environment config in Pulumi.test.yaml:",
        '  platform:apps[0].expose.host: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.examp... has a label of 70 characters, "aaaaaaaaaaaaaaaaaaaa..."; a DNS label (the text between two dots) has at most 63',
        "    allowed: a DNS host name of lowercase labels (letters, digits and '-') joined by dots, each label at most 63 characters, such as shop.example.com",
        "    fix: shorten that label of platform:apps[0].expose.host to at most 63 characters, e.g. shop.example.com",
      ].join("\n"),
    );
  });
});

describe("messages in plain words, each with a valid example", () => {
  test('an email address, not zod\'s "Invalid email address"', () => {
    expect(messageOf(() => parse(input({ ingress: { kind: "traefik", acme: { email: "ops" } } }))())).toBe(
      [
        "Invalid environment config in Pulumi.test.yaml:",
        '  platform:ingress.acme.email: "ops" is not an email address',
        "    allowed: an email address such as ops@example.com",
        "    fix: set platform:ingress.acme.email to an email address such as ops@example.com",
      ].join("\n"),
    );
  });
  test('a path, not zod\'s "Invalid string: must start with"', () => {
    expect(
      messageOf(() =>
        parse(input({ apps: [{ name: "web", image: "web:1", port: 8080, metrics: { path: "metrics" } }] }))(),
      ),
    ).toBe(
      [
        "Invalid environment config in Pulumi.test.yaml:",
        '  platform:apps[0].metrics.path: "metrics" is not a path starting with /',
        "    allowed: a path starting with /, such as /metrics",
        "    fix: set platform:apps[0].metrics.path to a path starting with /, such as /metrics",
      ].join("\n"),
    );
  });
  test('a list, not "a array"', () => {
    expect(messageOf(() => parse(input({ cluster: { authorizedNetworks: "10.0.0.0/8" } }))())).toBe(
      [
        "Invalid environment config in Pulumi.test.yaml:",
        '  platform:cluster.authorizedNetworks: "10.0.0.0/8" is a string, not a list',
        '    allowed: a list, such as [{name: "office", cidr: "10.0.0.0/20"}]',
        '    fix: set platform:cluster.authorizedNetworks to a list, such as [{name: "office", cidr: "10.0.0.0/20"}]',
      ].join("\n"),
    );
  });
  test('a whole number, not "a int", with its range', () => {
    expect(
      messageOf(() =>
        parse(
          input({
            cluster: {
              nodePools: [{ name: "default", machineType: "e2-standard-4", minNodes: 1, maxNodes: 2.5 }],
            },
          }),
        )(),
      ),
    ).toBe(
      [
        "Invalid environment config in Pulumi.test.yaml:",
        "  platform:cluster.nodePools[0].maxNodes: 2.5 is a number, not a whole number",
        "    allowed: a whole number from 1 to 1000, such as 3",
        "    fix: set platform:cluster.nodePools[0].maxNodes to a whole number from 1 to 1000, such as 3",
      ].join("\n"),
    );
  });
  test("an encrypted value the render could not decrypt is said to be one, not called invalid", () => {
    expect(
      messageOf(() => parse(input({ ingress: { kind: "traefik", acme: { email: "[secret]" } } }))()),
    ).toBe(
      [
        "Invalid environment config in Pulumi.test.yaml:",
        "  platform:ingress.acme.email: is encrypted (secure:), and this render could not decrypt it, so its value cannot be checked",
        "    allowed: an email address such as ops@example.com",
        "    fix: render with PULUMI_CONFIG_PASSPHRASE set to the stack's passphrase (passphrase secrets provider); with another secrets provider, pulumi preview checks it",
      ].join("\n"),
    );
  });
});

describe("what a field accepts, never 'a value of another type'", () => {
  test("an ACME issuer without its email: required, and what it takes", () => {
    expect(messageOf(parse(input({ ingress: { kind: "traefik", acme: {} } })))).toBe(
      [
        "Invalid environment config in Pulumi.test.yaml:",
        "  platform:ingress.acme.email: is required",
        "    allowed: an email address such as ops@example.com",
        "    fix: set platform:ingress.acme.email to an email address such as ops@example.com",
      ].join("\n"),
    );
  });

  test("an email given as a number", () => {
    expect(messageOf(parse(input({ ingress: { kind: "traefik", acme: { email: 3 } } })))).toBe(
      [
        "Invalid environment config in Pulumi.test.yaml:",
        "  platform:ingress.acme.email: 3 is a number, not an email address",
        "    allowed: an email address such as ops@example.com",
        "    fix: set platform:ingress.acme.email to an email address such as ops@example.com",
      ].join("\n"),
    );
  });

  test("every kind of field the schema holds has words for what it accepts", () => {
    const unnamed: string[] = [];
    const walk = (schema: z.core.$ZodType, at: string, depth: number): void => {
      const def = schema._zod.def as {
        type: string;
        innerType?: z.core.$ZodType;
        shape?: Record<string, z.core.$ZodType>;
        element?: z.core.$ZodType;
        valueType?: z.core.$ZodType;
      };
      const words = kindOf(schema);
      if (words === def.type || /another type/.test(words)) unnamed.push(`${at}: ${def.type}`);
      if (depth > 12) return;
      if (def.innerType) walk(def.innerType, at, depth + 1);
      for (const [k, v] of Object.entries(def.shape ?? {})) walk(v, `${at}.${k}`, depth + 1);
      if (def.element) walk(def.element, `${at}[]`, depth + 1);
      if (def.valueType) walk(def.valueType, `${at}{}`, depth + 1);
    };
    walk(environmentInputSchema, "platform", 0);
    expect(unnamed).toEqual([]);
  });
});

describe("a fix is a value, not the allowed text again", () => {
  const revision = (name: string) =>
    input({ mesh: { kind: "istio", istio: { revisions: [{ name, version: istioVersions[0] }] } } });

  test("a revision name with capitals and an underscore: the fix is the name made to fit", () => {
    expect(messageOf(parse(revision("B_1")))).toBe(
      [
        "Invalid environment config in Pulumi.test.yaml:",
        '  platform:mesh.istio.revisions[0].name: "B_1" is not valid',
        "    allowed: lowercase letters, digits and '-', such as 1-30-3 or stable, at most 56 characters; default is the istiod without a revision",
        '    fix: set platform:mesh.istio.revisions[0].name to "b-1"',
      ].join("\n"),
    );
  });

  test("a name nothing can make fit: the fix is the allowed text's example", () => {
    expect(messageOf(parse(revision("x".repeat(70))))).toContain(
      '    fix: set platform:mesh.istio.revisions[0].name to a value such as "1-30-3"',
    );
  });
});

describe("kubeconfigPath: read as kubectl reads it, and named with its stack file", () => {
  const existing = (kubeconfigPath: string) =>
    input({ cluster: { mode: "existing", existing: { kubeconfigPath } } });
  let home: string;
  const savedHome = process.env.HOME;
  beforeAll(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), "kubeconfig-"));
    fs.mkdirSync(path.join(home, ".kube"));
    fs.writeFileSync(path.join(home, ".kube", "config"), "apiVersion: v1\nkind: Config\n");
    process.env.HOME = home;
  });
  afterAll(() => {
    process.env.HOME = savedHome;
    fs.rmSync(home, { recursive: true, force: true });
  });

  test("~/ is the home folder", () => {
    expect(parseEnvironment(existing("~/.kube/config"), "test").cluster.existing?.kubeconfigPath).toBe(
      path.join(home, ".kube", "config"),
    );
  });

  test("a file that is not there is a config error naming the stack file, the path as read, and the fix", () => {
    expect(messageOf(parse(existing("~/.kube/other")))).toBe(
      [
        "Invalid environment config in Pulumi.test.yaml:",
        `  platform:cluster.existing.kubeconfigPath: "~/.kube/other" does not exist (read as ${path.join(home, ".kube", "other")})`,
        "    allowed: the path of a kubeconfig file: absolute, relative to the program's folder, or under ~/, such as ~/.kube/config",
        "    fix: set platform:cluster.existing.kubeconfigPath to the kubeconfig file of the cluster, such as the one `gcloud container clusters get-credentials` or `kind export kubeconfig` writes (~/.kube/config)",
      ].join("\n"),
    );
  });

  test("a folder is not a kubeconfig file", () => {
    expect(messageOf(parse(existing(home)))).toContain(
      `  platform:cluster.existing.kubeconfigPath: ${JSON.stringify(home)} is a folder, not a file\n`,
    );
  });
});
