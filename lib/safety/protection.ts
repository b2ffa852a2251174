import {
  at,
  gkeCluster,
  helmRelease,
  isObj,
  key,
  object,
  type ResourceView,
  type Violation,
} from "./resources";

/** Production is protected, secrets are not plain, and every namespace enforces Pod Security. */

export function prodProtected(resources: readonly ResourceView[]): Violation[] {
  return resources
    .filter((r) => r.type === gkeCluster && at(r.inputs, "resourceLabels", "environment") === "prod")
    .filter((r) => at(r.inputs, "deletionProtection") !== true || !r.protect)
    .map((r) => ({
      invariant: "prod-protected" as const,
      resource: key(r),
      message: `prod cluster ${key(r)} needs deletionProtection true (has ${String(at(r.inputs, "deletionProtection"))}) and Pulumi protect (has ${String(r.protect)})`,
    }));
}

/** Keys that hold a secret value (names of Secrets, like `existingSecret`, are not matched). */
const secretKeys = /(password|passwd|token|clientSecret|privateKey|apiKey|key\.pem|tls\.key)$/i;

export function noPlainSecrets(resources: readonly ResourceView[]): Violation[] {
  const out: Violation[] = [];
  const walk = (r: ResourceView, v: unknown, path: string): void => {
    if (typeof v === "string") {
      if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(v)) {
        out.push({
          invariant: "no-plain-secrets",
          resource: key(r),
          message: `${key(r)} has a private key in plain input ${path}`,
        });
      }
      return;
    }
    if (Array.isArray(v)) return v.forEach((x, i) => walk(r, x, `${path}[${i}]`));
    if (!isObj(v)) return;
    for (const [k, child] of Object.entries(v)) {
      if (secretKeys.test(k) && typeof child === "string" && child !== "" && child !== "[secret]") {
        out.push({
          invariant: "no-plain-secrets",
          resource: key(r),
          message: `${key(r)} has ${path ? `${path}.` : ""}${k} in plain input; pass it as a Pulumi secret`,
        });
        continue;
      }
      walk(r, child, path ? `${path}.${k}` : k);
    }
  };
  for (const r of resources) walk(r, r.inputs, "");
  return out;
}

const podSecurityLevels = new Set(["privileged", "baseline", "restricted"]);

export function namespacePodSecurity(resources: readonly ResourceView[]): Violation[] {
  const unlabelled = resources
    .filter((r) => object(r).kind === "Namespace" && r.type.startsWith("kubernetes:"))
    .filter((r) => !podSecurityLevels.has(String(object(r).labels["pod-security.kubernetes.io/enforce"])))
    .map((r) => ({
      invariant: "namespace-pod-security" as const,
      resource: key(r),
      message: `namespace ${object(r).name} has no pod-security.kubernetes.io/enforce label (privileged, baseline or restricted)`,
    }));
  // Helm creates a namespace with no labels at all.
  const helmCreated = resources
    .filter((r) => r.type === helmRelease && at(r.inputs, "createNamespace") === true)
    .map((r) => ({
      invariant: "namespace-pod-security" as const,
      resource: key(r),
      message: `${key(r)} has Helm create namespace ${String(at(r.inputs, "namespace"))}, without Pod Security labels; create the namespace as its own resource, labelled`,
    }));
  return [...unlabelled, ...helmCreated];
}
