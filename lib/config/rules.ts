import { nodePoolName, type AppExposure, type ExposurePath, type PlatformConfig } from "./defaults";
import type { ConfigProblem } from "./errors";
import { showValue } from "./errors";
import { isRegionalGatewayClass, type EnvironmentInput } from "./schema";
import { quantityValue, sizingComponents, type SizingComponent } from "./sizing";
import { gatewayApi, gkeGatewayUnsupported } from "../versions";

/**
 * Cross-field rules that hold whatever the mesh: combinations each field allows alone but the platform
 * cannot build, or that GKE would reject after minutes of `pulumi up`. Each returns problems in the
 * same shape as schema errors. Rules see the raw input too, so a key set explicitly but without effect
 * is an error, never ignored. What depends on the mesh is the mesh's own rule (lib/meshes), run by the
 * plan (lib/plan) with these.
 */
export function checkRules(input: EnvironmentInput, config: PlatformConfig): ConfigProblem[] {
  return [
    ...autopilotRules(input, config),
    ...existingClusterRules(input, config),
    ...clusterRules(input, config),
    ...ingressRules(input, config),
    ...loadBalancerRules(input, config),
    ...crdRules(input, config),
    ...sizingRules(input, config),
    ...configRules(config),
  ];
}

/**
 * The rules that hold on the resolved config alone, whoever built it: overlapping networks, two apps
 * with one name, two apps on one host and path. A config built in code (`new Platform({ config })`)
 * is checked against them too; the others judge keys as the user wrote them.
 */
export function configRules(config: PlatformConfig): ConfigProblem[] {
  return [...networkRules(config), ...appRules(config), ...exposureCollisions(config)];
}

/**
 * Sizing that cannot hold: a control plane set to one replica while highAvailability promises it
 * survives a drain, and a request above its limit (the API server rejects the pod).
 */
function sizingRules(input: EnvironmentInput, config: PlatformConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const key of Object.keys(sizingComponents) as SizingComponent[]) {
    const given = input.sizing?.[key];
    if (!given) continue;
    const path = cfg(`sizing.${key}`);
    const meshPart = key.startsWith("linkerd") || key.startsWith("istio");
    const ha = meshPart ? config.mesh.highAvailability : config.sizing.highAvailability;
    const replicas = "replicas" in given ? given.replicas : undefined;
    if (replicas !== undefined && replicas < 2 && ha && sizingComponents[key].controlPlane) {
      const haKey = meshPart ? "mesh.highAvailability" : "sizing.highAvailability";
      problems.push({
        path: `${path}.replicas`,
        problem: `is ${replicas}, but ${haKey} is on: ${sizingComponents[key].title} would lose its last replica to a node drain`,
        allowed: "2 or more while highAvailability is on",
        fix: `raise ${path}.replicas to 2 or more, or set platform:${haKey} to false`,
      });
    }
    const resolved = config.sizing[key];
    for (const [request, limit] of [
      ["cpu", "cpuLimit"],
      ["memory", "memoryLimit"],
    ] as const) {
      const r = resolved[request];
      const l = resolved[limit];
      if (l === undefined || quantityValue(r) <= quantityValue(l)) continue;
      const which = given[request] !== undefined ? request : limit;
      problems.push({
        path: `${path}.${which}`,
        problem: `${request} request ${showValue(r)} is above its limit ${showValue(l)}; the API server rejects such a pod`,
        allowed: `a ${request} request at most the limit`,
        fix: `set ${path}.${request} at most ${path}.${limit}`,
      });
    }
  }
  return problems;
}

const cfg = (path: string): string => `platform:${path}`;

function autopilotRules(input: EnvironmentInput, config: PlatformConfig): ConfigProblem[] {
  const c = input.cluster ?? {};
  const problems: ConfigProblem[] = [];
  if (config.cluster.mode !== "autopilot") {
    if (c.autopilot !== undefined) {
      problems.push({
        path: cfg("cluster.autopilot"),
        problem: `is set, but cluster.mode is "${config.cluster.mode}"; it applies to Autopilot clusters only`,
        fix: `remove platform:cluster.autopilot, or set platform:cluster.mode to "autopilot"`,
      });
    }
    return problems;
  }
  if (!config.cluster.regional) {
    problems.push({
      path: cfg("cluster.location"),
      problem: `${showValue(config.cluster.location)} is a zone, but Autopilot clusters are regional`,
      allowed: "a region such as " + config.gcp.region,
      fix: `set platform:cluster.location to "${config.gcp.region}" or remove it`,
    });
  }
  // Autopilot manages nodes, DNS caching and the dataplane itself.
  for (const key of ["nodePools", "nodeLocalDns", "nodeServiceAccountRoles"] as const) {
    if (c[key] !== undefined) {
      problems.push({
        path: cfg(`cluster.${key}`),
        problem: "is set, but Autopilot manages nodes itself and ignores it",
        fix: `remove platform:cluster.${key}, or set platform:cluster.mode to "standard"`,
      });
    }
  }
  if (c.dataplaneV2 === false) {
    problems.push({
      path: cfg("cluster.dataplaneV2"),
      problem: "is false, but Autopilot clusters always run Dataplane V2",
      fix: "remove platform:cluster.dataplaneV2",
    });
  }
  return problems;
}

