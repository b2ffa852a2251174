import { find, renderPlatform } from "../helpers";
import { planProblems } from "./gke";

const shop = (expose: Record<string, unknown> = {}) => ({
  name: "shop",
  image: "europe-west1-docker.pkg.dev/acme-test/images/shop:1.0",
  port: 8080,
  expose: { host: "shop.example.com", ...expose },
});
const spec = (r: { inputs: Record<string, unknown> }) =>
  r.inputs.spec as Record<string, Record<string, unknown>>;

describe("Google's load balancers", () => {
  test("prod logs every request and every change of a backend's health", async () => {
    const result = await renderPlatform({ tier: "prod", apps: [shop()] });
    expect(spec(find(result, "GCPBackendPolicy", "shop", "shop")).default.logging).toEqual({
      enabled: true,
      sampleRate: 1_000_000,
    });
    expect(spec(find(result, "HealthCheckPolicy", "shop", "shop")).default.logConfig).toEqual({
      enabled: true,
    });
  });

  test("dev logs no requests unless asked, at the rate asked", async () => {
    const dev = await renderPlatform({ apps: [shop()] });
    expect(spec(find(dev, "GCPBackendPolicy", "shop", "shop")).default.logging).toEqual({ enabled: false });
    const sampled = await renderPlatform({
      apps: [shop()],
      ingress: { requestLogging: { enabled: true, sampleRate: 0.25 } },
    });
    expect(spec(find(sampled, "GCPBackendPolicy", "shop", "shop")).default.logging).toEqual({
      enabled: true,
      sampleRate: 250_000,
    });
  });

  test("a Cloud Armor policy sits in front of an exposure, on GKE Gateway and on GCE Ingress", async () => {
    const result = await renderPlatform({
      tier: "prod",
      apps: [shop({ via: ["gke-gateway", "gce-ingress"], securityPolicy: "shop-waf" })],
    });
    expect(spec(find(result, "GCPBackendPolicy", "shop", "shop")).default.securityPolicy).toBe("shop-waf");
    const backend = find(result, "BackendConfig", "shop", "shop").inputs.spec as Record<string, unknown>;
    expect(backend.securityPolicy).toEqual({ name: "shop-waf" });
    expect(backend.logging).toEqual({ enable: true, sampleRate: 1 });
  });

  test("logging and Cloud Armor where no Google load balancer is, or a rate with logging off, are refused", () => {
    const traefik = {
      ingress: { kind: "traefik", acme: { email: "ops@example.com" }, requestLogging: { enabled: true } },
      apps: [shop({ securityPolicy: "shop-waf" })],
    };
    expect(planProblems(traefik)).toEqual([
      {
        path: "platform:ingress.requestLogging",
        problem:
          'is set, but nothing is exposed through a Google load balancer (GKE Gateway or GCE Ingress); ingress.kind is "traefik"',
        fix: "remove platform:ingress.requestLogging (in-cluster controllers log requests themselves)",
      },
      {
        path: "platform:apps[0].expose.securityPolicy",
        problem:
          "is set, but shop is exposed through traefik; Cloud Armor sits in front of Google's load balancers only",
        allowed: 'expose.via including "gke-gateway" or "gce-ingress"',
        fix: "expose the app through gke-gateway, or remove platform:apps[0].expose.securityPolicy",
      },
    ]);
    expect(
      planProblems({ apps: [shop()], ingress: { requestLogging: { enabled: false, sampleRate: 0.5 } } }),
    ).toEqual([
      {
        path: "platform:ingress.requestLogging.sampleRate",
        problem: "is set, but request logging is off, so nothing is sampled",
        fix: "set platform:ingress.requestLogging.enabled to true, or remove the sampleRate",
      },
    ]);
    expect(planProblems({ ingress: { kind: "none", healthCheckLogging: false } })).toEqual([
      {
        path: "platform:ingress.healthCheckLogging",
        problem: "is set, but nothing is exposed through GKE Gateway, whose health checks it logs",
        fix: "remove platform:ingress.healthCheckLogging",
      },
    ]);
  });
});
