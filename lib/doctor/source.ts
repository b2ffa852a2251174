import type { KubeObject } from "../cluster";
import { at, groupOf, isObj, str } from "./objects";
import type { ResourceType } from "./resources";

/** Where the doctor reads a cluster from: kubectl on a live cluster (kubectl.ts), or objects in memory. */
export interface KubeSource {
  /** Every object of a resource type, in every namespace. */
  list(type: ResourceType): Promise<ListOutcome>;
  /** The certificates a Secret holds (its type, tls.crt and ca.crt, as PEM): never its key. */
  secretCertificates(namespace: string, name: string): Promise<SecretOutcome>;
  /** Which cluster it reads, for the report. */
  describe(): Promise<ClusterIdentity>;
}

/** Which cluster the doctor read, as the report heads it. */
export interface ClusterIdentity {
  /** The kubeconfig context. */
  readonly context?: string;
  /** The API server's address. */
  readonly server?: string;
  /** The API server's version, e.g. v1.36.3. */
  readonly version?: string;
}

/** What listing a resource type gave: its objects, a refusal, or that the cluster does not serve it. */
export type ListOutcome =
  | { readonly items: readonly KubeObject[] }
  /** The identity may not list it; the message is the API server's. */
  | { readonly forbidden: string }
  /** The cluster does not serve the type (its CRD is not installed). */
  | { readonly absent: true };

/** The certificates a Secret holds, as PEM: never its key. */
export interface SecretCertificates {
  /** The Secret's type, e.g. `kubernetes.io/tls`. */
  readonly type: string;
  /** Its `tls.crt`: the serving certificate and its chain. */
  readonly tlsCrt?: string;
  /** Its `ca.crt`: the CA that signed it, where the issuer writes one. */
  readonly caCrt?: string;
}

/** What reading a Secret's certificates gave: them, a refusal, or no such Secret. */
export type SecretOutcome =
  | { readonly certificates: SecretCertificates }
  | { readonly forbidden: string }
  | { readonly notFound: true };

/** A Secret's certificates from its object: only tls.crt and ca.crt are read, base64-decoded. */
export function certificatesOfSecret(secret: KubeObject): SecretCertificates {
  const decode = (key: string) => {
    const v = str(at(secret, "data", key));
    return v === undefined ? undefined : Buffer.from(v, "base64").toString("utf8");
  };
  return { type: str(secret.type) ?? "Opaque", tlsCrt: decode("tls.crt"), caCrt: decode("ca.crt") };
}

/**
 * A source over objects in memory (a `kubectl get -o json` dump, or a test's objects). `forbidden` names
 * resource types (`<resource>.<group>`, or the resource for the core group) the identity may not list. A
 * type outside Kubernetes' own groups is served where an object of it, or its CRD, is among the objects.
 */
export function objectSource(
  objects: readonly KubeObject[],
  options: {
    readonly forbidden?: readonly string[];
    readonly identity?: ClusterIdentity;
  } = {},
): KubeSource {
  const forbidden = new Set(options.forbidden ?? []);
  const builtIn = new Set([
    "",
    "apps",
    "batch",
    "networking.k8s.io",
    "discovery.k8s.io",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "rbac.authorization.k8s.io",
    "policy",
  ]);
  const served = (t: ResourceType) =>
    builtIn.has(t.group) ||
    objects.some((o) => groupOf(o.apiVersion) === t.group && o.kind === t.kind) ||
    objects.some(
      (o) =>
        o.kind === "CustomResourceDefinition" &&
        at(o, "spec", "group") === t.group &&
        at(o, "spec", "names", "kind") === t.kind,
    );
  const argOf = (t: ResourceType) => (t.group ? `${t.resource}.${t.group}` : t.resource);
  return {
    list(type) {
      if (forbidden.has(argOf(type)))
        return Promise.resolve({
          forbidden: `${type.resource} is forbidden: cannot list resource "${type.resource}" in API group "${type.group}" at the cluster scope`,
        });
      if (!served(type)) return Promise.resolve({ absent: true });
      const items = objects.filter(
        (o) =>
          groupOf(o.apiVersion) === type.group &&
          o.kind === type.kind &&
          (!type.fieldSelector || at(o, type.fieldSelector.field) === type.fieldSelector.value),
      );
      return Promise.resolve({ items });
    },
    secretCertificates(namespace, name) {
      if (forbidden.has("secrets"))
        return Promise.resolve({
          forbidden: `secrets "${name}" is forbidden: cannot get resource "secrets" in API group "" in the namespace "${namespace}"`,
        });
      const secret = objects.find(
        (o) => o.kind === "Secret" && o.metadata.namespace === namespace && o.metadata.name === name,
      );
      return Promise.resolve(
        secret && isObj(secret) ? { certificates: certificatesOfSecret(secret) } : { notFound: true },
      );
    },
    describe: () => Promise.resolve(options.identity ?? {}),
  };
}