/** Fields that shape a cluster the platform creates; they cannot change a cluster made elsewhere. */
const clusterShapingKeys = [
  "location",
  "releaseChannel",
  "privateNodes",
  "privateEndpoint",
  "authorizedNetworks",
  "dnsEndpoint",
  "ipEndpoints",
  "dataplaneV2",
  "managedPrometheus",
  "nodeLocalDns",
  "backupAgent",
  "backups",
  "secretsEncryption",
  "deletionProtection",
  "protect",
  "maintenance",
  "labels",
  "nodePools",
  "nodeServiceAccountRoles",
  "imageRepositories",
  "enableApis",
  "costAllocation",
  "securityPosture",
  "binaryAuthorization",
] as const;

function existingClusterRules(input: EnvironmentInput, config: PlatformConfig): ConfigProblem[] {
  const c = input.cluster ?? {};
  const problems: ConfigProblem[] = [];
  if (config.cluster.mode !== "existing") {
    if (c.existing !== undefined) {
      problems.push({
        path: cfg("cluster.existing"),
        problem: `is set, but cluster.mode is "${config.cluster.mode}"`,
        fix: 'set platform:cluster.mode to "existing", or remove platform:cluster.existing',
      });
    }
    return problems;
  }
  const e = c.existing;
  const byName = e?.name !== undefined || e?.location !== undefined;
  const byFile = e?.kubeconfigPath !== undefined;
  if (!byName && !byFile) {
    problems.push({
      path: cfg("cluster.existing"),
      problem: "is missing: existing-cluster mode needs to know which cluster",
      allowed: "{ name, location } of a GKE cluster, or { kubeconfigPath, context? }",
      fix: "set platform:cluster.existing.name and platform:cluster.existing.location",
    });
  } else if (byName && byFile) {
    problems.push({
      path: cfg("cluster.existing"),
      problem: "names a cluster both by name/location and by kubeconfigPath",
      allowed: "one of { name, location } or { kubeconfigPath, context? }",
      fix: "remove one of the two",
    });
  } else if (byName && (e?.name === undefined || e?.location === undefined)) {
    const missing = e?.name === undefined ? "name" : "location";
    problems.push({
      path: cfg(`cluster.existing.${missing}`),
      problem: "is missing; a GKE cluster is found by name and location together",
      fix: `set platform:cluster.existing.${missing}`,
    });
  }
  if (byName && e?.context !== undefined) {
    problems.push({
      path: cfg("cluster.existing.context"),
      problem: "is set, but applies only with kubeconfigPath",
      fix: "remove platform:cluster.existing.context",
    });
  }
  for (const key of clusterShapingKeys) {
    if (c[key] !== undefined) {
      problems.push({
        path: cfg(`cluster.${key}`),
        problem: "is set, but the platform does not manage an existing cluster, so it would have no effect",
        fix: `remove platform:cluster.${key}, or set platform:cluster.mode to "standard" to let the platform build the cluster`,
      });
    }
  }
  if (input.network !== undefined) {
    problems.push({
      path: "platform:network",
      problem: "is set, but an existing cluster brings its own network",
      fix: "remove platform:network",
    });
  }
  return problems;
}

