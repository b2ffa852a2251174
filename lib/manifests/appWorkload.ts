import { ApiObject, App, Chart, Duration, Size } from "cdk8s";
import * as kplus from "cdk8s-plus-27";
import { Construct } from "constructs";
import { PodMonitor, PodMonitoring, type PodMetricsEndpoint } from "./customResources";

export interface AppWorkloadProps {
  readonly name: string;
  readonly namespace: string;
  readonly image: string;
  /** Container port, also the readiness and liveness port. */
  readonly port: number;
  readonly replicas: number;
  /** Annotations of the app's ServiceAccount (the Google service account it acts as). @default none */
  readonly serviceAccountAnnotations?: Readonly<Record<string, string>>;
  /** Readiness and startup path, which the load balancers health-check too. @default / */
  readonly readinessPath?: string;
  /**
   * A path that answers while the process itself works, without asking its dependencies. @default none:
   * no liveness probe, so Kubernetes restarts the container when the process exits; a liveness probe on
   * the readiness path would turn a dependency's outage into restarts of every replica instead of taking
   * them out of the load balancer.
   */
  readonly livenessPath?: string;
  /** Topology spread constraints of its pods (replicated apps across zones and nodes). @default none */
  readonly topologySpread?: readonly Record<string, unknown>[];
  /** Seconds the load balancer drains a backend that left it. @default 30 */
  readonly drainingTimeoutSeconds?: number;
  /** Extra pod template labels and annotations (how the mesh reaches the pod's metrics). @default none */
  readonly podMetadata?: {
    readonly labels: Readonly<Record<string, string>>;
    readonly annotations: Readonly<Record<string, string>>;
  };
}

interface DeploymentJson {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: {
    template: {
      metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
      spec: {
        serviceAccountName?: string;
        containers: {
          lifecycle?: unknown;
          securityContext?: Record<string, unknown>;
          ports?: unknown[];
          livenessProbe?: unknown;
        }[];
        topologySpreadConstraints?: readonly Record<string, unknown>[];
      };
    };
  };
}

/** Seconds a load balancer takes to notice an unready backend: its health check interval (5s) times the unhealthy threshold (2). */
export const loadBalancerDetectionSeconds = 10;

/**
 * How long a pod waits before it stops, and how long Kubernetes lets it take: the load balancer first
 * sees the pod unready (its NEG readiness gate), then drains it, and only then may the app exit.
 */
export function shutdownTiming(drainingTimeoutSeconds: number): {
  preStopSeconds: number;
  gracePeriodSeconds: number;
} {
  const preStopSeconds = drainingTimeoutSeconds + loadBalancerDetectionSeconds;
  // Ten more seconds for the app to finish after SIGTERM.
  return { preStopSeconds, gracePeriodSeconds: preStopSeconds + 10 };
}

/**
 * An app's Deployment (cdk8s-plus-27), secure and rollout-safe by default: non-root, read-only root
 * filesystem, no privilege escalation, all capabilities dropped, RuntimeDefault seccomp; readiness and
 * startup probes, and a liveness probe only on a path that checks the process alone; a preStop delay and grace period that outlast the load balancer's connection
 * draining; surge-only rollouts; and, with more than one replica, a PodDisruptionBudget.
 */
/**
 * The app container's requests and memory limit, and the pods a rollout adds (`maxSurge`): what a
 * team's quota must hold for each app, and what its LimitRange gives containers that ask for nothing.
 */
export const appPodShape = {
  cpuRequestMillis: 100,
  memoryRequestMi: 128,
  memoryLimitMi: 256,
  rolloutSurge: 1,
} as const;

export class AppWorkload extends Construct {
  readonly deployment: ApiObject;

