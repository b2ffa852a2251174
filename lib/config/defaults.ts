/** Resolving a validated input: the tier's defaults and the platform's own, each with its reason, applied. */
import type { z } from "zod";
import type { EnvironmentInput } from "./environment";
import type { Section } from "./frozen";
import type { PlatformConfig } from "./resolved";
import { meshDefaults } from "./schema";
import type { nodePoolSchema } from "./sections/cluster";
import { resolveSizing } from "./sizing";
import { dailyBackups, tierDefaults, type BackupPlanSettings, type TierDefaults } from "./tiers";

/** Applies the tier's defaults to a validated input. Pure: the same input gives the same config. */
export function resolveConfig(input: EnvironmentInput, stack: string): PlatformConfig {
  const d = tierDefaults[input.tier];
  const c = input.cluster ?? {};
  const mode = c.mode ?? "standard";
  const name = c.name ?? clusterNameFor(stack);
  const meshKind = input.mesh?.kind ?? "linkerd";
  const dataplane = input.mesh?.dataplane ?? "sidecar";
  // The mesh's CNI plugin redirects traffic wherever the cluster admits it, so app namespaces need no
  // NET_ADMIN init container and enforce baseline or restricted Pod Security instead of privileged.
  // Autopilot admits no CNI plugin, and a cluster made elsewhere may be Autopilot: there, only Istio
  // ambient asks for it (and is refused on Autopilot).
  const meshCni =
    input.mesh?.cni ??
    (dataplane === "ambient" || (mode === "standard" && meshDefaults[meshKind].redirectsTraffic));
  const backend = input.monitoring?.backend ?? "prometheus";
  const ingressKind = input.ingress?.kind ?? "gke-gateway";
  // Prod survives a node or zone loss: every control plane keeps a replica through a drain.
  const highAvailability = input.sizing?.highAvailability ?? input.tier === "prod";
  const meshHighAvailability = input.mesh?.highAvailability ?? highAvailability;
  // Autopilot clusters are always regional.
  const location =
    c.location ?? (d.zonal && mode !== "autopilot" ? `${input.gcp.region}-b` : input.gcp.region);

  return {
    stack,
    tier: input.tier,
    gcp: input.gcp,
    network: {
      name: input.network?.name ?? `${name}-vpc`,
      // Non-overlapping RFC 1918 ranges; a /14 of pods fits about 1,000 nodes at 110 pods each.
      nodesCidr: input.network?.nodesCidr ?? "10.0.0.0/20",
      podsCidr: input.network?.podsCidr ?? "10.4.0.0/14",
      servicesCidr: input.network?.servicesCidr ?? "10.8.0.0/20",
      // A /23 is the proxy-only subnet size Google recommends for regional load balancers.
      proxyOnlyCidr: input.network?.proxyOnlyCidr ?? "10.9.0.0/23",
      controlPlaneCidr: input.network?.controlPlaneCidr ?? "172.16.0.0/28",
    },
    cluster: {
      mode,
      name,
      location,
      regional: isRegion(location),
      releaseChannel: c.releaseChannel ?? d.releaseChannel,
      kubernetesVersion: c.kubernetesVersion,
      // GKE owns the Gateway API CRDs on its standard channel; no chart installs them.
      gatewayApi: c.gatewayApi ?? "standard",
      // No node has a public IP; egress goes through Cloud NAT.
      privateNodes: c.privateNodes ?? true,
      // A public endpoint (IAM-authenticated) lets `pulumi up` run from CI without a bastion.
      privateEndpoint: c.privateEndpoint ?? false,
      authorizedNetworks: c.authorizedNetworks ?? [],
      // The DNS endpoint needs no IP allow-list to be safe: IAM authorizes every request, from CI anywhere
      // (cloud-foundation-fabric modules/gke-cluster-standard/variables.tf `dns_access`, on by default).
      dnsEndpoint: c.dnsEndpoint ?? true,
      // IP endpoints only where the config uses them (an allow-list or the private endpoint): off, nothing
      // reaches the control plane by address (Fabric's `ip_access` is off unless set).
      ipEndpoints: c.ipEndpoints ?? ((c.authorizedNetworks ?? []).length > 0 || c.privateEndpoint === true),
      // Dataplane V2 enforces NetworkPolicy in eBPF without Calico (both anchors' default); whether it is the default beside the mesh is schema.ts meshDefaults.
      dataplaneV2: c.dataplaneV2 ?? (mode === "autopilot" || meshDefaults[meshKind].dataplaneV2),
      managedPrometheus: c.managedPrometheus ?? backend === "managed-prometheus",
      // Caches DNS on each node: fewer kube-dns timeouts under mesh-heavy lookup load.
      nodeLocalDns: c.nodeLocalDns ?? true,
      // A backup plan needs the agent, so asking for one turns the agent on.
      backupAgent: c.backupAgent ?? (c.backups ? true : d.backupAgent),
      backups: backupPlan(c, d),
      // Secrets in etcd encrypted with a key the project controls (CIS GKE 5.3.1); 90-day rotation (CIS Google Cloud 1.10).
      secretsEncryption: {
        enabled: c.secretsEncryption?.enabled ?? true,
        rotationDays: c.secretsEncryption?.rotationDays ?? 90,
        key: c.secretsEncryption?.key,
      },
      deletionProtection: c.deletionProtection ?? d.deletionProtection,
      protect: c.protect ?? d.protect,
      maintenance:
        c.maintenance === undefined
          ? d.maintenance
          : c.maintenance && {
              ...c.maintenance,
              exclusions: (c.maintenance.exclusions ?? []).map((e) => ({
                ...e,
                // GKE's own default scope; the usual reason for an exclusion is that nothing may change.
                scope: e.scope ?? "NO_UPGRADES",
              })),
            },
      labels: { stack: labelValue(stack), "managed-by": "pulumi", ...c.labels, environment: input.tier },
      nodePools: (c.nodePools ?? [d.nodePool]).map((p: z.infer<typeof nodePoolSchema>) => ({
        ...p,
        spot: p.spot ?? d.nodePool.spot,
        diskSizeGb: p.diskSizeGb ?? d.nodePool.diskSizeGb,
        labels: p.labels ?? {},
        // A pool is as protected as its cluster unless the config says otherwise for this pool.
        protect: p.protect ?? c.protect ?? d.protect,
      })),
      nodeServiceAccountRoles: c.nodeServiceAccountRoles ?? [],
      // None named: nodes read every repository of the project, where each tier's images live.
      imageRepositories: c.imageRepositories ?? [],
      // A fresh project has only a few APIs on; enabling one that is on is a no-op.
      enableApis: c.enableApis ?? mode !== "existing",
      // Free, and costs per namespace and label are what a platform's tenants are charged by.
      costAllocation: c.costAllocation ?? true,
      // Free workload configuration auditing in the console (the Container Security API).
      securityPosture: c.securityPosture ?? "basic",
      binaryAuthorization: c.binaryAuthorization ?? d.binaryAuthorization,
      googleGroups: { securityGroup: c.googleGroups?.securityGroup },
      // Off: an unreachable cluster is usually a network problem, and forgetting its objects would make
      // the next `pulumi up` create them again over the existing ones.
      deleteUnreachable: c.deleteUnreachable ?? false,
      autopilot: {
        // A sidecar mesh without its CNI plugin needs NET_ADMIN in its init container; Autopilot denies it unless allowed.
        allowNetAdmin:
          c.autopilot?.allowNetAdmin ??
          (mode === "autopilot" && meshDefaults[meshKind].redirectsTraffic && !meshCni),
      },
      existing: c.existing,
    },
    mesh: {
      kind: meshKind,
      cni: meshCni,
      dataplane,
      // Kubernetes stops a native sidecar when the app container exits, so meshed Jobs finish.
      nativeSidecars: input.mesh?.nativeSidecars ?? true,
      // Prod survives a node or zone loss without losing the injector or identity.
      highAvailability: meshHighAvailability,
      dashboard: input.mesh?.dashboard ?? false,
      previousTrustAnchor: input.mesh?.previousTrustAnchor ?? false,
      denyByDefault: input.mesh?.denyByDefault ?? [],
      tracing: input.mesh?.tracing,
      istio: {
        revisions: input.mesh?.istio?.revisions,
        defaultRevision: input.mesh?.istio?.defaultRevision ?? input.mesh?.istio?.revisions?.[0]?.name,
        // STRICT where it matters: prod, and staging so prod's failures show up there first.
        mtls: input.mesh?.istio?.mtls ?? (input.tier === "dev" ? "PERMISSIVE" : "STRICT"),
        loadBalancerTraffic: input.mesh?.istio?.loadBalancerTraffic ?? "permissive-ports",
      },
    },
    isolation: {
      // Staging and prod hold data and credentials worth a lateral move from a compromised pod; dev holds
      // neither, and developers call its apps from ad-hoc pods anywhere (isolation.enabled opts it in).
      enabled: input.isolation?.enabled ?? input.tier !== "dev",
      except: input.isolation?.except ?? [],
    },
    ingress: {
      // GKE Gateway: Google's managed load balancer with container-native NEGs, no in-cluster proxy to run.
      kind: ingressKind,
      gatewayClass: input.ingress?.gatewayClass ?? "gke-l7-global-external-managed",
      // Google-managed certificates renew themselves; nothing to rotate or leak.
      tls: {
        mode: input.ingress?.tls?.mode ?? "managed",
        certificates: input.ingress?.tls?.certificates ?? [],
      },
      // A stable address DNS can point at across Gateway re-creations.
      staticIp: input.ingress?.staticIp ?? true,
      // TLS 1.0 and 1.1 are deprecated (RFC 8996).
      minTlsVersion: input.ingress?.minTlsVersion ?? "TLS_1_2",
      // Long enough for in-flight requests to finish when a pod stops being ready during a rollout.
      drainingTimeoutSeconds: input.ingress?.drainingTimeoutSeconds ?? 30,
      requestLogging: {
        // Prod's requests are answerable after an incident (and Cloud Armor's decisions visible); every
        // request by default: lower sampleRate for high-traffic services.
        enabled: input.ingress?.requestLogging?.enabled ?? input.tier === "prod",
        sampleRate: input.ingress?.requestLogging?.sampleRate ?? 1,
      },
      // Only changes of a backend's health are logged: why it left the load balancer, at little cost.
      healthCheckLogging: input.ingress?.healthCheckLogging ?? true,
      acme: input.ingress?.acme
        ? {
            email: input.ingress.acme.email,
            solver: input.ingress.acme.solver ?? "http01",
            staging: input.ingress.acme.staging ?? false,
          }
        : undefined,
    },
    monitoring: {
      backend,
      // kube-prometheus-stack's Prometheus selects PodMonitors labelled with its release name
      // (podMonitorSelectorNilUsesHelmValues: true); the platform names its release kube-prometheus-stack.
      selectorLabels: input.monitoring?.selectorLabels ?? { release: "kube-prometheus-stack" },
      prometheusUrl: input.monitoring?.prometheusUrl,
      // A Service's cluster name says where its Prometheus runs; an outside URL says nothing.
      scraperNamespace:
        input.monitoring?.scraperNamespace ?? serviceNamespaceOf(input.monitoring?.prometheusUrl),
      meshDashboards: input.monitoring?.meshDashboards ?? false,
    },
    crds: { ...input.crds },
    chartSource: {
      mirror: input.chartSource?.mirror?.replace(/\/+$/, ""),
      folder: input.chartSource?.folder,
      digests: input.chartSource?.digests ?? {},
    },
    sizing: resolveSizing(
      input.sizing,
      highAvailability,
      meshHighAvailability,
      meshDefaults[meshKind].proxy,
      d.persistentMonitoring,
    ),
    overrides: {
      charts: Object.fromEntries(
        Object.entries(input.overrides?.charts ?? {}).map(([release, o]) => [
          release,
          { values: o.values, overrideCrdFlags: o.overrideCrdFlags ?? false },
        ]),
      ),
    },
    teams: (input.teams ?? []).map((t) => ({
      name: t.name,
      namespaces: t.namespaces ?? [t.name],
      access: { view: t.access?.view ?? [], edit: t.access?.edit ?? [], admin: t.access?.admin ?? [] },
      quota: {
        requests: {
          cpu: t.quota?.requests?.cpu ?? d.teamQuota.requests.cpu,
          memory: t.quota?.requests?.memory ?? d.teamQuota.requests.memory,
        },
        limits: { memory: t.quota?.limits?.memory ?? d.teamQuota.limits.memory },
        pods: t.quota?.pods ?? d.teamQuota.pods,
      },
      allowFrom: t.allowFrom ?? [],
      ...(t.workloadIdentity ? { workloadIdentity: { roles: t.workloadIdentity.roles ?? [] } } : {}),
    })),
    apps: (input.apps ?? []).map((a) => ({
      ...a,
      // A team's app lands in the team's first namespace; an unknown team is the rules' to refuse.
      namespace:
        a.namespace ??
        (a.team !== undefined
          ? ((input.teams ?? []).find((t) => t.name === a.team)?.namespaces?.[0] ?? a.team)
          : a.name),
      replicas: a.replicas ?? d.replicas,
      expose: a.expose
        ? {
            host: a.expose.host,
            path: a.expose.path ?? "/",
            via: a.expose.via ?? (ingressKind === "none" ? [] : [ingressKind]),
            // GKE's backend service default; long requests must say so.
            timeoutSeconds: a.expose.timeoutSeconds ?? 30,
            healthCheckPath: a.expose.healthCheckPath ?? "/",
            stripPrefix: a.expose.stripPrefix ?? false,
            methods: a.expose.methods,
            securityPolicy: a.expose.securityPolicy,
          }
        : undefined,
      mesh: {
        routes: (a.mesh?.routes ?? []).map((r) => ({
          name: r.name,
          matches: r.matches ?? [],
          // A route without backends shapes the app's own traffic (timeouts, retries, faults).
          backends: (r.backends ?? [{ app: a.name }]).map((b) => ({ ...b, weight: b.weight ?? 1 })),
          timeouts: r.timeouts,
          // One retry: Linkerd's own default for retry.linkerd.io/limit.
          retry: r.retry && { on: r.retry.on, attempts: r.retry.attempts ?? 1, timeout: r.retry.timeout },
          // 500 is what a failing app most often answers, and what Linkerd's fault-injection guide uses.
          fault: r.fault && { percent: r.fault.percent, status: r.fault.status ?? 500 },
        })),
        authorization: a.mesh?.authorization,
      },
    })),
  };
}

