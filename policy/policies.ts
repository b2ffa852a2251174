import type { PolicyResource, StackValidationPolicy } from "@pulumi/policy";
import { checks, invariants, type InvariantName, type ResourceView } from "gke-mesh-platform/check";

/**
 * The platform's safety invariants as Pulumi policies, one per invariant, so any Pulumi program can
 * be held to them with `pulumi preview --policy-pack policy/` (docs/safety.md).
 */

/**
 * Invariants a policy pack cannot check, and why. Everything else runs as a mandatory policy.
 */
export const notInPolicyPack: Partial<Record<InvariantName, string>> = {
  // @pulumi/policy deserializes secrets to their plain values before validateStack sees them.
  "no-plain-secrets":
    "Pulumi hands policy packs secret values already decrypted, so a policy cannot tell a Pulumi secret from a plain string; the platform's render tests check it where secrets are still marked",
};

/** A resource as the checks see it. Policy packs are not told retainOnDelete. */
export function viewOf(r: PolicyResource): ResourceView {
  return {
    type: r.type,
    name: r.name,
    inputs: knownOnly(r.props) as Record<string, unknown>,
    protect: r.opts.protect,
  };
}

/**
 * A copy of a resource's properties without the values Pulumi does not know yet at preview. Reading
 * one throws (the pack's unknown-checking proxy), which would skip the whole policy for the stack;
 * left out, the checks judge everything that is known, and `pulumi up` judges the rest.
 */
export function knownOnly(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> | unknown[] = Array.isArray(value) ? [] : {};
  for (const k of Object.keys(source)) {
    try {
      (out as Record<string, unknown>)[k] = knownOnly(source[k]);
    } catch {
      // Unknown until the resource it comes from exists.
    }
  }
  return out;
}

export const policies: StackValidationPolicy[] = (Object.keys(invariants) as InvariantName[])
  .filter((name) => !notInPolicyPack[name])
  .map((name) => ({
    name,
    description: invariants[name],
    enforcementLevel: "mandatory",
    validateStack: (args, reportViolation) => {
      const byKey = new Map(args.resources.map((r) => [`${r.type}::${r.name}`, r.urn]));
      for (const v of checks[name](args.resources.map(viewOf)))
        reportViolation(v.message, byKey.get(v.resource));
    },
  }));
