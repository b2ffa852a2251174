import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { IngressNginx, Traefik, certManagerNamespace } from "../addons";
import type { PlatformConfig } from "../config";
import { deployChart, inTurn, newChart, objectKey, type CertManagerRef, type MonitoringRef } from "../deploy";
import type { Edge, EdgeArgs } from "../gcp";
import {
  AcmeIssuer,
  Exposed,
  PlatformNamespace,
  SharedGateway,
  type SharedGatewayProps,
  type ExposureContext,
  type Exposure,
  gatewayNamespace,
} from "../manifests";
import type { MeshIngress, MeshPodContract } from "../meshes";
import { meshOfPlan, type Plan } from "../plan";

export { gatewayNamespace };
export const sharedGatewayName = "shared";
export const acmeIssuerName = "letsencrypt";

export interface IngressArgs {
  /**
   * The resolved environment (`resolvePlan`): the ingress kind and its TLS/ACME settings, every app's
   * exposures (which controller or Google load balancer serves each, its hosts and paths), the mesh the
   * controller joins, and the chart source. Required: Ingress routes to the apps of one environment, and
   * the plan is where their exposures are resolved against the ingress kind and the mesh.
   */
  readonly plan: Plan;
  /** The cluster's Kubernetes provider. */
  readonly provider: k8s.Provider;
  /**
   * cert-manager, when Traefik or ingress-nginx serve TLS.
   * @default none: no in-cluster controller nor ACME issuer is deployed
   */
  readonly certManager?: CertManagerRef;
  /**
   * Google's side of the edge, built in stage 1 (edgeArgs).
   * @default none: no shared Gateway, and gce-ingress exposures get no reserved address or SSL policy
   */
  readonly edge?: Edge;
  /**
   * What a meshed pod needs before it starts: the in-cluster controller waits for it.
   * @default nothing to wait for
   */
  readonly meshReady?: readonly pulumi.Resource[];
  /**
   * App namespaces, by name: each app's objects wait for theirs.
   * @default none: the apps' namespaces already exist
   */
  readonly namespaces?: ReadonlyMap<string, pulumi.Resource>;
  /** Where the in-cluster controller's own metrics go. @default not scraped */
  readonly monitoring?: MonitoringRef;
}

function exposuresOf(plan: Plan): Exposure[] {
  return plan.apps.flatMap((a) => (a.exposure ? [a.exposure] : []));
}

/** What Google's edge needs for this environment, or nothing when no app uses it. */
export function edgeArgs(plan: Plan, subnetId?: pulumi.Input<string>): EdgeArgs | undefined {
  const config = plan.config;
  const ing = config.ingress;
  const exposures = exposuresOf(plan);
  const gatewayApps = exposures.filter((e) => e.via.includes("gke-gateway"));
  const gceApps = exposures.filter((e) => e.via.includes("gce-ingress"));
  const dns01 = ing.acme?.solver === "dns01";
  if (gatewayApps.length === 0 && gceApps.length === 0 && !dns01) return undefined;
  return {
    project: config.gcp.project,
    region: config.gcp.region,
    prefix: config.cluster.name,
    minTlsVersion: ing.minTlsVersion,
    gateway:
      gatewayApps.length > 0
        ? {
            gatewayClass: ing.gatewayClass,
            staticIp: ing.staticIp,
            managedHosts:
              ing.tls.mode === "managed" ? [...new Set(gatewayApps.map((e) => e.host))].sort() : [],
            subnetId,
          }
        : undefined,
    gceIngress:
      gceApps.length > 0
        ? { apps: gceApps.map((e) => `${e.namespace}/${e.name}`), staticIp: ing.staticIp }
        : undefined,
    dns01: dns01 ? { certManagerNamespace, certManagerServiceAccount: "cert-manager" } : undefined,
  };
}

