import { ConfigError, type EnvironmentInput } from "../../lib/config";
import { loadPlan, resolvePlan } from "../../lib/plan";
import { Platform } from "../../lib/platform";
import { configError, input, render } from "../helpers";

/**
 * One way from a config to a plan: a config written in code (`new Platform("p", { config })`,
 * `resolvePlan(config, stack)`) and a stack's config (`loadPlan`) are refused for the same problems in
 * the same words, one bad config for each family of rules in lib/config/rules/.
 */

const kmsKey = "projects/acme-sec/locations/europe-west1/keyRings/gke/cryptoKeys/secrets";
const app = (name: string, expose: Record<string, unknown> = { host: "shop.example.com" }) => ({
  name,
  image: "hello:2",
  port: 8080,
  expose,
});

/** One bad environment per rule family of lib/config/rules/, and the message it is refused with. */
const families: [family: string, overrides: Record<string, unknown>, message: string][] = [
  [
    "sizingRules",
    { sizing: { certManager: { cpu: "2", cpuLimit: "1" } } },
    [
      "Invalid environment config:",
      '  platform:sizing.certManager.cpu: cpu request "2" is above its limit "1"; the API server rejects such a pod',
      "    allowed: a cpu request at most the limit",
      "    fix: set platform:sizing.certManager.cpu at most platform:sizing.certManager.cpuLimit",
    ].join("\n"),
  ],
  [
    "autopilotRules",
    { cluster: { mode: "autopilot", nodeLocalDns: true } },
    [
      "Invalid environment config:",
      "  platform:cluster.nodeLocalDns: is set, but Autopilot manages nodes itself and ignores it",
      '    fix: remove platform:cluster.nodeLocalDns, or set platform:cluster.mode to "standard"',
    ].join("\n"),
  ],
  [
    "existingClusterRules",
    { cluster: { mode: "existing" } },
    [
      "Invalid environment config:",
      "  platform:cluster.existing: is missing: existing-cluster mode needs to know which cluster",
      "    allowed: { name, location } of a GKE cluster, or { kubeconfigPath, context? }",
      "    fix: set platform:cluster.existing.name and platform:cluster.existing.location",
    ].join("\n"),
  ],
  [
    "clusterRules",
    { cluster: { location: "us-central1" } },
    [
      "Invalid environment config:",
      '  platform:cluster.location: "us-central1" is outside gcp:region "europe-west1", where the network is built',
      "    allowed: europe-west1 or one of its zones",
      '    fix: set platform:cluster.location to "europe-west1", or change gcp:region',
    ].join("\n"),
  ],
  [
    "maintenanceRules",
    { cluster: { maintenance: { days: ["SA"], start: "02:00", hours: 6 } } },
    [
      "Invalid environment config:",
      "  platform:cluster.maintenance: gives 24h of maintenance in the worst 32 days (4 windows of 6h: some 32 days hold only four of each weekday); GKE rejects less than 48h",
      "    allowed: windows of at least 4h whose fewest occurrences in any 32 days add up to 48h or more",
      "    fix: add days or hours, e.g. days [SA, SU] with hours 6",
    ].join("\n"),
  ],
  [
    "controlPlaneAccessRules",
    { cluster: { dnsEndpoint: false, ipEndpoints: false } },
    [
      "Invalid environment config:",
      "  platform:cluster.dnsEndpoint: is false and cluster.ipEndpoints is false, so nothing, `pulumi up` included, could reach the control plane",
      "    fix: remove platform:cluster.dnsEndpoint (the DNS endpoint is authenticated by IAM), or set platform:cluster.ipEndpoints to true",
    ].join("\n"),
  ],
  [
    "secretsKeyRules",
    { cluster: { secretsEncryption: { enabled: false, key: kmsKey } } },
    [
      "Invalid environment config:",
      "  platform:cluster.secretsEncryption.key: is set, but secretsEncryption.enabled is false, so no key is used",
      "    fix: remove platform:cluster.secretsEncryption.key, or set platform:cluster.secretsEncryption.enabled to true",
    ].join("\n"),
  ],
  [
    "networkRules",
    { network: { podsCidr: "10.0.0.0/20", nodesCidr: "10.0.0.0/20" } },
    [
      "Invalid environment config:",
      '  platform:network.podsCidr: "10.0.0.0/20" overlaps network.nodesCidr "10.0.0.0/20"',
      "    fix: choose ranges that do not overlap",
    ].join("\n"),
  ],
  [
    "crdRules",
    { crds: { gatewayApiBundleFile: "standard-install.yaml" } },
    [
      "Invalid environment config:",
      "  platform:crds.gatewayApiBundleFile: is set, but the platform does not install the Gateway API here (GKE owns it, or it is pre-installed)",
      "    fix: remove platform:crds.gatewayApiBundleFile",
    ].join("\n"),
  ],
  [
    "ingressRules",
    { ingress: { kind: "gke-gateway" }, cluster: { gatewayApi: "disabled" } },
    [
      "Invalid environment config (2 problems):",
      '  platform:cluster.gatewayApi: is "disabled", but ingress.kind "gke-gateway" needs GKE\'s Gateway controller, which runs only with the Gateway API enabled',
      '    allowed: "standard" with GKE Gateway',
      '    fix: set platform:cluster.gatewayApi to "standard", or choose another ingress.kind',
      "  platform:crds.gatewayApiBundleFile: is missing: with GKE's Gateway API disabled, the platform installs the pinned upstream bundle from a local copy",
      '    fix: download standard-install.yaml of v1.5.1 (github.com/kubernetes-sigs/gateway-api/releases) and set platform:crds.gatewayApiBundleFile to its path, or set platform:crds.gatewayApi to "pre-installed"',
    ].join("\n"),
  ],
  [
    "loadBalancerRules",
    { ingress: { requestLogging: { sampleRate: 0.5 } } },
    [
      "Invalid environment config:",
      "  platform:ingress.requestLogging.sampleRate: is set, but request logging is off, so nothing is sampled",
      "    fix: set platform:ingress.requestLogging.enabled to true, or remove the sampleRate",
    ].join("\n"),
  ],
  [
    "appRules",
    {
      apps: [
        { name: "shop", image: "hello:2", port: 8080 },
        { name: "shop", image: "hello:3", port: 8080 },
      ],
    },
    [
      "Invalid environment config:",
      '  platform:apps[1].name: "shop" names two apps in namespace "shop"',
      "    fix: give each app its own name",
    ].join("\n"),
  ],
  [
    "exposureCollisions",
    { apps: [app("shop"), app("cart")] },
    [
      "Invalid environment config:",
      '  platform:apps[1].expose: exposes host "shop.example.com" and path "/" through gke-gateway, as app "shop" (platform:apps[0]) already does; one of the two routes would get no traffic',
      '    allowed: one app per host and path on each way in, such as path "/api" for one and "/" for the other',
      "    fix: give platform:apps[1].expose another path or host, or expose the two apps as one",
    ].join("\n"),
  ],
  [
    "exposureRules",
    { ingress: { kind: "none" }, apps: [app("shop")] },
    [
      "Invalid environment config:",
      '  platform:apps[0].expose: is set, but ingress.kind is "none" and expose.via is empty, so nothing would route to it',
      "    fix: choose an ingress.kind, set platform:apps[0].expose.via, or remove the app's expose",
    ].join("\n"),
  ],
];

