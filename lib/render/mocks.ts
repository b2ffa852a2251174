import * as pulumi from "@pulumi/pulumi";

/**
 * Offline stand-ins for what the cloud computes. Values derivable from inputs (GCP resource ids,
 * service account emails) are derived; values only known after `pulumi up` (endpoints, IPs, the CA,
 * the project number) are explicit placeholders, so a render never shows `undefined`. A placeholder
 * has no `: `: one that reaches a chart's values (an existing cluster's ranges) still templates as YAML.
 */
export function placeholder(what: string): string {
  return `<known after deploy, ${what}>`;
}

type Inputs = Record<string, unknown>;

/** What Pulumi's auto-naming makes of a resource without a `name`: its resource name and a random suffix. */
export function autoName(resourceName: string): string {
  return `${resourceName}-${placeholder("random suffix")}`;
}
type Computed = (name: string, inputs: Inputs) => { id?: string; outputs?: Inputs };

const str = (v: unknown, fallback: string): string => (typeof v === "string" ? v : fallback);

/** Where Google creates each API's service agent (cloud.google.com/iam/docs/service-agents). */
const serviceAgentDomains: Record<string, string> = {
  "container.googleapis.com": "container-engine-robot.iam.gserviceaccount.com",
  "gkebackup.googleapis.com": "gcp-sa-gkebackup.iam.gserviceaccount.com",
};

/** The cluster's endpoints config as GKE returns it: the inputs, and the DNS endpoint's name. */
function withDnsEndpoint(config: unknown, endpoint: string): Inputs {
  const c = (config ?? {}) as Inputs;
  return { ...c, dnsEndpointConfig: { ...((c.dnsEndpointConfig ?? {}) as Inputs), endpoint } };
}

/** Outputs per type token that the provider computes on create. */
const computed: Record<string, Computed> = {
  "gcp:compute/network:Network": (name, i) => ({
    id: `projects/${str(i.project, "<project>")}/global/networks/${str(i.name, name)}`,
    outputs: {
      selfLink: `https://www.googleapis.com/compute/v1/projects/${str(i.project, "<project>")}/global/networks/${str(i.name, name)}`,
    },
  }),
  "gcp:compute/subnetwork:Subnetwork": (name, i) => ({
    id: `projects/${str(i.project, "<project>")}/regions/${str(i.region, "<region>")}/subnetworks/${str(i.name, name)}`,
  }),
  "gcp:kms/keyRing:KeyRing": (name, i) => {
    const ringName = str(i.name, autoName(name));
    return {
      id: `projects/${str(i.project, "<project>")}/locations/${str(i.location, "<location>")}/keyRings/${ringName}`,
      outputs: { name: ringName },
    };
  },
  "gcp:kms/cryptoKey:CryptoKey": (name, i) => ({
    id: `${str(i.keyRing, "<keyRing>")}/cryptoKeys/${str(i.name, name)}`,
  }),
  "gcp:serviceaccount/account:Account": (name, i) => {
    const email = `${str(i.accountId, name)}@${str(i.project, "<project>")}.iam.gserviceaccount.com`;
    return {
      id: `projects/${str(i.project, "<project>")}/serviceAccounts/${email}`,
      outputs: { email, member: `serviceAccount:${email}` },
    };
  },
  "gcp:container/cluster:Cluster": (name, i) => ({
    id: `projects/${str(i.project, "<project>")}/locations/${str(i.location, "<location>")}/clusters/${str(i.name, name)}`,
    outputs: {
      endpoint: placeholder(`${name} endpoint`),
      controlPlaneEndpointsConfig: withDnsEndpoint(
        i.controlPlaneEndpointsConfig,
        placeholder(`${name} DNS endpoint`),
      ),
      masterAuth: { clusterCaCertificate: placeholder(`${name} CA certificate`) },
      masterVersion: placeholder(`${name} control plane version`),
    },
  }),
  "gcp:projects/serviceIdentity:ServiceIdentity": (_name, i) => {
    const domain = serviceAgentDomains[str(i.service, "")];
    const email = domain
      ? `service-${placeholder(`project number of ${str(i.project, "the project")}`)}@${domain}`
      : placeholder(`service agent of ${str(i.service, "the service")}`);
    return { outputs: { email, member: `serviceAccount:${email}` } };
  },
  "gcp:compute/globalAddress:GlobalAddress": (name) => ({
    outputs: { address: placeholder(`${name} IP address`) },
  }),
  "gcp:compute/address:Address": (name) => ({ outputs: { address: placeholder(`${name} IP address`) } }),
};

