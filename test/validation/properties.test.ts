import fc from "fast-check";
import { ConfigError } from "../../lib/config";
import { parseEnvironment, planFor } from "../../lib/plan";
import { Platform } from "../../lib/platform";
import { kubernetesObjects } from "../../lib/render";
import { checkInvariants } from "../../lib/safety";
import { viewsOf } from "../../lib/render";
import { input, render } from "../helpers";
import { validateObjects, type KubeObjectLike } from "./schemas";

/**
 * Over the config space: every generated environment either renders objects that validate and keep
 * every invariant, or fails with a ConfigError whose every problem names a config field. Never a
 * crash, never a stack trace.
 */

const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
/** Mostly valid values, sometimes not: a good share of configs must get past parsing. */
const mostly = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<unknown>) =>
  fc.oneof({ arbitrary: good, weight: 9 }, { arbitrary: bad, weight: 1 });

/** Mostly absent: for options that are refused in most combinations. */
const rarely = <T>(a: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: fc.constant(undefined), weight: 8 }, { arbitrary: a, weight: 1 });

const name = mostly(
  fc.constantFrom("shop", "api", "web-2"),
  fc.constantFrom("Shop", "-x", "a".repeat(70), ""),
);
// Several hosts, so that apps of one environment mostly differ: two on one host and path are refused.
const host = mostly(
  fc.constantFrom(
    "shop.example.com",
    "*.example.org",
    "api.example.com",
    "web.example.net",
    "books.example.io",
  ),
  fc.constantFrom("shop", "Shop.Example.com"),
);

const app = fc.record(
  {
    name,
    namespace: maybe(name),
    image: fc.constantFrom("hello:2", "ghcr.io/acme/api:1.4"),
    port: mostly(fc.integer({ min: 1, max: 65535 }), fc.constantFrom(0, 70000, "80")),
    replicas: maybe(fc.integer({ min: 1, max: 5 })),
    metrics: maybe(fc.record({ path: mostly(fc.constant("/metrics"), fc.constant("metrics")) })),
    expose: maybe(
      fc.record(
        {
          host,
          path: maybe(fc.constantFrom("/", "/shop", "/api")),
          via: rarely(
            fc.uniqueArray(fc.constantFrom("gke-gateway", "traefik", "ingress-nginx", "gce-ingress"), {
              minLength: 1,
              maxLength: 2,
            }),
          ),
          timeoutSeconds: maybe(fc.integer({ min: 1, max: 600 })),
          stripPrefix: maybe(fc.boolean()),
          methods: rarely(fc.constant(["GET", "POST"])),
        },
        { requiredKeys: ["host"] },
      ),
    ),
  },
  { requiredKeys: ["name", "image", "port"] },
);

const environment = fc.record(
  {
    tier: mostly(fc.constantFrom("dev", "staging", "prod"), fc.constant("production")),
    cluster: maybe(
      fc.oneof(
        { arbitrary: fc.record({ mode: fc.constantFrom("standard", "autopilot") }), weight: 12 },
        {
          arbitrary: fc.constant({
            mode: "existing",
            existing: { name: "shared", location: "europe-west1" },
          }),
          weight: 6,
        },
        { arbitrary: fc.record({ mode: fc.constant("autopliot") }), weight: 1 },
      ),
    ),
    mesh: maybe(
      fc.oneof(
        fc.constant({ kind: "none" }),
        fc.record(
          {
            kind: fc.constant("linkerd"),
            cni: maybe(fc.boolean()),
            nativeSidecars: maybe(fc.boolean()),
            highAvailability: maybe(fc.boolean()),
            dashboard: maybe(fc.boolean()),
          },
          { requiredKeys: ["kind"] },
        ),
        fc.record(
          {
            kind: fc.constant("istio"),
            cni: maybe(fc.boolean()),
            dataplane: maybe(fc.constantFrom("sidecar", "ambient")),
            nativeSidecars: maybe(fc.boolean()),
            highAvailability: maybe(fc.boolean()),
            // Linkerd's option on Istio: refused, naming the field.
            dashboard: rarely(fc.constant(true)),
          },
          { requiredKeys: ["kind"] },
        ),
      ),
    ),
    // Traefik and ingress-nginx take certificates from ACME, the Google load balancers do not: mostly the
    // fitting pairs, sometimes not (a missing or stray acme), sometimes a misspelled kind.
    ingress: maybe(
      fc.oneof(
        {
          arbitrary: fc.record(
            { kind: fc.constantFrom("gke-gateway", "gce-ingress"), staticIp: maybe(fc.boolean()) },
            { requiredKeys: ["kind"] },
          ),
          weight: 8,
        },
        {
          arbitrary: fc.record(
            {
              kind: fc.constantFrom("traefik", "ingress-nginx"),
              acme: fc.record({
                email: mostly(fc.constant("ops@example.com"), fc.constant("ops")),
                solver: fc.constantFrom("http01", "dns01"),
              }),
              staticIp: maybe(fc.boolean()),
            },
            { requiredKeys: ["kind"] },
          ),
          weight: 8,
        },
        { arbitrary: fc.record({ kind: fc.constant("nginx") }), weight: 1 },
        {
          arbitrary: fc.record({
            kind: fc.constant("gke-gateway"),
            acme: fc.constant({ email: "ops@example.com" }),
          }),
          weight: 1,
        },
      ),
    ),
    monitoring: maybe(
      fc.record(
        { backend: fc.constantFrom("prometheus", "managed-prometheus", "existing-prometheus", "none") },
        { requiredKeys: ["backend"] },
      ),
    ),
    apps: maybe(fc.array(app, { maxLength: 3 })),
    // A stray key, as a typo would leave one.
    // Rarely, a typo in an override: a misspelled key, or a value the chart lacks.
    overrides: rarely(
      fc.constantFrom({ chart: {} }, { charts: { "cert-manager": { values: { replicaCuont: 2 } } } }),
    ),
  },
  { requiredKeys: ["tier"] },
);

/** A ConfigError every problem of which names a Pulumi config field, with a fix. */
function isFieldError(err: unknown): boolean {
  return (
    err instanceof ConfigError &&
    err.problems.length > 0 &&
    err.problems.every((p) => /^(platform|gcp):[A-Za-z]/.test(p.path) && p.fix.length > 0)
  );
}

test("every generated environment renders valid objects, or fails with a config error naming a field", async () => {
  let rendered = 0;
  let refused = 0;
  await fc.assert(
    fc.asyncProperty(environment, async (env) => {
      let config;
      try {
        config = parseEnvironment(input(JSON.parse(JSON.stringify(env)) as Record<string, unknown>), "prop");
      } catch (err) {
        refused++;
        return isFieldError(err);
      }
      let result;
      try {
        const c = config;
        result = await render(() => new Platform("p", { plan: planFor(c) }).outputs());
      } catch (err) {
        refused++;
        return isFieldError(err);
      }
      rendered++;
      const problems = await validateObjects(
        kubernetesObjects(result).map((o) => o.inputs as KubeObjectLike),
      );
      expect(Object.fromEntries(problems)).toEqual({});
      expect(checkInvariants(viewsOf(result))).toEqual([]);
      return true;
    }),
    { numRuns: 60 },
  );
  // The generator reaches both sides: configs that render, and configs that are refused.
  expect(rendered).toBeGreaterThan(5);
  expect(refused).toBeGreaterThan(5);
}, 240_000);