  constructor(scope: Construct, id: string, props: AppWorkloadProps) {
    super(scope, id);
    const labels = { "app.kubernetes.io/name": props.name };
    const path = props.readinessPath ?? "/";
    const timing = shutdownTiming(props.drainingTimeoutSeconds ?? 30);

    // Authored with cdk8s-plus-27 in a scratch chart, then emitted as plain JSON: its 1.27 API types
    // would drop fields newer Kubernetes has, such as the preStop sleep action.
    const authored = new kplus.Deployment(new Chart(new App(), "scratch"), "deployment", {
      metadata: { name: props.name, namespace: props.namespace, labels },
      replicas: props.replicas,
      select: false,
      podMetadata: { labels },
      // Rollouts add a pod before removing one: capacity never drops (cdk8s-plus-27 DeploymentStrategy).
      strategy: kplus.DeploymentStrategy.rollingUpdate({
        maxSurge: kplus.PercentOrAbsolute.absolute(appPodShape.rolloutSurge),
        maxUnavailable: kplus.PercentOrAbsolute.absolute(0),
      }),
      terminationGracePeriod: Duration.seconds(timing.gracePeriodSeconds),
      // The app talks to no Kubernetes API; a mounted token would only be something to steal.
      automountServiceAccountToken: false,
      securityContext: { ensureNonRoot: true, user: 65532, group: 65532 },
      containers: [
        {
          name: "app",
          image: props.image,
          portNumber: props.port,
          securityContext: {
            ensureNonRoot: true,
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            privileged: false,
            user: 65532,
            group: 65532,
          },
          // Requests let the scheduler and autoscaler place the pod; the memory limit stops a leak at the pod.
          resources: {
            cpu: { request: kplus.Cpu.millis(appPodShape.cpuRequestMillis) },
            memory: {
              request: Size.mebibytes(appPodShape.memoryRequestMi),
              limit: Size.mebibytes(appPodShape.memoryLimitMi),
            },
          },
          readiness: kplus.Probe.fromHttpGet(path, {
            port: props.port,
            periodSeconds: Duration.seconds(5),
            failureThreshold: 2,
          }),
          // Up to 150s to start before liveness counts (cdk8s-plus's default startup probe allows 30s).
          startup: kplus.Probe.fromHttpGet(path, {
            port: props.port,
            periodSeconds: Duration.seconds(5),
            failureThreshold: 30,
          }),
          ...(props.livenessPath
            ? {
                liveness: kplus.Probe.fromHttpGet(props.livenessPath, {
                  port: props.port,
                  initialDelaySeconds: Duration.seconds(10),
                  periodSeconds: Duration.seconds(10),
                  failureThreshold: 3,
                }),
              }
            : {}),
        },
      ],
    });
    authored.select(kplus.LabelSelector.of({ labels }));
    const json = ApiObject.of(authored).toJson() as DeploymentJson;
    const pod = json.spec.template;
    // cdk8s-plus's own selection label carries the scratch construct path; the app label selects.
    delete pod.metadata.labels["cdk8s.io/metadata.addr"];
    const extra = props.podMetadata;
    if (extra && Object.keys(extra.labels).length > 0) Object.assign(pod.metadata.labels, extra.labels);
    if (extra && Object.keys(extra.annotations).length > 0)
      pod.metadata.annotations = { ...pod.metadata.annotations, ...extra.annotations };
    // Its own service account: the app's mesh identity, which authorization rules name.
    pod.spec.serviceAccountName = props.name;
    new ApiObject(this, "service-account", {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: {
        name: props.name,
        namespace: props.namespace,
        labels,
        ...(props.serviceAccountAnnotations ? { annotations: { ...props.serviceAccountAnnotations } } : {}),
      },
      automountServiceAccountToken: false,
    });
    const c = pod.spec.containers[0];
    // Not in the 1.27 API: the preStop sleep action (on by default since Kubernetes 1.30), so the image needs no sleep binary.
    c.lifecycle = { preStop: { sleep: { seconds: timing.preStopSeconds } } };
    // Pod Security `restricted`: all capabilities dropped, RuntimeDefault seccomp.
    c.securityContext = {
      ...c.securityContext,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    };
    // Named, so monitors and load balancers can refer to it.
    c.ports = [{ containerPort: props.port, name: "http" }];
    if (props.topologySpread && props.topologySpread.length > 0)
      pod.spec.topologySpreadConstraints = props.topologySpread;
    this.deployment = new ApiObject(this, "deployment", json);

    if (props.replicas > 1) {
      new ApiObject(this, "pdb", {
        apiVersion: "policy/v1",
        kind: "PodDisruptionBudget",
        metadata: { name: props.name, namespace: props.namespace, labels },
        // Node drains and upgrades evict one pod at a time. Not with one replica: a budget of zero would
        // block every drain, and a budget of one protects nothing.
        spec: { maxUnavailable: 1, selector: { matchLabels: labels } },
      });
    }
  }
}

