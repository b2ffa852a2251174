import * as pulumi from "@pulumi/pulumi";
import { secretPlaceholder } from "../config";

/** What a secret shows as, in a render's files and in config the render could not decrypt. */
export const secretText = secretPlaceholder;

/** Replaces Pulumi secret envelopes with `[secret]`, so a render never prints a secret. */
export function showSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(showSecrets);
  if (value === null || typeof value !== "object") return value;
  const obj = value as Record<string, unknown>;
  if (obj[pulumi.runtime.specialSigKey] === pulumi.runtime.specialSecretSig) return secretText;
  if (pulumi.Resource.isInstance(value)) return "<resource reference>";
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = showSecrets(v);
  return out;
}

export async function plainOutputs(raw: unknown): Promise<Record<string, unknown>> {
  if (raw === null || typeof raw !== "object") return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) out[k] = await plainValue(v);
  return out;
}

export async function plainValue(value: unknown): Promise<unknown> {
  if (pulumi.Output.isInstance(value)) {
    if (await pulumi.isSecret(value)) return secretText;
    const resolved = await new Promise<unknown>((resolve) => value.apply((v) => resolve(v)));
    return plainValue(resolved);
  }
  if (value instanceof Promise) return plainValue(await value);
  if (Array.isArray(value)) return Promise.all(value.map(plainValue));
  if (value === null || typeof value !== "object" || pulumi.Resource.isInstance(value)) {
    return pulumi.Resource.isInstance(value) ? "<resource reference>" : value;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const plain = await plainValue(v);
    if (plain !== undefined) out[k] = plain;
  }
  return out;
}