function clusterRules(input: EnvironmentInput, config: PlatformConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const c = config.cluster;
  if (c.mode === "existing") return problems;
  if (c.location !== config.gcp.region && !c.location.startsWith(`${config.gcp.region}-`)) {
    problems.push({
      path: cfg("cluster.location"),
      problem: `${showValue(c.location)} is outside gcp:region ${showValue(config.gcp.region)}, where the network is built`,
      allowed: `${config.gcp.region} or one of its zones`,
      fix: `set platform:cluster.location to "${config.gcp.region}", or change gcp:region`,
    });
  }
  if (c.privateEndpoint && !c.privateNodes) {
    problems.push({
      path: cfg("cluster.privateEndpoint"),
      problem: "is true, but privateNodes is false; GKE allows a private endpoint only on private clusters",
      fix: "set platform:cluster.privateNodes to true, or privateEndpoint to false",
    });
  }
  problems.push(...secretsKeyRules(input, config));
  problems.push(...controlPlaneAccessRules(config));
  const b = c.backups;
  if (b && !c.backupAgent) {
    problems.push({
      path: cfg("cluster.backups"),
      problem: "is set, but cluster.backupAgent is false; Backup for GKE takes backups through its agent",
      fix: "set platform:cluster.backupAgent to true, or platform:cluster.backups to null",
    });
  }
  // Backup for GKE: "backupRetainDays must be >= backupDeleteLockDays" (gkebackup BackupPlan retentionPolicy).
  if (b && b.retainDays < b.deleteLockDays) {
    problems.push({
      path: cfg("cluster.backups.retainDays"),
      problem: `${b.retainDays} is shorter than deleteLockDays ${b.deleteLockDays}; a backup would expire while it cannot be deleted`,
      fix: `set retainDays to at least ${b.deleteLockDays}, or lower deleteLockDays`,
    });
  }
  const names = new Set<string>();
  const gkeNames = new Set<string>();
  c.nodePools.forEach((pool, i) => {
    const gkeName = nodePoolName(pool);
    // GKE node pool names: at most 40 characters (cloud.google.com/kubernetes-engine/docs/reference/rest/v1/projects.locations.clusters.nodePools).
    if (gkeName.length > 40) {
      problems.push({
        path: cfg(`cluster.nodePools[${i}].name`),
        problem: `${showValue(pool.name)} makes the GKE node pool name ${showValue(gkeName)}, ${gkeName.length} characters; GKE allows 40`,
        fix: `shorten it to at most ${40 - (gkeName.length - pool.name.length)} characters`,
      });
    }
    if (gkeNames.has(gkeName) && !names.has(pool.name)) {
      problems.push({
        path: cfg(`cluster.nodePools[${i}].name`),
        problem: `${showValue(pool.name)} makes the GKE node pool name ${showValue(gkeName)}, which another pool has (spot pools are named <name>-spot)`,
        fix: "give the pools names that differ by more than -spot",
      });
    }
    gkeNames.add(gkeName);
    if (pool.minNodes > pool.maxNodes) {
      problems.push({
        path: cfg(`cluster.nodePools[${i}].minNodes`),
        problem: `${pool.minNodes} is larger than maxNodes ${pool.maxNodes}`,
        fix: `set minNodes to at most ${pool.maxNodes}, or raise maxNodes`,
      });
    }
    if (names.has(pool.name)) {
      problems.push({
        path: cfg(`cluster.nodePools[${i}].name`),
        problem: `${showValue(pool.name)} names two node pools`,
        fix: "give each node pool its own name",
      });
    }
    names.add(pool.name);
  });
  if (c.maintenance) problems.push(...maintenanceRules(c.maintenance));
  if (input.cluster?.managedPrometheus === false && config.monitoring.backend === "managed-prometheus") {
    problems.push({
      path: cfg("cluster.managedPrometheus"),
      problem: 'is false, but monitoring.backend is "managed-prometheus", which needs managed collection on',
      fix: "remove platform:cluster.managedPrometheus, or choose another monitoring.backend",
    });
  }
  return problems;
}

const weekdayOrder = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"] as const;

/**
 * The fewest windows a weekly schedule has in any 32 consecutive days: 32 days are four weeks and four
 * days, and the worst four days hold as few of the window's days as possible.
 */
export function fewestWindowsIn32Days(days: readonly (typeof weekdayOrder)[number][]): number {
  const on = weekdayOrder.map((d) => days.includes(d));
  let fewest = Number.POSITIVE_INFINITY;
  for (let first = 0; first < 7; first++) {
    let count = 0;
    for (let day = 0; day < 32; day++) if (on[(first + day) % 7]) count++;
    fewest = Math.min(fewest, count);
  }
  return fewest;
}