/** The tier's plan when the agent runs, the user's choices over it, or null for none. */
function backupPlan(c: Section<"cluster">, d: TierDefaults): BackupPlanSettings | null {
  if (c.backups === null) return null;
  const base = d.backups ?? dailyBackups;
  if (c.backups === undefined) return (c.backupAgent ?? d.backupAgent) ? base : null;
  // Dev has no plan of its own: one asked for there starts from staging's.
  return {
    schedule: c.backups.schedule ?? base.schedule,
    retainDays: c.backups.retainDays ?? base.retainDays,
    deleteLockDays: c.backups.deleteLockDays ?? base.deleteLockDays,
    includeSecrets: c.backups.includeSecrets ?? base.includeSecrets,
    includeVolumeData: c.backups.includeVolumeData ?? base.includeVolumeData,
  };
}

export function clusterNameFor(stack: string): string {
  return `gke-${stack.toLowerCase().replace(/[^a-z0-9-]/g, "-")}`.slice(0, 40).replace(/-+$/, "");
}

/** A region has no zone suffix: `europe-west1` vs `europe-west1-b`. */
export function isRegion(location: string): boolean {
  return /^[a-z]+-[a-z]+[0-9]+$/.test(location);
}

function labelValue(value: string): string {
  return value
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, "-")
    .slice(0, 63);
}

/** The namespace of a URL whose host is a Service's cluster name (`<service>.<namespace>.svc[.<domain>]`). */
export function serviceNamespaceOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  return /^[a-z0-9-]+\.([a-z0-9-]+)\.svc(\.|$)/.exec(new URL(url).hostname)?.[1];
}
