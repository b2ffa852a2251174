import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ChartContext } from "./helmRelease";
import { PlatformNamespace, meshedPodSecurity, type MeshSettings } from "../manifests";
import { deployChart, newChart } from "./cdk8sBridge";
import { deepMerge, pinnedRelease, type Values } from "./helmRelease";

export interface IngressControllerArgs {
  readonly mesh: MeshSettings;
  readonly charts: ChartContext;
  readonly provider: k8s.Provider;
  /** cert-manager: certificates for hosts (and ingress-nginx's webhook) come from it. */
  readonly certManager: pulumi.Resource;
  /** Traefik's own router answers ACME HTTP-01 challenges (cert-manager's solver Ingress) on port 80. */
  readonly acmeHttp01: boolean;
  /** The mesh's injector: the controller's pods are meshed by their own metadata, so it must exist first. */
  readonly injector?: pulumi.Resource;
}

/**
 * Traefik values for the mesh. With Linkerd, Traefik is meshed normally (linkerd.io/inject: enabled)
 * and routes to Service cluster IPs (nativeLB), so its proxy resolves each Service and balances per
 * request, with mTLS to the app. This is the integration Linkerd's 2.16 docs describe and its
 * maintainers prefer (linkerd2#6157): no ingress mode, so no l5d-dst-override header that a client
 * could set (the open relay of ingress mode), and no skipped outbound 443.
 */
export function traefikValues(args: Pick<IngressControllerArgs, "mesh" | "acmeHttp01">): Values {
  const meshed = args.mesh.kind !== "none";
  return deepMerge(
    {
      // Explicit classes only: a default class would capture GCE Ingresses during a migration.
      ingressClass: { enabled: true, isDefaultClass: false, name: "traefik" },
      providers: {
        // Send to the Service's cluster IP, not to pod endpoints, so the mesh (not Traefik) balances.
        kubernetesCRD: { nativeLBByDefault: meshed },
        kubernetesIngress: { nativeLBByDefault: meshed },
      },
      ports: {
        web: {
          http: { redirections: { entryPoint: { to: "websecure", scheme: "https", permanent: true } } },
          // Lets routers other than Traefik's own ACME resolver (here cert-manager's HTTP-01 solver Ingress)
          // answer /.well-known/acme-challenge; Let's Encrypt follows the HTTPS redirect for the rest.
          ...(args.acmeHttp01 ? { allowACMEByPass: true } : {}),
        },
      },
      // Keep the client's IP and skip the extra node hop of the cluster-wide policy.
      service: { spec: { externalTrafficPolicy: "Local" } },
    },
    // Entrypoints (8000, 8443) take client traffic directly, keeping client IPs; outbound is meshed.
    meshedControllerPod(args.mesh, "deployment", "8000,8443"),
  );
}

/**
 * Chart values, under the chart's pod key, that mesh a controller's outbound traffic only: its
 * inbound ports take clients from outside the mesh. Linkerd skips `skipInboundPorts`; Istio
 * intercepts no inbound port. Nothing without a mesh.
 */
function meshedControllerPod(mesh: MeshSettings, podKey: string, skipInboundPorts: string): Values {
  if (mesh.kind === "linkerd") {
    return {
      [podKey]: {
        podAnnotations: {
          "linkerd.io/inject": "enabled",
          "config.linkerd.io/skip-inbound-ports": skipInboundPorts,
        },
      },
    };
  }
  if (mesh.kind === "istio") {
    return {
      [podKey]: {
        // The injection webhook's objectSelector matches the label, not an annotation (istio-discovery mutatingwebhook.yaml).
        podLabels: { "sidecar.istio.io/inject": "true" },
        // No inbound interception: under STRICT mTLS it would demand Istio mTLS from internet clients.
        podAnnotations: { "traffic.sidecar.istio.io/includeInboundPorts": "" },
      },
    };
  }
  return {};
}