/** GKE refuses a maintenance policy it cannot keep; these are its rules, checked before `pulumi up`. */
function maintenanceRules(m: NonNullable<PlatformConfig["cluster"]["maintenance"]>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  // GKE: "at least 48 hours of availability in any 32-day rolling window", counting only windows of 4
  // hours or more (cloud.google.com/kubernetes-engine/docs/concepts/maintenance-windows-and-exclusions).
  const windows = fewestWindowsIn32Days(m.days);
  const hours = m.hours >= 4 ? windows * m.hours : 0;
  if (hours < 48) {
    problems.push({
      path: cfg("cluster.maintenance"),
      problem:
        m.hours < 4
          ? `has windows of ${m.hours}h; GKE counts only windows of 4h or more, so it finds no maintenance time at all`
          : `gives ${hours}h of maintenance in the worst 32 days (${windows} windows of ${m.hours}h: some 32 days hold only four of each weekday); GKE rejects less than 48h`,
      allowed: "windows of at least 4h whose fewest occurrences in any 32 days add up to 48h or more",
      fix: "add days or hours, e.g. days [SA, SU] with hours 6",
    });
  }
  const names = new Set<string>();
  m.exclusions.forEach((e, i) => {
    const at = cfg(`cluster.maintenance.exclusions[${i}]`);
    const start = Date.parse(e.start);
    const end = Date.parse(e.end);
    if (Number.isNaN(start) || Number.isNaN(end)) {
      problems.push({
        path: at,
        problem: `${showValue(Number.isNaN(start) ? e.start : e.end)} is not a date`,
        fix: "write a real UTC date and time, such as 2026-12-20T00:00:00Z",
      });
    } else if (end <= start) {
      problems.push({
        path: `${at}.end`,
        problem: `${showValue(e.end)} is not after start ${showValue(e.start)}`,
        fix: "set end after start",
      });
    } else if (e.scope === "NO_UPGRADES" && end - start > 30 * 86_400_000) {
      // GKE: an exclusion of scope "No upgrades" lasts at most 30 days (same page).
      problems.push({
        path: `${at}.end`,
        problem: `makes the NO_UPGRADES exclusion ${showValue(e.name)} ${Math.ceil((end - start) / 86_400_000)} days long; GKE allows at most 30`,
        allowed: "NO_UPGRADES for up to 30 days; NO_MINOR_UPGRADES or NO_MINOR_OR_NODE_UPGRADES for longer",
        fix: "end it within 30 days of start, or hold back only minor upgrades with scope NO_MINOR_UPGRADES",
      });
    }
    if (names.has(e.name)) {
      problems.push({
        path: `${at}.name`,
        problem: `${showValue(e.name)} names two exclusions`,
        fix: "give each exclusion its own name",
      });
    }
    names.add(e.name);
  });
  return problems;
}

/** The control plane must stay reachable, and IP-only settings need the IP endpoints. */
function controlPlaneAccessRules(config: PlatformConfig): ConfigProblem[] {
  const c = config.cluster;
  const problems: ConfigProblem[] = [];
  if (!c.dnsEndpoint && !c.ipEndpoints) {
    problems.push({
      path: cfg("cluster.dnsEndpoint"),
      problem:
        "is false and cluster.ipEndpoints is false, so nothing, `pulumi up` included, could reach the control plane",
      fix: "remove platform:cluster.dnsEndpoint (the DNS endpoint is authenticated by IAM), or set platform:cluster.ipEndpoints to true",
    });
  }
  if (!c.ipEndpoints && c.authorizedNetworks.length > 0) {
    problems.push({
      path: cfg("cluster.authorizedNetworks"),
      problem:
        "is set, but cluster.ipEndpoints is false; authorized networks limit the IP endpoints only (IAM limits the DNS endpoint)",
      fix: "set platform:cluster.ipEndpoints to true, or remove platform:cluster.authorizedNetworks",
    });
  }
  if (!c.ipEndpoints && c.privateEndpoint) {
    problems.push({
      path: cfg("cluster.privateEndpoint"),
      problem: "is true, but cluster.ipEndpoints is false; the private endpoint is one of the IP endpoints",
      fix: "set platform:cluster.ipEndpoints to true, or remove platform:cluster.privateEndpoint",
    });
  }
  return problems;
}

