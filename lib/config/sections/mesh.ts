/** The platform:mesh section: the mesh, its data plane, and Istio's revisions. */
import { z } from "zod";
import { istioVersions } from "../../versions";
import { istioDataplanes, meshKinds } from "../schema";
import { chartDigest, resourceName } from "./fields";

/**
 * An istiod revision: a DNS label short enough for its Service `istiod-<revision>` (63 characters), in
 * Istio's own convention such as `1-30-3`; `default` is the istiod installed without a revision.
 */
const istioRevisionName = z
  .string()
  .regex(
    /^[a-z0-9]([-a-z0-9]{0,54}[a-z0-9])?$/,
    "lowercase letters, digits and '-', such as 1-30-3 or stable, at most 56 characters; default is the istiod without a revision",
  );

/**
 * An istiod revision: its name and Istio version. A version this package pins (`istioVersions`) comes from
 * the chart source; a newer one, for a canary before the package pins it, names where its charts come
 * from and their digests (docs/istio.md, "Canary upgrades").
 */
export const istioRevisionSchema = z.strictObject({
  name: istioRevisionName,
  /** The Istio version, such as 1.30.7: a pinned one, or a newer release with `charts`. */
  version: z.string().regex(/^1\.[0-9]{1,3}\.[0-9]{1,3}$/, `an Istio release such as ${istioVersions[0]}`),
  /** Where a version this package does not pin comes from; not for a pinned version. */
  charts: z
    .strictObject({
      /**
       * The repository of that Istio release's charts. @default Istio's OCI registry
       * (oci://ghcr.io/istio/release/charts), against which Helm checks the digests
       */
      repo: z
        .string()
        .regex(
          /^(oci|https):\/\/[^\s]+$/,
          "an oci:// registry path or https:// Helm repository, such as oci://ghcr.io/istio/release/charts",
        )
        .optional(),
      /** The sha256 digests of that release's `base` and `istiod` charts, which the canary installs. */
      digests: z.strictObject({ base: chartDigest, istiod: chartDigest }),
    })
    .optional(),
});

export const meshSchema = z.strictObject({
  /** Service mesh. @default linkerd */
  kind: z.enum(meshKinds).optional(),
  /**
   * Redirect traffic with the mesh's CNI plugin instead of a privileged init container, so app
   * namespaces enforce baseline (Istio) or restricted (Linkerd) Pod Security. @default true on Standard
   * clusters and with Istio ambient; false on Autopilot (it admits no CNI plugin) and on clusters made
   * elsewhere (they may be Autopilot)
   */
  cni: z.boolean().optional(),
  /** Istio data plane. @default sidecar */
  dataplane: z.enum(istioDataplanes).optional(),
  /** Proxies as native sidecars (Kubernetes 1.29+), which Kubernetes stops when a Job's app exits. @default true */
  nativeSidecars: z.boolean().optional(),
  /**
   * The mesh's control plane with several replicas, anti-affinity and disruption budgets, and a failing
   * injector webhook. @default sizing.highAvailability (true in prod)
   */
  highAvailability: z.boolean().optional(),
  /** The mesh dashboard (linkerd-viz), reading the stack's Prometheus. @default false */
  dashboard: z.boolean().optional(),
  /**
   * Export traces from the proxies and control plane to an OpenTelemetry collector (Linkerd's
   * proxy.tracing; linkerd-jaeger no longer exists). The collector's mesh identity lets proxies verify it.
   */
  tracing: z
    .strictObject({
      /** OTLP gRPC endpoint, host:port, e.g. collector.tracing.svc.cluster.local:4317. */
      collectorEndpoint: z
        .string()
        .regex(/^[a-z0-9.-]+:[0-9]{1,5}$/, "host:port such as collector.tracing.svc.cluster.local:4317"),
      /**
       * The collector's service account and namespace, its identity in the mesh: both are needed (Linkerd's
       * chart refuses tracing without them); the schema leaves them optional so the plan can say why.
       */
      serviceAccount: z.string().min(1).optional(),
      /** The collector's namespace. */
      namespace: z.string().min(1).optional(),
    })
    .optional(),
  /** Istio options. */
  istio: z
    .strictObject({
      /**
       * istiod revisions, each with a pinned Istio version; two during a canary upgrade. The revision
       * `default` is the istiod installed without a revision (release `istiod`, namespaces labelled
       * istio-injection=enabled), which a move to revisions keeps until every namespace has moved
       * (docs/istio.md). Without this, that one istiod at the pinned version.
       */
      revisions: z.array(istioRevisionSchema).min(1).max(2).optional(),
      /** The revision app namespaces are injected by (istio.io/rev; istio-injection for `default`). @default the first revision */
      defaultRevision: istioRevisionName.optional(),
      /** Mesh-wide mTLS. @default STRICT in staging and prod, PERMISSIVE in dev */
      mtls: z.enum(["STRICT", "PERMISSIVE"]).optional(),
      /**
       * How a Google load balancer's traffic, which reaches pods outside the mesh, enters it:
       * `permissive-ports` lets the exposed port accept plain traffic. @default permissive-ports
       */
      loadBalancerTraffic: z.enum(["permissive-ports"]).optional(),
    })
    .optional(),
  /**
   * App namespaces where the mesh refuses every call no authorization rule allows (docs/mesh-policy.md).
   * Probes, metrics scrapes and the app's ingress still get through. @default none
   */
  denyByDefault: z.array(resourceName).min(1).optional(),
  /**
   * During a trust anchor rotation, also trust the previous anchor's certificate: the Secret
   * `linkerd-previous-anchor` (Linkerd, docs/linkerd.md) or `istio-previous-root-ca` (Istio, docs/istio.md),
   * key `tls.crt`, in cert-manager's namespace. @default false
   */
  previousTrustAnchor: z.boolean().optional(),
});