/**
 * ingress-nginx values for the mesh. The controller pod is meshed through its own annotations, not
 * the namespace, so nothing else in the namespace is; the admission webhook's certificate comes from
 * cert-manager, so the chart renders no hook Jobs that a mesh could keep from finishing.
 */
export function ingressNginxValues(args: Pick<IngressControllerArgs, "mesh">): Values {
  return deepMerge(
    {
      controller: {
        ingressClassResource: { name: "nginx" },
        // One upstream per Service (its cluster IP): the mesh balances requests, not NGINX.
        config: { "service-upstream": "true" },
        service: { externalTrafficPolicy: "Local" },
        admissionWebhooks: { certManager: { enabled: true } },
      },
    },
    // Client traffic (80, 443) and the API server's webhook calls (8443) are not mesh traffic.
    meshedControllerPod(args.mesh, "controller", "80,443,8443"),
  );
}

function controllerNamespace(
  name: string,
  chartId: string,
  args: IngressControllerArgs,
  parent: pulumi.Resource,
  retainOnDelete: boolean,
) {
  const chart = newChart(chartId);
  new PlatformNamespace(chart, "namespace", {
    name,
    mesh: args.mesh,
    // The controller pod is meshed by its own annotation; its init container needs what the mesh needs.
    podSecurity: args.mesh.kind === "none" ? "restricted" : meshedPodSecurity(args.mesh),
  });
  return [...deployChart(chartId, chart, { provider: args.provider, parent, retainOnDelete }).values()];
}

/**
 * The controllers' mesh identities, which authorization rules let through to exposed apps. Both charts
 * name their service account after the release's full name, and with a release named like the chart
 * that is the release name (traefik `serviceAccount.name: ""`, ingress-nginx `serviceAccount.create`).
 */
export const ingressControllerIdentities = {
  traefik: { namespace: "traefik", serviceAccount: "traefik" },
  "ingress-nginx": { namespace: "ingress-nginx", serviceAccount: "ingress-nginx" },
} as const;

/** Traefik (pinned 41.3.0: its crds/ holds only Traefik's own CRDs, no Gateway API since 40.2.0). */
export class Traefik extends pulumi.ComponentResource {
  readonly release: k8s.helm.v3.Release;
  readonly namespace = ingressControllerIdentities.traefik.namespace;

  constructor(name: string, args: IngressControllerArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:addons:Traefik", name, {}, opts);
    // Retained like the release, which owns Traefik's CRDs.
    const ns = controllerNamespace(this.namespace, `${name}-ns`, args, this, true);
    this.release = pinnedRelease({
      chart: "traefik",
      name: ingressControllerIdentities.traefik.serviceAccount,
      namespace: this.namespace,
      values: traefikValues(args),
      charts: args.charts,
      provider: args.provider,
      parent: this,
      dependsOn: [...ns, ...(args.injector ? [args.injector] : [])],
    });
    this.registerOutputs({});
  }
}

/** ingress-nginx, retired upstream in March 2026: for existing users, never the default. */
export class IngressNginx extends pulumi.ComponentResource {
  readonly release: k8s.helm.v3.Release;
  readonly namespace = ingressControllerIdentities["ingress-nginx"].namespace;

  constructor(name: string, args: IngressControllerArgs, opts?: pulumi.ComponentResourceOptions) {
    super("gke-mesh-platform:addons:IngressNginx", name, {}, opts);
    const ns = controllerNamespace(this.namespace, `${name}-ns`, args, this, false);
    this.release = pinnedRelease({
      chart: "ingressNginx",
      name: ingressControllerIdentities["ingress-nginx"].serviceAccount,
      namespace: this.namespace,
      values: ingressNginxValues(args),
      charts: args.charts,
      provider: args.provider,
      parent: this,
      // Its webhook certificate is a cert-manager Certificate; its pod is meshed by the injector.
      dependsOn: [...ns, args.certManager, ...(args.injector ? [args.injector] : [])],
    });
    this.registerOutputs({});
  }
}