/** An adopted KMS key: GKE and Backup for GKE use it only in the cluster's region; its rotation is its owner's. */
function secretsKeyRules(input: EnvironmentInput, config: PlatformConfig): ConfigProblem[] {
  const e = config.cluster.secretsEncryption;
  const at = cfg("cluster.secretsEncryption.key");
  if (e.key === undefined) return [];
  const problems: ConfigProblem[] = [];
  if (!e.enabled) {
    problems.push({
      path: at,
      problem: "is set, but secretsEncryption.enabled is false, so no key is used",
      fix: "remove platform:cluster.secretsEncryption.key, or set platform:cluster.secretsEncryption.enabled to true",
    });
  }
  if (input.cluster?.secretsEncryption?.rotationDays !== undefined) {
    problems.push({
      path: cfg("cluster.secretsEncryption.rotationDays"),
      problem:
        "is set, but secretsEncryption.key names a key the platform does not manage; its rotation is set where the key is managed",
      fix: "remove platform:cluster.secretsEncryption.rotationDays",
    });
  }
  // GKE application-layer secrets encryption: "the key must be in the same location as the cluster"
  // (cloud.google.com/kubernetes-engine/docs/how-to/encrypting-secrets); a zonal cluster's is its region.
  const location = /\/locations\/([^/]+)\//.exec(e.key)?.[1];
  if (location !== config.gcp.region) {
    problems.push({
      path: at,
      problem: `${showValue(e.key)} is in ${showValue(location)}, but GKE uses a key only in the cluster's region ${showValue(config.gcp.region)}`,
      allowed: `a key under projects/<project>/locations/${config.gcp.region}/`,
      fix: `name a key in ${config.gcp.region}, or remove platform:cluster.secretsEncryption.key to let the platform create one`,
    });
  }
  return problems;
}

function networkRules(config: PlatformConfig): ConfigProblem[] {
  if (config.cluster.mode === "existing") return [];
  const problems: ConfigProblem[] = [];
  const n = config.network;
  const ranges = [
    ["nodesCidr", n.nodesCidr],
    ["podsCidr", n.podsCidr],
    ["servicesCidr", n.servicesCidr],
    ["proxyOnlyCidr", n.proxyOnlyCidr],
    ["controlPlaneCidr", n.controlPlaneCidr],
  ] as const;
  for (const [key, value] of ranges) {
    if (parseCidr(value) === undefined) {
      problems.push({
        path: cfg(`network.${key}`),
        problem: `${showValue(value)} is not a valid IPv4 CIDR (octets 0-255, prefix 0-32, no host bits set)`,
        fix: "use a network address such as 10.0.0.0/20",
      });
    }
  }
  if (problems.length > 0) return problems;
  if (!n.controlPlaneCidr.endsWith("/28")) {
    problems.push({
      path: cfg("network.controlPlaneCidr"),
      problem: `${showValue(n.controlPlaneCidr)} is not a /28; GKE requires exactly a /28 for the control plane of a private cluster`,
      fix: "use a /28 such as 172.16.0.0/28",
    });
  }
  for (let i = 0; i < ranges.length; i++) {
    for (let j = i + 1; j < ranges.length; j++) {
      if (overlaps(ranges[i][1], ranges[j][1])) {
        problems.push({
          path: cfg(`network.${ranges[j][0]}`),
          problem: `${showValue(ranges[j][1])} overlaps network.${ranges[i][0]} ${showValue(ranges[i][1])}`,
          fix: "choose ranges that do not overlap",
        });
      }
    }
  }
  return problems;
}

function crdRules(input: EnvironmentInput, config: PlatformConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const platformGateway =
    config.cluster.gatewayApi === "disabled" && (config.crds.gatewayApi ?? "platform") === "platform";
  if (platformGateway && !config.crds.gatewayApiBundleFile) {
    problems.push({
      path: cfg("crds.gatewayApiBundleFile"),
      problem:
        "is missing: with GKE's Gateway API disabled, the platform installs the pinned upstream bundle from a local copy",
      fix: `download standard-install.yaml of ${gatewayApi.version} (github.com/kubernetes-sigs/gateway-api/releases) and set platform:crds.gatewayApiBundleFile to its path, or set platform:crds.gatewayApi to "pre-installed"`,
    });
  }
  if (input.crds?.gatewayApiBundleFile !== undefined && !platformGateway) {
    problems.push({
      path: cfg("crds.gatewayApiBundleFile"),
      problem:
        "is set, but the platform does not install the Gateway API here (GKE owns it, or it is pre-installed)",
      fix: "remove platform:crds.gatewayApiBundleFile",
    });
  }
  if (config.crds.prometheusOperator === "platform" && config.monitoring.backend !== "prometheus") {
    problems.push({
      path: cfg("crds.prometheusOperator"),
      problem: `is "platform", but only the platform's Prometheus (monitoring.backend "prometheus") installs those CRDs; the backend is "${config.monitoring.backend}"`,
      fix: 'remove platform:crds.prometheusOperator, or set platform:monitoring.backend to "prometheus"',
    });
  }
  if (input.monitoring?.prometheusUrl !== undefined && config.monitoring.backend !== "existing-prometheus") {
    problems.push({
      path: cfg("monitoring.prometheusUrl"),
      problem: `is set, but monitoring.backend is "${config.monitoring.backend}"; it names an existing Prometheus`,
      fix: 'remove platform:monitoring.prometheusUrl, or set platform:monitoring.backend to "existing-prometheus"',
    });
  }
  return problems;
}