/** Invokes (data sources) the platform calls, answered offline. */
const invokes: Record<string, (inputs: Inputs) => Inputs> = {
  "gcp:organizations/getProject:getProject": (i) => ({
    projectId: str(i.projectId, "<project>"),
    number: placeholder(`project number of ${str(i.projectId, "the project")}`),
  }),
  "gcp:container/getCluster:getCluster": (i) => ({
    name: i.name,
    location: i.location,
    project: i.project,
    endpoint: placeholder(`${str(i.name, "cluster")} endpoint`),
    masterAuths: [{ clusterCaCertificate: placeholder(`${str(i.name, "cluster")} CA certificate`) }],
    clusterIpv4Cidr: placeholder(`${str(i.name, "cluster")} pod range`),
    servicesIpv4Cidr: placeholder(`${str(i.name, "cluster")} Service range`),
  }),
};

/** Everything the mock runtime saw of one custom resource: its resolved inputs. */
export interface MockedResource {
  readonly type: string;
  readonly name: string;
  readonly inputs: Inputs;
}

/**
 * Mocks that record resolved inputs and answer with derived ids and placeholder outputs. A remote
 * component (a helm.v4.Chart) arrives here too, as `custom: false` with its inputs and its transforms;
 * its children never do (its provider registers them at deploy), so the render records it as a leaf
 * and runs its transforms itself (lib/render/run.ts `remoteChildren`).
 */
export class OfflineMocks implements pulumi.runtime.Mocks {
  /** Resolved inputs per `type::name`. */
  readonly resources = new Map<string, MockedResource>();

  /**
   * @param record whether to keep each resource's resolved inputs for the review files; off, the
   * mocks answer as the cloud would and keep nothing, as `pulumi up` keeps nothing of its own.
   */
  constructor(private readonly record = true) {}

  newResource(args: pulumi.runtime.MockResourceArgs): pulumi.runtime.MockResourceResult {
    const inputs = (args.inputs ?? {}) as Inputs;
    if (args.id) {
      // A read (`.get`) of something that exists only after deploy: its id and a placeholder status.
      return { id: args.id, state: { ...inputs, ...readState(args.type, args.id) } };
    }
    if (this.record) {
      this.resources.set(`${args.type}::${args.name}`, { type: args.type, name: args.name, inputs });
    }
    const derived = computed[args.type]?.(args.name, inputs) ?? {};
    return {
      id: derived.id ?? defaultId(args.type, args.name, inputs),
      state: { ...inputs, ...derived.outputs },
    };
  }

  call(args: pulumi.runtime.MockCallArgs): pulumi.runtime.MockCallResult {
    const answer = invokes[args.token];
    if (!answer) {
      throw new Error(
        `the offline render has no answer for the data source ${args.token}; add one in lib/render/mocks.ts`,
      );
    }
    return answer((args.inputs ?? {}) as Inputs);
  }
}

function readState(type: string, id: string): Inputs {
  if (type === "kubernetes:core/v1:Service") {
    return { status: { loadBalancer: { ingress: [{ ip: placeholder(`${id} load balancer IP`) }] } } };
  }
  return {};
}

function defaultId(type: string, name: string, inputs: Inputs): string {
  if (type.startsWith("kubernetes:")) {
    const metadata = inputs.metadata as { name?: string; namespace?: string } | undefined;
    const objectName = metadata?.name ?? name;
    return metadata?.namespace ? `${metadata.namespace}/${objectName}` : objectName;
  }
  return name;
}
