import type { SelectorSpec } from "../manifests/selectors";
import type { MeshKind, PodMetadata } from "./mesh";

/**
 * The contract of a mesh's admission and inbound-policy models (`MeshAdmission`, one per mesh in
 * lib/meshes/<mesh>/admission.ts), and the objects they read: what the checks (the render's invariants,
 * the policy pack, the cluster tier, the doctor) ask of a mesh. The constructs never load a model.
 */

/** A pod template's and its namespace's metadata, as an admission webhook sees them. */
export interface AdmittedPod {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly namespaceLabels: Readonly<Record<string, string>>;
  readonly namespaceAnnotations: Readonly<Record<string, string>>;
  /** The workload's name, which some injectors write into labels. */
  readonly workload: string;
  /** The workload's kind (Deployment, StatefulSet, DaemonSet, Job, CronJob, ...). */
  readonly workloadKind: string;
}

/** A container the injector adds, as much of it as the cluster tier's invariants read. */
export interface InjectedContainer {
  readonly name: string;
  /** Ports the container declares. */
  readonly ports: readonly { readonly name: string; readonly containerPort: number }[];
  /** Ports it serves without declaring them, which a scrape by port number still reaches. */
  readonly listens?: readonly number[];
  readonly resources: {
    readonly requests: Readonly<Record<string, string>>;
    readonly limits: Readonly<Record<string, string>>;
  };
}

/** What a mesh's proxy injector adds to a pod. */
export interface InjectedProxy {
  /** Containers, and init containers (native sidecars are init containers that keep running). */
  readonly containers: readonly InjectedContainer[];
  readonly initContainers: readonly InjectedContainer[];
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

/** An object of the set a cluster receives, as the admission models read it. */
export interface AdmissionObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name: string;
    readonly namespace?: string;
    readonly labels?: Readonly<Record<string, string>>;
  };
  readonly [key: string]: unknown;
}

/** A monitor's scrape of one pod's port, as the mesh sees it arrive. */
export interface MeshScrape {
  readonly pod: AdmittedPod;
  /** The pod's namespace. */
  readonly namespace: string;
  /** A sidecar of this mesh was injected. */
  readonly sidecar: boolean;
  /** The mesh's node proxy captures the pod (Istio ambient). */
  readonly captured: boolean;
  /** The port scraped: a name, a number, or every declared port. */
  readonly port: string | number | undefined;
  /** Its number, where the pod declares it (or it is one). */
  readonly portNumber?: number;
  /** The path scraped. */
  readonly path: string;
  /** The scraper is in the mesh; undefined where it is not in the set (an existing Prometheus). */
  readonly scraperInMesh: boolean | undefined;
  /** Every object in the set: the mesh's mTLS policies among them. */
  readonly objects: readonly AdmissionObject[];
}

/** A component of a mesh that reads Secrets, as the cluster tier tells its pods apart. */
export interface MeshSecretReader {
  /** For messages: the component, and where it reads when not everywhere. */
  readonly component: string;
  /** The chart that runs it. */
  readonly chart: string;
  /** The pod label, and its value, that tell its pods from the chart's others. */
  readonly podLabel: readonly [string, string];
  /** It reads only the Secrets of its own namespace (a Role, not a ClusterRole). */
  readonly ownNamespaceOnly: boolean;
  /** What it reads, and why it is accepted, naming the chart's RBAC at the pinned tag. */
  readonly reason: string;
}

/**
 * Kubelet's HTTP probe of one container of a pod that gets the mesh's proxy or is captured by its node
 * proxy: a plain-text `GET` without a mesh identity, from the node.
 */
export interface MeshProbe {
  readonly pod: AdmittedPod;
  /** The pod's namespace. */
  readonly namespace: string;
  /** A sidecar of this mesh is asked for. */
  readonly sidecar: boolean;
  /** The mesh's node proxy captures the pod (Istio ambient). */
  readonly captured: boolean;
  /** The probed port's name, where the container declares one for it. */
  readonly portName?: string;
  /** The probed port's number, where the probe gives it or the container declares the name. */
  readonly portNumber?: number;
  /** The path probed. */
  readonly path: string;
  /** Every object in the set: the mesh's policy objects and control plane among them. */
  readonly objects: readonly AdmissionObject[];
  /** Helm values of the control planes serving the pod (`servingControlPlanes`); empty for the chart's defaults. */
  readonly controlPlanes: readonly Readonly<Record<string, unknown>>[];
}

/** A caller a mesh's policy lets into pods: its namespace (a mesh identity's) or its address range. */
export type MeshSource = { readonly namespace: string } | { readonly cidr: string };

/** One caller a mesh policy object lets into pods from another namespace or from outside the cluster. */
export interface MeshGrant {
  /** The mesh object at fault if the caller is dropped before the mesh sees it. */
  readonly object: AdmissionObject;
  /** The mesh object that lets it in, for the message. */
  readonly by: string;
  readonly namespace: string;
  /** Labels of the pods it reaches (all of the namespace's: empty). */
  readonly podLabels: Readonly<Record<string, unknown>>;
  readonly source: MeshSource;
  /** Ports the calls arrive on; a NetworkPolicy must admit every one. */
  readonly ports: readonly (number | string)[];
}