function ingressRules(input: EnvironmentInput, config: PlatformConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (config.ingress.kind === "gke-gateway" && config.cluster.gatewayApi === "disabled") {
    problems.push({
      path: cfg("cluster.gatewayApi"),
      problem:
        'is "disabled", but ingress.kind "gke-gateway" needs GKE\'s Gateway controller, which runs only with the Gateway API enabled',
      allowed: '"standard" with GKE Gateway',
      fix: 'set platform:cluster.gatewayApi to "standard", or choose another ingress.kind',
    });
  }
  const usesGateway =
    config.ingress.kind === "gke-gateway" || config.apps.some((a) => a.expose?.via.includes("gke-gateway"));
  const inClusterTls = config.apps.some((a) => a.expose?.via.some((v) => inCluster.has(v)));
  const regional = isRegionalGatewayClass(config.ingress.gatewayClass);
  const t = config.ingress.tls;
  if (t.mode === "pre-shared" && t.certificates.length === 0) {
    problems.push({
      path: cfg("ingress.tls.certificates"),
      problem: 'is empty, but tls.mode is "pre-shared"',
      fix: "list the Compute SSL certificate names, or set platform:ingress.tls.mode to managed",
    });
  }
  if (t.mode === "managed" && t.certificates.length > 0) {
    problems.push({
      path: cfg("ingress.tls.certificates"),
      problem: 'is set, but tls.mode is "managed"; the platform creates the certificates',
      fix: 'remove platform:ingress.tls.certificates, or set platform:ingress.tls.mode to "pre-shared"',
    });
  }
  if (usesGateway && regional && t.mode === "managed") {
    problems.push({
      path: cfg("ingress.tls.mode"),
      problem: `is "managed", but a regional Gateway (${config.ingress.gatewayClass}) cannot use load-balancer-authorized Google-managed certificates`,
      allowed:
        '"pre-shared" with regional SSL certificates, or the global class gke-l7-global-external-managed',
      fix: 'set platform:ingress.tls.mode to "pre-shared" with platform:ingress.tls.certificates',
    });
  }
  const usesGce =
    config.ingress.kind === "gce-ingress" || config.apps.some((a) => a.expose?.via.includes("gce-ingress"));
  // Load-balancer-authorized Google-managed certificates (Certificate Manager and ManagedCertificate)
  // cover only exact host names; a wildcard needs DNS authorization, which the platform does not create.
  if (t.mode === "managed") {
    config.apps.forEach((a, i) => {
      const viaGoogle = a.expose?.via.some((v) => v === "gke-gateway" || v === "gce-ingress");
      if (viaGoogle && a.expose?.host.startsWith("*.")) {
        problems.push({
          path: cfg(`apps[${i}].expose.host`),
          problem: `"${a.expose.host}" is a wildcard, but Google-managed certificates on a Google load balancer cover exact host names only`,
          allowed: "an exact host name, such as shop.example.com",
          fix: 'name the host exactly, or set platform:ingress.tls.mode to "pre-shared" with a wildcard certificate',
        });
      }
    });
  }
  if (usesGateway && regional && usesGce && t.mode === "pre-shared") {
    problems.push({
      path: cfg("ingress.tls.certificates"),
      problem: `names certificates for both a regional Gateway (${config.ingress.gatewayClass}), which needs regional SSL certificates, and GCE Ingress, which needs global ones`,
      fix: "use the global class gke-l7-global-external-managed during the migration, or move every app off GCE Ingress first",
    });
  }
  if (
    usesGateway &&
    config.ingress.gatewayClass === "gke-l7-rilb" &&
    config.ingress.staticIp &&
    config.cluster.mode === "existing"
  ) {
    problems.push({
      path: cfg("ingress.staticIp"),
      problem:
        "is true, but an internal address is reserved in the cluster's subnet, which the platform does not know for an existing cluster",
      fix: "set platform:ingress.staticIp to false (GKE assigns an internal address)",
    });
  }
  if (config.ingress.acme && !inClusterTls) {
    problems.push({
      path: cfg("ingress.acme"),
      problem: "is set, but no app is exposed through Traefik or ingress-nginx, which are what use it",
      fix: "remove platform:ingress.acme",
    });
  }
  if (input.ingress?.gatewayClass !== undefined && !usesGateway) {
    problems.push({
      path: cfg("ingress.gatewayClass"),
      problem: `is set, but ingress.kind is "${config.ingress.kind}"; the class applies to GKE Gateway only`,
      fix: 'remove platform:ingress.gatewayClass, or set platform:ingress.kind to "gke-gateway"',
    });
  }
  return problems;
}