export interface AppMonitorProps {
  readonly name: string;
  readonly namespace: string;
  /** Metrics path. */
  readonly path: string;
  /**
   * The port scraped: the app's named port, or a number a mesh proxy serves (maybe undeclared). A
   * Prometheus Operator keeps only declared ports, so for an undeclared one `rewriteAddress` names the
   * declared container whose target is rewritten to that port. @default "http"
   */
  readonly port?: "http" | number;
  readonly rewriteAddress?: { readonly container: string };
  readonly backend: "prometheus-operator" | "managed-prometheus";
  /** Labels the Prometheus selects PodMonitors by. */
  readonly selectorLabels: Record<string, string>;
}

/** The app's scrape target: a PodMonitor for a Prometheus Operator, or PodMonitoring for Managed Prometheus. */
export class AppMonitor extends Construct {
  constructor(scope: Construct, id: string, props: AppMonitorProps) {
    super(scope, id);
    const labels = { "app.kubernetes.io/name": props.name };
    if (props.backend === "prometheus-operator") {
      new PodMonitor(this, "monitor", {
        metadata: {
          name: props.name,
          namespace: props.namespace,
          labels: { ...labels, ...props.selectorLabels },
        },
        spec: {
          selector: { matchLabels: labels },
          podMetricsEndpoints: [operatorEndpoint(props)],
        },
      });
    } else {
      new PodMonitoring(this, "monitor", {
        metadata: { name: props.name, namespace: props.namespace, labels },
        spec: {
          selector: { matchLabels: labels },
          endpoints: [{ port: props.port ?? "http", path: props.path, interval: "30s" }],
        },
      });
    }
  }
}

/**
 * A PodMonitor endpoint for the app: its named port, or, for a port the proxy serves undeclared, the
 * proxy container's one target rewritten to that port (how Istio's envoy-stats-monitor reaches 15020,
 * samples/addons/extras/prometheus-operator.yaml at 1.30.3).
 */
function operatorEndpoint(props: AppMonitorProps): PodMetricsEndpoint {
  const port = props.port ?? "http";
  if (typeof port === "string") return { port, path: props.path, interval: "30s" };
  if (!props.rewriteAddress)
    throw new Error(`a Prometheus Operator reaches port ${port} only through a declared container's target`);
  return {
    path: props.path,
    interval: "30s",
    relabelings: [
      {
        action: "keep",
        sourceLabels: ["__meta_kubernetes_pod_container_name"],
        regex: props.rewriteAddress.container,
      },
      // IPv6 pod addresses in brackets, IPv4 as they are.
      {
        action: "replace",
        sourceLabels: ["__meta_kubernetes_pod_ip"],
        regex: "(([A-Fa-f0-9]{1,4}::?){1,7}[A-Fa-f0-9]{1,4})",
        replacement: `[$1]:${port}`,
        targetLabel: "__address__",
      },
      {
        action: "replace",
        sourceLabels: ["__meta_kubernetes_pod_ip"],
        regex: "((([0-9]+?)(\\.|$)){4})",
        replacement: `$1:${port}`,
        targetLabel: "__address__",
      },
    ],
  };
}
