import { ConfigError, configWarnings, environmentFromConfig, nearest } from "../../lib/config";
import { parseEnvironment } from "../../lib/plan";
import { config, input, problems } from "../helpers";

function messageOf(raw: Record<string, unknown>): string {
  try {
    parseEnvironment(raw, "test", "Pulumi.test.yaml");
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error("expected a ConfigError");
}

describe("typos fail with the nearest valid key or value", () => {
  test("a misspelled enum value names the field, the value, what is allowed and the fix", () => {
    const message = messageOf(input({ mesh: { kind: "linkred" } }));
    expect(message).toBe(
      [
        "Invalid environment config in Pulumi.test.yaml:",
        '  platform:mesh.kind: "linkred" is not allowed (did you mean "linkerd"?)',
        '    allowed: "linkerd", "istio", "none"',
        '    fix: set platform:mesh.kind to "linkerd"',
      ].join("\n"),
    );
  });

  test("a misspelled top-level key is rejected and the nearest key suggested", () => {
    const [p, ...rest] = problems(input({ ingres: { kind: "traefik" } }));
    expect(rest).toEqual([]);
    expect(p.path).toBe("platform:ingres");
    expect(p.problem).toBe('unknown key "ingres" (did you mean "ingress"?)');
    expect(p.fix).toBe("rename it to platform:ingress");
  });

  test("a misspelled nested key is rejected too", () => {
    const [p] = problems(input({ cluster: { privateNode: true } }));
    expect(p.path).toBe("platform:cluster.privateNode");
    expect(p.fix).toBe("rename it to platform:cluster.privateNodes");
  });

  test("an unknown key with no near match is to be removed", () => {
    const [p] = problems(input({ cluster: { colour: "blue" } }));
    expect(p.fix).toBe("remove platform:cluster.colour");
  });

  test("a wrong type names the expected type", () => {
    const [p] = problems(
      input({
        cluster: { nodePools: [{ name: "a", machineType: "e2-standard-4", minNodes: "3", maxNodes: 5 }] },
      }),
    );
    expect(p.path).toBe("platform:cluster.nodePools[0].minNodes");
    expect(p.problem).toBe('"3" is a string, not a whole number');
  });

  test("every problem is reported at once, gcp keys under the provider's namespace", () => {
    const found = problems({ tier: "qa", gcp: { project: "X", region: 3 } });
    expect(found.map((p) => p.path)).toEqual(["platform:tier", "gcp:project", "gcp:region"]);
  });

  test("a bad map key says to rename the key", () => {
    const [p] = problems(input({ cluster: { labels: { Team: "payments" } } }));
    expect(p.path).toBe("platform:cluster.labels.Team");
    expect(p.fix).toMatch(/^rename the key to a GCP label key/);
  });

  test("missing required fields are named", () => {
    expect(problems({ gcp: { project: "acme-test", region: "europe-west1" } })[0]).toMatchObject({
      path: "platform:tier",
      problem: "is required",
    });
  });

  test("nearest() catches swaps and drops but not unrelated words", () => {
    expect(nearest("linkred", ["linkerd", "istio", "none"])).toBe("linkerd");
    expect(nearest("isito", ["linkerd", "istio", "none"])).toBe("istio");
    expect(nearest("consul", ["linkerd", "istio", "none"])).toBeUndefined();
  });
});

describe("tier defaults", () => {
  test("dev is zonal, spot, unprotected, without backups", () => {
    const c = config({ tier: "dev" }).cluster;
    expect(c.location).toBe("europe-west1-b");
    expect(c.regional).toBe(false);
    expect(c.nodePools).toEqual([expect.objectContaining({ spot: true, machineType: "e2-standard-4" })]);
    expect([c.deletionProtection, c.protect, c.backupAgent]).toEqual([false, false, false]);
    expect(c.maintenance).toBeNull();
  });

  test("staging is regional like prod, with backups, smaller and unprotected", () => {
    const c = config({ tier: "staging" }).cluster;
    expect(c.location).toBe("europe-west1");
    expect(c.backupAgent).toBe(true);
    expect([c.deletionProtection, c.protect]).toEqual([false, false]);
    expect(c.nodePools[0]).toMatchObject({ spot: false, machineType: "e2-standard-4" });
  });

  test("prod is regional, protected, backed up, on STABLE with a weekend window", () => {
    const c = config({ tier: "prod" }).cluster;
    expect(c.regional).toBe(true);
    expect([c.deletionProtection, c.protect, c.backupAgent]).toEqual([true, true, true]);
    expect(c.releaseChannel).toBe("STABLE");
    expect(c.maintenance).toEqual({ days: ["SA", "SU"], start: "02:00", hours: 6, exclusions: [] });
  });

  test("every tier: Gateway API standard channel, private nodes, secrets encryption", () => {
    for (const tier of ["dev", "staging", "prod"]) {
      const c = config({ tier }).cluster;
      expect(c.gatewayApi).toBe("standard");
      expect(c.privateNodes).toBe(true);
      expect(c.secretsEncryption).toEqual({ enabled: true, rotationDays: 90 });
    }
  });

  test("explicit values win over tier defaults", () => {
    const c = config({ tier: "prod", cluster: { protect: false, maintenance: null } }).cluster;
    expect(c.protect).toBe(false);
    expect(c.maintenance).toBeNull();
  });

  test("Autopilot is always regional and gets NET_ADMIN for a sidecar mesh without CNI", () => {
    const c = config({ cluster: { mode: "autopilot" }, mesh: { kind: "linkerd" } }).cluster;
    expect(c.location).toBe("europe-west1");
    expect(c.autopilot.allowNetAdmin).toBe(true);
    expect(
      config({ cluster: { mode: "autopilot" }, mesh: { kind: "none" } }).cluster.autopilot.allowNetAdmin,
    ).toBe(false);
  });

  test("Dataplane V2 is on with every mesh", () => {
    expect(config({ mesh: { kind: "linkerd" } }).cluster.dataplaneV2).toBe(true);
    expect(config({ mesh: { kind: "istio" } }).cluster.dataplaneV2).toBe(true);
    expect(config({ cluster: { mode: "autopilot" }, mesh: { kind: "linkerd" } }).cluster.dataplaneV2).toBe(
      true,
    );
  });

  test("Istio ambient implies istio-cni", () => {
    expect(config({ mesh: { kind: "istio", dataplane: "ambient" } }).mesh.cni).toBe(true);
  });
});

describe("cross-field rules", () => {
  const pathsOf = (raw: Record<string, unknown>): string[] => problems(raw).map((p) => p.path);

  test("Autopilot rejects a zonal location, linkerd-cni, ambient and denied NET_ADMIN", () => {
    expect(pathsOf(input({ cluster: { mode: "autopilot", location: "europe-west1-b" } }))).toEqual([
      "platform:cluster.location",
    ]);
    const cni = problems(input({ cluster: { mode: "autopilot" }, mesh: { kind: "linkerd", cni: true } }));
    expect(cni).toEqual([
      expect.objectContaining({
        path: "platform:mesh.cni",
        problem: "is true, but Autopilot does not admit linkerd-cni: it writes to the node's CNI config",
      }),
    ]);
    const ambient = problems(
      input({ cluster: { mode: "autopilot" }, mesh: { kind: "istio", dataplane: "ambient" } }),
    );
    expect(ambient[0].path).toBe("platform:mesh.dataplane");
    expect(ambient[0].fix).toContain('platform:mesh.dataplane to "sidecar"');
    expect(
      pathsOf(
        input({
          cluster: { mode: "autopilot", autopilot: { allowNetAdmin: false } },
          mesh: { kind: "istio" },
        }),
      ),
    ).toEqual(["platform:cluster.autopilot.allowNetAdmin"]);
  });

  test("Autopilot rejects node settings it manages itself", () => {
    expect(
      pathsOf(
        input({
          cluster: {
            mode: "autopilot",
            nodeLocalDns: true,
            nodePools: [{ name: "x", machineType: "e2-standard-4", minNodes: 1, maxNodes: 2 }],
          },
        }),
      ),
    ).toEqual(["platform:cluster.nodePools", "platform:cluster.nodeLocalDns"]);
  });

  test("autopilot settings on a Standard cluster are rejected, not ignored", () => {
    expect(pathsOf(input({ cluster: { autopilot: { allowNetAdmin: true } } }))).toEqual([
      "platform:cluster.autopilot",
    ]);
  });

  test("existing-cluster mode needs a cluster and rejects settings it cannot apply", () => {
    expect(pathsOf(input({ cluster: { mode: "existing" } }))).toEqual(["platform:cluster.existing"]);
    expect(pathsOf(input({ cluster: { mode: "existing", existing: { name: "shared" } } }))).toEqual([
      "platform:cluster.existing.location",
    ]);
    expect(
      pathsOf(
        input({
          cluster: {
            mode: "existing",
            existing: { name: "shared", location: "europe-west1" },
            privateNodes: false,
          },
          network: { nodesCidr: "10.0.0.0/20" },
        }),
      ),
    ).toEqual(["platform:cluster.privateNodes", "platform:network"]);
  });

  test("GKE Gateway needs the Gateway API on", () => {
    const [p] = problems(input({ cluster: { gatewayApi: "disabled" }, ingress: { kind: "gke-gateway" } }));
    expect(p.path).toBe("platform:cluster.gatewayApi");
  });

  test("overlapping or malformed ranges are rejected", () => {
    expect(pathsOf(input({ network: { servicesCidr: "10.5.0.0/20" } }))).toEqual([
      "platform:network.servicesCidr",
    ]);
    expect(pathsOf(input({ network: { controlPlaneCidr: "172.16.0.0/24" } }))).toEqual([
      "platform:network.controlPlaneCidr",
    ]);
    expect(pathsOf(input({ network: { nodesCidr: "10.0.0.1/20" } }))).toEqual(["platform:network.nodesCidr"]);
  });

  test("a maintenance window GKE would reject is rejected here", () => {
    const [p] = problems(input({ cluster: { maintenance: { days: ["SU"], start: "03:00", hours: 4 } } }));
    expect(p.path).toBe("platform:cluster.maintenance");
    expect(p.problem).toContain("GKE rejects less than 48h");
  });

  test("a location outside the region, and min above max, are rejected", () => {
    expect(pathsOf(input({ cluster: { location: "us-east1-b" } }))).toEqual(["platform:cluster.location"]);
    expect(
      pathsOf(
        input({
          cluster: { nodePools: [{ name: "a", machineType: "e2-standard-4", minNodes: 4, maxNodes: 2 }] },
        }),
      ),
    ).toEqual(["platform:cluster.nodePools[0].minNodes"]);
  });

  test("tracing names the collector's identity completely: Linkerd's chart fails at install without it", () => {
    expect(
      pathsOf(
        input({
          mesh: { kind: "linkerd", tracing: { collectorEndpoint: "otel.t:4317", serviceAccount: "otel" } },
        }),
      ),
    ).toEqual(["platform:mesh.tracing.namespace"]);
    // Only the endpoint: both keys are named, each with the reason.
    const missing = problems(
      input({ mesh: { kind: "linkerd", tracing: { collectorEndpoint: "otel.t:4317" } } }),
    );
    expect(missing.map((p) => p.path)).toEqual([
      "platform:mesh.tracing.serviceAccount",
      "platform:mesh.tracing.namespace",
    ]);
    expect(missing[0]).toEqual({
      path: "platform:mesh.tracing.serviceAccount",
      problem:
        "is missing: proxies verify the collector by its mesh identity, its service account and namespace, and Linkerd's chart refuses to install tracing without them",
      allowed: "the collector's service account, e.g. collector",
      fix: "set platform:mesh.tracing.serviceAccount and platform:mesh.tracing.namespace to the collector's",
    });
  });

  test("previousTrustAnchor: read by Linkerd and Istio; without a mesh, one problem naming both", () => {
    expect(config({ mesh: { kind: "linkerd", previousTrustAnchor: true } }).mesh.previousTrustAnchor).toBe(
      true,
    );
    expect(config({ mesh: { kind: "istio", previousTrustAnchor: true } }).mesh.previousTrustAnchor).toBe(
      true,
    );
    expect(problems(input({ mesh: { kind: "none", previousTrustAnchor: true } }))).toEqual([
      {
        path: "platform:mesh.previousTrustAnchor",
        problem: 'is set, but mesh.kind is "none"; it configures Linkerd and Istio',
        fix: 'remove platform:mesh.previousTrustAnchor, or set platform:mesh.kind to "linkerd" or "istio"',
      },
    ]);
  });

  test("crds.prometheusOperator platform only with the platform's Prometheus", () => {
    expect(
      pathsOf(
        input({ monitoring: { backend: "managed-prometheus" }, crds: { prometheusOperator: "platform" } }),
      ),
    ).toEqual(["platform:crds.prometheusOperator"]);
  });

  test("mesh and ingress settings that the chosen kind ignores are rejected", () => {
    expect(pathsOf(input({ mesh: { kind: "linkerd", dataplane: "ambient" } }))).toEqual([
      "platform:mesh.dataplane",
    ]);
    expect(pathsOf(input({ ingress: { kind: "traefik", gatewayClass: "gke-l7-rilb" } }))).toEqual([
      "platform:ingress.gatewayClass",
    ]);
  });
});

describe("reading Pulumi config", () => {
  test("platform:* keys form the environment; gcp:project and gcp:region come from the provider's keys", () => {
    expect(
      environmentFromConfig({
        "gcp:project": "acme",
        "gcp:region": "europe-west1",
        "gcp:zone": "ignored-by-the-platform",
        "platform:tier": "dev",
        "platform:mesh": '{"kind":"linkerd"}',
        "other:key": "x",
      }),
    ).toEqual({ tier: "dev", mesh: { kind: "linkerd" }, gcp: { project: "acme", region: "europe-west1" } });
  });
});

describe("warnings", () => {
  test("a public IP endpoint without authorized networks, and ingress-nginx, are warned about", () => {
    expect(configWarnings(config({ tier: "prod", cluster: { ipEndpoints: true } }))).toEqual([
      expect.stringContaining("authorizedNetworks is empty in prod"),
    ]);
    expect(configWarnings(config({ tier: "dev" }))).toEqual([]);
    expect(configWarnings(config({ ingress: { kind: "ingress-nginx" } }))).toEqual([
      expect.stringContaining("retired upstream in March 2026"),
    ]);
  });
});

test("platform:gcp is rejected rather than silently replaced by gcp:project and gcp:region", () => {
  expect(() => environmentFromConfig({ "platform:gcp": '{"project":"x"}', "gcp:project": "acme" })).toThrow(
    "platform:gcp: is not a platform key",
  );
});

describe("sizing: a production profile per tier, tunable, refused where it cannot hold", () => {
  test("prod: highAvailability on, the profile's replicas; dev: one of each, the same requests and limits", () => {
    const prod = config({ tier: "prod" }).sizing;
    expect(prod.highAvailability).toBe(true);
    expect([
      prod.certManager.replicas,
      prod.certManagerWebhook.replicas,
      prod.certManagerCainjector.replicas,
      prod.trustManager.replicas,
      prod.ingressController.replicas,
      prod.linkerdControlPlane.replicas,
      prod.prometheus.replicas,
      prod.alertmanager.replicas,
    ]).toEqual([2, 3, 2, 2, 2, 3, 2, 2]);
    expect(prod.proxy).toEqual({ cpu: "100m", memory: "20Mi", memoryLimit: "250Mi" });
    const dev = config({ tier: "dev" }).sizing;
    expect(dev.highAvailability).toBe(false);
    expect([
      dev.certManager.replicas,
      dev.certManagerWebhook.replicas,
      dev.linkerdControlPlane.replicas,
    ]).toEqual([1, 1, 1]);
    expect(dev.certManager).toEqual({ ...prod.certManager, replicas: 1 });
  });

  test("the proxy's profile follows the mesh: Istio's chart defaults for its sidecar", () => {
    expect(config({ tier: "prod", mesh: { kind: "istio" } }).sizing.proxy).toEqual({
      cpu: "100m",
      memory: "128Mi",
      memoryLimit: "1024Mi",
    });
  });

  test("mesh.highAvailability follows sizing.highAvailability unless set", () => {
    expect(config({ tier: "dev", sizing: { highAvailability: true } }).mesh.highAvailability).toBe(true);
    expect(config({ tier: "prod", sizing: { highAvailability: false } }).mesh.highAvailability).toBe(false);
    const split = config({ tier: "prod", mesh: { kind: "linkerd", highAvailability: false } });
    expect([split.sizing.highAvailability, split.mesh.highAvailability]).toEqual([true, false]);
    expect(split.sizing.linkerdControlPlane.replicas).toBe(1);
  });

  test("a user's numbers win over the profile, field by field", () => {
    const s = config({ tier: "prod", sizing: { prometheus: { memory: "8Gi", memoryLimit: "12Gi" } } }).sizing;
    expect(s.prometheus).toEqual({
      replicas: 2,
      cpu: "500m",
      memory: "8Gi",
      memoryLimit: "12Gi",
      storage: {
        persistent: true,
        size: "50Gi",
        storageClass: "standard-rwo",
        retention: "15d",
        retentionSize: "40GB",
      },
    });
  });

  test("one replica of a control plane while highAvailability is on is refused, naming what it would lose", () => {
    expect(messageOf(input({ tier: "prod", sizing: { certManagerWebhook: { replicas: 1 } } }))).toBe(
      [
        "Invalid environment config in Pulumi.test.yaml:",
        "  platform:sizing.certManagerWebhook.replicas: is 1, but sizing.highAvailability is on: cert-manager's webhook would lose its last replica to a node drain",
        "    allowed: 2 or more while highAvailability is on",
        "    fix: raise platform:sizing.certManagerWebhook.replicas to 2 or more, or set platform:sizing.highAvailability to false",
      ].join("\n"),
    );
    const [p] = problems(input({ tier: "prod", sizing: { linkerdControlPlane: { replicas: 1 } } }));
    expect(p.problem).toContain("but mesh.highAvailability is on");
    // Without highAvailability, one replica is what was asked for.
    expect(
      config({ tier: "dev", sizing: { certManagerWebhook: { replicas: 1 } } }).sizing.certManagerWebhook
        .replicas,
    ).toBe(1);
    // Monitoring is not a control plane: one Prometheus may be asked for in prod.
    expect(config({ tier: "prod", sizing: { prometheus: { replicas: 1 } } }).sizing.prometheus.replicas).toBe(
      1,
    );
  });

  test("a request above its limit is refused: the API server rejects the pod", () => {
    expect(problems(input({ sizing: { proxy: { memory: "512Mi" } } }))).toEqual([
      {
        path: "platform:sizing.proxy.memory",
        problem: 'memory request "512Mi" is above its limit "250Mi"; the API server rejects such a pod',
        allowed: "a memory request at most the limit",
        fix: "set platform:sizing.proxy.memory at most platform:sizing.proxy.memoryLimit",
      },
    ]);
    expect(
      problems(input({ sizing: { istiod: { cpu: "2", cpuLimit: "1500m" } }, mesh: { kind: "istio" } })),
    ).toEqual([
      {
        path: "platform:sizing.istiod.cpu",
        problem: 'cpu request "2" is above its limit "1500m"; the API server rejects such a pod',
        allowed: "a cpu request at most the limit",
        fix: "set platform:sizing.istiod.cpu at most platform:sizing.istiod.cpuLimit",
      },
    ]);
  });

  test("quantities are checked as Kubernetes writes them; agents take no replicas", () => {
    expect(problems(input({ sizing: { proxy: { memory: "20MB" } } }))).toEqual([
      {
        path: "platform:sizing.proxy.memory",
        problem: '"20MB" is not valid',
        allowed: "a memory quantity such as 128Mi or 2Gi",
        fix: "set platform:sizing.proxy.memory to a memory quantity such as 128Mi or 2Gi",
      },
    ]);
    const [cpu] = problems(input({ sizing: { proxy: { cpu: "100 m" } } }));
    expect(cpu.allowed).toBe("a CPU quantity such as 100m or 2");
    const [replicas] = problems(input({ sizing: { nodeExporter: { replicas: 2 } } }));
    expect(replicas.path).toBe("platform:sizing.nodeExporter.replicas");
  });

  test("sizing a workload the environment does not run is refused, never ignored", () => {
    expect(problems(input({ mesh: { kind: "linkerd" }, sizing: { istiod: { replicas: 2 } } }))).toEqual([
      {
        path: "platform:sizing.istiod",
        problem: "is set, but this environment does not run istiod, so it would have no effect",
        fix: "remove platform:sizing.istiod",
      },
    ]);
    expect(
      problems(input({ cluster: { mode: "autopilot" }, sizing: { nodeExporter: { memory: "64Mi" } } })).map(
        (p) => [p.path, p.problem],
      ),
    ).toContainEqual([
      "platform:sizing.nodeExporter",
      "is set, but this environment does not run kube-prometheus-stack (not on Autopilot), so it would have no effect",
    ]);
    expect(
      problems(input({ ingress: { kind: "gke-gateway" }, sizing: { ingressController: { replicas: 3 } } })),
    ).toEqual([
      {
        path: "platform:sizing.ingressController",
        problem:
          "is set, but this environment does not run traefik or ingress-nginx, so it would have no effect",
        fix: "remove platform:sizing.ingressController",
      },
    ]);
  });
});

test("mesh dashboards need the platform's Grafana and a mesh that publishes them", () => {
  expect(problems(input({ mesh: { kind: "none" }, monitoring: { meshDashboards: true } }))).toEqual([
    {
      path: "platform:monitoring.meshDashboards",
      problem:
        'is true, but the dashboards go into the platform\'s Grafana (monitoring.backend "prometheus") for a mesh that publishes them (Linkerd, Istio); here the backend is "prometheus" and the mesh "none"',
      fix: 'set platform:monitoring.backend to "prometheus" with a mesh, or remove platform:monitoring.meshDashboards',
    },
  ]);
  expect(
    config({ mesh: { kind: "istio" }, monitoring: { meshDashboards: true } }).monitoring.meshDashboards,
  ).toBe(true);
});