/** Logging and Cloud Armor are settings of Google's load balancers: set where none is, they would do nothing. */
function loadBalancerRules(input: EnvironmentInput, config: PlatformConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const uses = (via: ExposurePath) =>
    config.ingress.kind === via || config.apps.some((a) => a.expose?.via.includes(via));
  const logging = input.ingress?.requestLogging;
  if (logging?.sampleRate !== undefined && !config.ingress.requestLogging.enabled) {
    problems.push({
      path: cfg("ingress.requestLogging.sampleRate"),
      problem: "is set, but request logging is off, so nothing is sampled",
      fix: "set platform:ingress.requestLogging.enabled to true, or remove the sampleRate",
    });
  }
  if (logging !== undefined && !uses("gke-gateway") && !uses("gce-ingress")) {
    problems.push({
      path: cfg("ingress.requestLogging"),
      problem: `is set, but nothing is exposed through a Google load balancer (GKE Gateway or GCE Ingress); ingress.kind is "${config.ingress.kind}"`,
      fix: "remove platform:ingress.requestLogging (in-cluster controllers log requests themselves)",
    });
  }
  if (input.ingress?.healthCheckLogging !== undefined && !uses("gke-gateway")) {
    problems.push({
      path: cfg("ingress.healthCheckLogging"),
      problem: "is set, but nothing is exposed through GKE Gateway, whose health checks it logs",
      fix: "remove platform:ingress.healthCheckLogging",
    });
  }
  config.apps.forEach((a, i) => {
    const via = a.expose?.via ?? [];
    if (
      a.expose?.securityPolicy !== undefined &&
      !via.includes("gke-gateway") &&
      !via.includes("gce-ingress")
    ) {
      problems.push({
        path: cfg(`apps[${i}].expose.securityPolicy`),
        problem: `is set, but ${a.name} is exposed through ${via.join(", ") || "nothing"}; Cloud Armor sits in front of Google's load balancers only`,
        allowed: 'expose.via including "gke-gateway" or "gce-ingress"',
        fix: `expose the app through gke-gateway, or remove platform:apps[${i}].expose.securityPolicy`,
      });
    }
  });
  return problems;
}

function appRules(config: PlatformConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const seen = new Set<string>();
  config.apps.forEach((app, i) => {
    const key = `${app.namespace}/${app.name}`;
    if (seen.has(key)) {
      problems.push({
        path: cfg(`apps[${i}].name`),
        problem: `${showValue(app.name)} names two apps in namespace ${showValue(app.namespace)}`,
        fix: "give each app its own name",
      });
    }
    seen.add(key);
    if (app.expose) problems.push(...exposureRules(config, app.expose, `apps[${i}].expose`));
    const readiness = app.expose?.healthCheckPath ?? "/";
    if (app.livenessPath !== undefined && app.livenessPath === readiness) {
      problems.push({
        path: cfg(`apps[${i}].livenessPath`),
        problem: `${showValue(app.livenessPath)} is also the readiness path: a slow dependency would restart every replica instead of taking them out of the load balancer`,
        allowed: "a path that checks only the process, such as /livez",
        fix: `give the app a separate liveness endpoint, or remove platform:apps[${i}].livenessPath (no liveness probe)`,
      });
    }
    if (app.metrics && config.monitoring.backend === "none") {
      problems.push({
        path: cfg(`apps[${i}].metrics`),
        problem: 'is set, but monitoring.backend is "none", so nothing would scrape it',
        fix: "choose a monitoring.backend, or remove the app's metrics",
      });
    }
  });
  return problems;
}

/**
 * Two apps exposed on one host and path through one way in: two routes for one listener, of which the
 * controller serves one (Gateway API: the oldest route wins) and the other app gets no traffic.
 * Methods both apps restrict to, without one in common, keep them apart.
 */