/**
 * Everything between the internet and the apps: Google's edge (addresses, SSL policies, managed
 * certificates), the in-cluster controller (Traefik or ingress-nginx) meshed for the environment's
 * mesh, the ACME issuer, the shared Gateway, and for each exposed app the objects each way of exposing
 * it needs. The app's Service, with the one NEG annotation, is its `App`'s. Changing ingress.kind
 * moves every app.
 */
export class Ingress extends pulumi.ComponentResource {
  readonly edge?: Edge;
  readonly controller?: Traefik | IngressNginx;
  /** The Gateway's reserved address, when there is one. */
  readonly gatewayAddress?: pulumi.Output<string>;
  /** The in-cluster controller's load balancer address (Traefik, ingress-nginx). */
  readonly controllerAddress?: pulumi.Output<string>;

  constructor(name: string, args: IngressArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:platform:Ingress", name, {}, opts);
    const { plan, provider } = args;
    const config = plan.config;
    const mesh: MeshPodContract & MeshIngress = meshOfPlan(plan);
    const ing = config.ingress;
    const base = { provider, parent: this };
    const exposures = exposuresOf(plan);
    const gatewayApps = exposures.filter((e) => e.via.includes("gke-gateway"));

    this.edge = args.edge;
    this.gatewayAddress = this.edge?.gatewayAddress;

    // Stage 3: the in-cluster controller and the ACME issuer.
    const cm = args.certManager;
    if ((ing.kind === "traefik" || ing.kind === "ingress-nginx") && cm) {
      const controllerArgs = {
        mesh: plan.config.mesh,
        charts: plan.charts,
        provider,
        certManager: cm,
        acmeHttp01: ing.acme?.solver === "http01",
        meshReady: args.meshReady,
        sizing: config.sizing.ingressController,
        monitoring: args.monitoring,
        // Traefik's RBAC reaches the namespaces of the apps it routes to, and no others.
        routeNamespaces: new Map(
          exposures
            .filter((e) => e.via.includes("traefik"))
            .map((e) => {
              const ns = args.namespaces?.get(e.namespace);
              // Every app's namespace is the plan's (Plan.namespaces), created before the ingress.
              if (!ns) throw new Error(`the app namespace ${e.namespace} has no Namespace resource`);
              return [e.namespace, ns] as const;
            }),
        ),
      };
      this.controller =
        ing.kind === "traefik"
          ? new Traefik(`${name}-traefik`, controllerArgs, { parent: this })
          : new IngressNginx(`${name}-ingress-nginx`, controllerArgs, { parent: this });
      // The chart's LoadBalancer Service (Traefik: `traefik`; ingress-nginx: `ingress-nginx-controller`), read once it exists.
      const service = ing.kind === "traefik" ? "traefik/traefik" : "ingress-nginx/ingress-nginx-controller";
      this.controllerAddress = k8s.core.v1.Service.get(`${name}-controller-service`, service, {
        provider,
        parent: this,
        dependsOn: [this.controller.release],
      }).status.apply(
        (s) => s?.loadBalancer?.ingress?.[0]?.ip ?? s?.loadBalancer?.ingress?.[0]?.hostname ?? "",
      );
    }
    let issuer: pulumi.Resource[] = [];
    if (ing.acme && cm) {
      const chart = newChart("acme");
      new AcmeIssuer(chart, "issuer", {
        name: acmeIssuerName,
        email: ing.acme.email,
        staging: ing.acme.staging,
        solver:
          ing.acme.solver === "dns01"
            ? { dns01Project: config.gcp.project }
            : {
                http01IngressClass: ing.kind === "ingress-nginx" ? "nginx" : "traefik",
                // Traefik reads no IngressClass (its namespaced RBAC, lib/addons/ingressControllers.ts).
                http01ClassAnnotation: ing.kind === "traefik",
                solverPod: mesh.acmeSolverPod,
              },
      });
      issuer = [
        ...deployChart(`${name}-acme`, chart, {
          ...base,
          dependsOn: [cm.certManager, ...(this.edge?.dns01Resources ?? [])],
        }).values(),
      ];
    }

    // Stage 4: the shared Gateway.
    let gateway: pulumi.Resource | undefined;
    if (gatewayApps.length > 0 && this.edge?.gatewaySslPolicy) {
      const chart = newChart("gateway");
      // No pod runs here; the mesh's webhooks have nothing to do with its routes (Mesh.unmanagedNamespaceLabels).
      new PlatformNamespace(chart, "namespace", {
        name: gatewayNamespace,
        labels: mesh.unmanagedNamespaceLabels,
      });
      new SharedGateway(chart, "gateway", {
        name: sharedGatewayName,
        namespace: gatewayNamespace,
        gatewayClass: ing.gatewayClass,
        addressName: this.edge.gatewayAddressName,
        tls: gatewayTls(ing.tls, this.edge.gatewayCertificateMap),
        sslPolicy: this.edge.gatewaySslPolicy,
      });
      // The Gateway names its address, certificate map (with its entries) and SSL policy: they exist first.
      const deployed = deployChart(`${name}-gateway`, chart, {
        ...base,
        dependsOn: this.edge.gatewayResources,
      });
      gateway = deployed.get(
        objectKey({ kind: "Gateway", metadata: { namespace: gatewayNamespace, name: sharedGatewayName } }),
      );
    }

    // Stage 5: each app's routes (its Service is the app's own). An app waits only for what its exposure uses.
    const edge: ExposureContext = {
      backend: mesh.ingressBackend,
      gateway: { name: sharedGatewayName, namespace: gatewayNamespace },
      drainingTimeoutSeconds: ing.drainingTimeoutSeconds,
      requestLogSampleRate: ing.requestLogging.enabled ? ing.requestLogging.sampleRate : undefined,
      healthCheckLogging: ing.healthCheckLogging,
      acmeIssuer: ing.acme ? acmeIssuerName : undefined,
      gce: {
        sslPolicy: this.edge?.globalSslPolicy ?? "",
        tls: ing.tls,
        staticIpName: ing.staticIp
          ? (e) => this.edge?.gceAddressNames.get(`${e.namespace}/${e.name}`) ?? ""
          : undefined,
      },
    };
    // Each app's exposure on a turn of its own, as its App's objects are.
    for (const e of exposures)
      inTurn(() => {
        const chart = newChart(`expose-${e.namespace}-${e.name}`);
        new Exposed(chart, "exposed", e, edge);
        const uses = [
          // The Gateway alone (it waits for its namespace): not its redirect route or policy, which no app's object needs.
          ...(e.via.includes("gke-gateway") && gateway ? [gateway] : []),
          ...(e.via.includes("gce-ingress") ? (this.edge?.gceResources ?? []) : []),
          ...(e.via.some((v) => v === "traefik" || v === "ingress-nginx") && this.controller
            ? [this.controller.release, ...issuer]
            : []),
        ];
        const ns = args.namespaces?.get(e.namespace);
        deployChart(`${name}-${e.namespace}-${e.name}`, chart, {
          ...base,
          dependsOn: uses,
          namespaces: ns ? new Map([[e.namespace, ns]]) : undefined,
        });
      });
    this.registerOutputs({ gatewayAddress: this.gatewayAddress, controllerAddress: this.controllerAddress });
  }
}

/** The shared Gateway's TLS: the Edge's certificate map for Google-managed certificates, or the user's. */
function gatewayTls(
  tls: PlatformConfig["ingress"]["tls"],
  certificateMap: string | undefined,
): SharedGatewayProps["tls"] {
  if (tls.mode === "pre-shared") return { mode: "pre-shared", certificates: tls.certificates };
  if (!certificateMap)
    throw new Error(
      "managed Gateway TLS without a certificate map: the Edge creates one per environment with exposed hosts",
    );
  return { mode: "managed", certificateMap };
}