/**
 * A mesh's admission, modelled where the platform's crossings depend on it: which mutating webhook is
 * its injector, which pods ask for a proxy, which the injector injects, and what it adds. Each value
 * names the injector's source at the pinned tag.
 */
export interface MeshAdmission {
  readonly mesh: MeshKind;
  /** For messages: "Linkerd", "Istio". */
  readonly title: string;
  /** The mesh's injection webhook, by the webhook's name in its MutatingWebhookConfiguration. */
  isInjectionWebhook(webhookName: string): boolean;
  /** For a pod no installed injector selects: how its injectors tell pods apart, where one is not all. */
  readonly injectorHint?: string;
  /** The pod's or its namespace's metadata asks for this mesh's proxy. */
  asksForProxy(pod: AdmittedPod): boolean;
  /** Called by the injection webhook for this pod, the injector adds a proxy. */
  injects(pod: AdmittedPod): boolean;
  /**
   * Of the control planes' Helm values (the releases of `proxyConfigChart`), those whose injector serves
   * the pod; all of them where none is told apart.
   */
  servingControlPlanes(
    pod: AdmittedPod,
    controlPlanes: readonly Readonly<Record<string, unknown>>[],
  ): readonly Readonly<Record<string, unknown>>[];
  /** What the proxy adds, given the control plane's Helm values (proxy resources, native sidecars). */
  proxy(pod: AdmittedPod, controlPlaneValues: Readonly<Record<string, unknown>>): InjectedProxy;
  /** The chart whose release values configure the injected proxy (`linkerd-control-plane`, `istiod`). */
  readonly proxyConfigChart: string;
  /** Charts that run the mesh's control plane, which must survive a node drain in production. */
  readonly controlPlaneCharts: readonly string[];
  /** Charts whose pods are parts of the mesh that monitoring must scrape (control plane, ztunnel). */
  readonly scrapedCharts: readonly string[];
  /**
   * Labels the injector writes on a meshed pod naming its owner, one per kind of workload; a pod carries
   * the one of its owner's kind. Empty where the injector writes none.
   */
  readonly ownerLabels: readonly string[];
  /**
   * Metadata cert-manager's ACME HTTP-01 solver pod carries for this mesh on its own, whatever its
   * Issuer's pod template says.
   */
  readonly acmeSolverDefaults: PodMetadata;
  /**
   * The mesh's components whose pinned charts grant them Secrets with no value that narrows it, which
   * the platform accepts as readers of CA keys (docs/safety.md, "Who may read a CA key").
   */
  readonly secretReaders: readonly MeshSecretReader[];
  /** The injected proxy's container, which serves the proxy's metrics. */
  readonly proxyContainer: string;
  /**
   * The mesh's monitors of every namespace for the proxies of workloads users add later, as `Kind name`:
   * a render may have no such workload yet, so they are judged by the proxies they must cover.
   */
  readonly proxyMonitors: readonly string[];
  /**
   * Objects the mesh's controllers write into a namespace once its charts are installed, as
   * `Kind namespace/name`, so pods may mount them though no template creates them.
   */
  writtenInto(namespace: string, installedCharts: ReadonlySet<string>): readonly string[];
  /** The chart of the mesh's node proxy, through which pods join without a sidecar (Istio ambient: ztunnel). */
  readonly nodeProxyChart?: string;
  /** The node proxy captures the pod: its namespace or the pod itself is enrolled, and not opted out. */
  capturedByNodeProxy(pod: AdmittedPod): boolean;
  /** Why the mesh refuses a monitor's scrape, or undefined where it lets it through. */
  scrapeRefusal(scrape: MeshScrape): string | undefined;
  /** Why the mesh refuses kubelet's probe, or undefined where it lets it through. */
  probeRefusal(probe: MeshProbe): string | undefined;
  /**
   * The callers this mesh's policy objects among `objects` let in from another namespace, or from a range
   * `external` says is outside the cluster, and the ports their calls arrive on.
   */
  grants(objects: readonly AdmissionObject[], external: (cidr: string) => boolean): readonly MeshGrant[];
  /**
   * Where `object` is one of this mesh's that selects pods to guard one of their ports (Linkerd's Server),
   * its selector and port; undefined for any other, and where the chart rendering it (`chart`) does so
   * whatever its values, for a component the platform turns off.
   */
  servedPort(
    object: AdmissionObject,
    chart: string | undefined,
  ): { readonly podSelector?: SelectorSpec; readonly port?: string | number } | undefined;
  /** This mesh's policy objects among `objects` that let every address in, and how. */
  openAccess(
    objects: readonly AdmissionObject[],
  ): readonly { readonly object: AdmissionObject; readonly message: string }[];
}
