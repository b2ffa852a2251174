import type { PolicyResource, StackValidationArgs } from "@pulumi/policy";
import type { ResourceView } from "../../lib/safety";
import { policies } from "../../policy/policies";

/** The policy pack, run the way Pulumi runs it: validateStack over the program's resources. */

export function policyResource(v: ResourceView): PolicyResource {
  return {
    type: v.type,
    name: v.name,
    urn: `urn:pulumi:prod::app::${v.type}::${v.name}`,
    props: v.inputs as Record<string, unknown>,
    opts: {
      protect: v.protect,
      ignoreChanges: [],
      aliases: [],
      customTimeouts: {} as never,
      additionalSecretOutputs: [],
    },
    dependencies: [],
    propertyDependencies: {},
    isType: () => false,
    asType: () => undefined,
  };
}

export async function violations(
  views: readonly ResourceView[],
): Promise<{ policy: string; message: string; urn?: string }[]> {
  const args = { resources: views.map(policyResource), stackTags: new Map(), getConfig: () => ({}) };
  const out: { policy: string; message: string; urn?: string }[] = [];
  for (const p of policies) {
    await p.validateStack(args as unknown as StackValidationArgs, (message, urn) =>
      out.push({ policy: p.name, message, urn }),
    );
  }
  return out;
}