/** The environment as `pulumi config` holds it: one `platform:*` key per section, as JSON where structured. */
function stackConfig(env: Record<string, unknown>): Record<string, string> {
  const { gcp, ...platform } = env as { gcp: { project: string; region: string } } & Record<string, unknown>;
  const values: Record<string, string> = { "gcp:project": gcp.project, "gcp:region": gcp.region };
  for (const [key, value] of Object.entries(platform))
    values[`platform:${key}`] = typeof value === "string" ? value : JSON.stringify(value);
  return values;
}

test.each(families)(
  "%s: Platform({ config }), resolvePlan and loadPlan refuse it alike",
  async (_f, overrides, message) => {
    // The environment as a program writes it in code (`EnvironmentInput`).
    const env = input(overrides) as EnvironmentInput;
    let viaPlatform: ConfigError | undefined;
    let viaLoadPlan: ConfigError | undefined;
    await render(() => {
      viaPlatform = configError(() => new Platform("platform", { config: env }));
      viaLoadPlan = configError(() => loadPlan(stackConfig(env)));
    });
    const viaResolvePlan = configError(() => resolvePlan(env, "test"));
    expect(viaResolvePlan.message).toBe(message);
    expect(viaPlatform?.message).toBe(message);
    // The same problems; the stack's file named where the config came from.
    expect(viaLoadPlan?.problems).toEqual(viaResolvePlan.problems);
    expect(viaLoadPlan?.message).toBe(
      message.replace("Invalid environment config", "Invalid environment config in Pulumi.test.yaml"),
    );
  },
);
