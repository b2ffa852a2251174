import { ApiObject } from "cdk8s";
import { Construct } from "constructs";
import { FaultInjector, faultInjectorName, pathMatch } from "../../manifests";
import { istioFacts } from "../../versions";
import { unmeshedNetwork, type AccessProps, type MeshNetwork, type MeshPolicy } from "../mesh";
import { istioTrustDomain } from "./manifests";

/** Istio's east-west policy: one ALLOW AuthorizationPolicy per app, whose rules Istio ORs itself. */

const istioSecurityVersion = "security.istio.io/v1";

/** Istio's form of a path match: exact, or a prefix with a trailing `*` (AuthorizationPolicy `paths`). */
function istioPaths(path: string): string[] {
  const m = pathMatch(path);
  if (m.type === "Exact") return [m.value];
  return m.value === "/" ? ["/*"] : [m.value, `${m.value}/*`];
}

function istioAccess(scope: Construct, props: AccessProps): void {
  const trustDomain = istioTrustDomain;
  new ApiObject(scope, "policy", {
    apiVersion: istioSecurityVersion,
    kind: "AuthorizationPolicy",
    metadata: { name: props.name, namespace: props.namespace },
    spec: {
      selector: { matchLabels: props.podSelector },
      action: "ALLOW",
      rules: props.grants.map((g) => {
        const principals = g.callers.flatMap((c) =>
          c.kind === "identity" ? [`${trustDomain}/ns/${c.namespace}/sa/${c.serviceAccount}`] : [],
        );
        // A source's namespaces match the namespace in its mTLS identity (AuthorizationPolicy Source.namespaces).
        const namespaces = g.callers.flatMap((c) => (c.kind === "namespace" ? [c.namespace] : []));
        const ipBlocks = [...new Set(g.callers.flatMap((c) => (c.kind === "network" ? c.cidrs : [])))];
        const from = [
          ...(principals.length > 0 ? [{ source: { principals } }] : []),
          ...(namespaces.length > 0 ? [{ source: { namespaces } }] : []),
          ...(ipBlocks.length > 0 ? [{ source: { ipBlocks } }] : []),
        ];
        const operation = {
          methods: g.methods,
          paths: g.paths?.flatMap(istioPaths),
        };
        return {
          from,
          to: operation.methods || operation.paths ? [{ operation }] : undefined,
        };
      }),
    },
  });
}

/**
 * What a NetworkPolicy lets in for Istio. Sidecars: meshed calls arrive on the port called (the
 * sidecar captures it inside the pod), kubelet's rewritten probes reach pilot-agent from the node, and
 * Prometheus scrapes the merged metrics on 15020. Ambient: meshed calls, a meshed Prometheus's scrapes
 * included, arrive on ztunnel's HBONE port, and kubelet's probes from istio-cni's SNAT address. istiod
 * and ztunnel never dial a pod.
 */
function istioNetwork(ambient: boolean): MeshNetwork {
  return ambient
    ? {
        ...unmeshedNetwork,
        meshedCallPorts: [istioFacts.hbonePort],
        probeSources: [istioFacts.probeSnatAddress],
      }
    : { ...unmeshedNetwork, proxyScrapePorts: [istioFacts.proxyMetricsPort] };
}

/** Istio's policy for the sidecar data plane; ambient needs waypoints for HTTP rules. */
export function istioPolicy(ambient: boolean): MeshPolicy {
  return {
    network: () => istioNetwork(ambient),
    unsupported: ambient
      ? 'mesh.dataplane is "ambient": there, HTTP routes and per-request authorization run in waypoint proxies, which the platform does not deploy'
      : undefined,
    retriesUnsupported: {
      reason: `it reads them only from the HTTPRoute "retry" field, which is in the Gateway API experimental channel, and the cluster serves the standard channel`,
      fix: "remove it; Istio's default retry policy (two retries of failed connections and 503s) still applies",
    },
    // pilot/pkg/config/kube/gateway/conversion.go at 1.30.3: without a route retry, a rule's
    // backendRequest becomes the VirtualService's whole timeout, replacing `request`.
    backendRequestUnsupported: {
      reason:
        "without a route retry (which Istio reads only from the experimental channel), Istio applies it as the whole request's timeout, replacing timeouts.request",
      fix: "remove timeouts.backendRequest and bound the request with timeouts.request",
    },
    retryAnnotations: () => {
      throw new Error("retries are built for Linkerd only; the config rules refuse them on Istio");
    },
    access: (scope, id, props) => istioAccess(new Construct(scope, id), props),
    denyByDefaultAnnotations: {},
    // An ALLOW-nothing policy: an AuthorizationPolicy with an empty spec.
    denyByDefault(scope, id, props) {
      new ApiObject(scope, `${id}-allow-nothing`, {
        apiVersion: istioSecurityVersion,
        kind: "AuthorizationPolicy",
        metadata: { name: "deny-by-default", namespace: props.namespace },
        spec: {},
      });
    },
    faultInjector(scope, id, props) {
      const injector = new FaultInjector(scope, id, props);
      const name = faultInjectorName(props.status);
      const labels = { "app.kubernetes.io/name": name };
      // Where the namespace denies by default, any meshed caller still reaches the injector.
      new ApiObject(injector, "access", {
        apiVersion: istioSecurityVersion,
        kind: "AuthorizationPolicy",
        metadata: { name, namespace: props.namespace, labels },
        spec: {
          selector: { matchLabels: labels },
          action: "ALLOW",
          rules: [{ from: [{ source: { principals: ["*"] } }] }],
        },
      });
    },
  };
}