function exposureCollisions(config: PlatformConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const claimed = new Map<string, { index: number; name: string; methods?: AppExposure["methods"] }[]>();
  config.apps.forEach((app, i) => {
    const e = app.expose;
    if (!e) return;
    // A trailing slash matches the same requests as none (Gateway API PathPrefix matches whole segments).
    const path = e.path.length > 1 ? e.path.replace(/\/+$/, "") : e.path;
    for (const via of e.via) {
      const key = `${via} ${e.host} ${path}`;
      const earlier = (claimed.get(key) ?? []).find(
        (other) => !other.methods || !e.methods || other.methods.some((m) => e.methods?.includes(m)),
      );
      if (earlier) {
        problems.push({
          path: cfg(`apps[${i}].expose`),
          problem: `exposes host "${e.host}" and path "${e.path}" through ${via}, as app "${earlier.name}" (platform:apps[${earlier.index}]) already does; one of the two routes would get no traffic`,
          allowed: `one app per host and path on each way in, such as path "/api" for one and "/" for the other`,
          fix: `give platform:apps[${i}].expose another path or host, or expose the two apps as one`,
        });
        break;
      }
      claimed.set(key, [...(claimed.get(key) ?? []), { index: i, name: app.name, methods: e.methods }]);
    }
  });
  return problems;
}

const inCluster = new Set(["traefik", "ingress-nginx"]);

function exposureRules(config: PlatformConfig, e: AppExposure, at: string): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (e.via.length === 0) {
    problems.push({
      path: cfg(at),
      problem: 'is set, but ingress.kind is "none" and expose.via is empty, so nothing would route to it',
      fix: `choose an ingress.kind, set platform:${at}.via, or remove the app's expose`,
    });
  }
  for (const via of e.via) {
    if (inCluster.has(via) && via !== config.ingress.kind) {
      problems.push({
        path: cfg(`${at}.via`),
        problem: `includes "${via}", but the environment's in-cluster controller is ingress.kind "${config.ingress.kind}"`,
        allowed: `"${config.ingress.kind}" if it runs in the cluster, "gke-gateway", "gce-ingress"`,
        fix: `set platform:ingress.kind to "${via}", or expose through another way`,
      });
    }
    if (via === "gke-gateway" && config.cluster.gatewayApi !== "standard") {
      problems.push({
        path: cfg(`${at}.via`),
        problem:
          'includes "gke-gateway", but cluster.gatewayApi is disabled, so GKE runs no Gateway controller',
        fix: 'set platform:cluster.gatewayApi to "standard"',
      });
    }
    const google = via === "gke-gateway" ? "GKE Gateway" : via === "gce-ingress" ? "GCE Ingress" : undefined;
    if (google && e.stripPrefix) {
      problems.push({
        path: cfg(`${at}.stripPrefix`),
        problem: `is true, but ${google} cannot rewrite paths (${gkeGatewayUnsupported.pathRewrite.feature} is unsupported)`,
        fix: gkeGatewayUnsupported.pathRewrite.alternative,
      });
    }
    if (google && e.methods) {
      problems.push({
        path: cfg(`${at}.methods`),
        problem: `is set, but ${google} cannot match methods (${gkeGatewayUnsupported.methodMatching.feature} is unsupported)`,
        fix: `remove it and ${gkeGatewayUnsupported.methodMatching.alternative}`,
      });
    }
    if (inCluster.has(via) && !config.ingress.acme) {
      problems.push({
        path: cfg("ingress.acme"),
        problem: `is missing: ${via} serves ${e.host} over TLS with a certificate cert-manager gets from Let's Encrypt`,
        fix: "set platform:ingress.acme.email (the ACME account's contact)",
      });
    }
  }
  return problems;
}

/** Parses a canonical IPv4 CIDR into [network, prefix]; undefined when malformed or host bits are set. */
export function parseCidr(value: string): [number, number] | undefined {
  const match = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(value);
  if (!match) return undefined;
  const octets = match.slice(1, 5).map(Number);
  const prefix = Number(match[5]);
  if (octets.some((o) => o > 255) || prefix > 32) return undefined;
  const address = octets.reduce((acc, o) => acc * 256 + o, 0);
  const size = 2 ** (32 - prefix);
  if (address % size !== 0) return undefined;
  return [address, prefix];
}

function overlaps(a: string, b: string): boolean {
  const [aStart, aPrefix] = parseCidr(a) ?? [0, 32];
  const [bStart, bPrefix] = parseCidr(b) ?? [0, 32];
  const aEnd = aStart + 2 ** (32 - aPrefix);
  const bEnd = bStart + 2 ** (32 - bPrefix);
  return aStart < bEnd && bStart < aEnd;
}
