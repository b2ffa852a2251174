import * as crypto from "crypto";
import * as fs from "fs";

/**
 * Reads a stack's `secure:` values offline the way the Pulumi CLI's passphrase secrets provider
 * does (pulumi/pulumi sdk/go/common/resource/config/crypt.go and pkg/secrets/passphrase): a 32-byte
 * key from PBKDF2-SHA256 over the passphrase and the stack's salt, 1,000,000 rounds; each value
 * `v1:<nonce>:<ciphertext and tag>` in base64, AES-256-GCM. Other providers (Pulumi Cloud, cloud
 * KMS) need the cloud, which the render does not call.
 */

/** How a stack's secrets can be read: a decrypter, or why there is none. */
export type StackSecrets =
  | { readonly decrypt: (ciphertext: string) => string; readonly reason?: undefined }
  | { readonly decrypt?: undefined; readonly reason: string };

/** The stack file's fields that say how its secrets are encrypted. */
export interface SecretsSettings {
  readonly encryptionsalt?: unknown;
  readonly secretsprovider?: unknown;
}

/** Thrown when a passphrase is given but is not the stack's. */
export class WrongPassphraseError extends Error {}

export function stackSecrets(
  settings: SecretsSettings,
  file: string,
  env: NodeJS.ProcessEnv = process.env,
): StackSecrets {
  const provider = typeof settings.secretsprovider === "string" ? settings.secretsprovider : undefined;
  if (provider !== undefined && provider !== "passphrase") {
    return { reason: `its secrets provider is ${provider}, which needs the cloud` };
  }
  if (typeof settings.encryptionsalt !== "string") {
    return { reason: "its secrets belong to the Pulumi Cloud backend (it has no encryptionsalt)" };
  }
  const passphrase =
    env.PULUMI_CONFIG_PASSPHRASE ??
    (env.PULUMI_CONFIG_PASSPHRASE_FILE
      ? fs.readFileSync(env.PULUMI_CONFIG_PASSPHRASE_FILE, "utf8").replace(/\r?\n$/, "")
      : undefined);
  if (passphrase === undefined) {
    return { reason: "PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE) is not set" };
  }
  const state = /^v1:([^:]*):(v1:[^:]*:[^:]*)$/.exec(settings.encryptionsalt);
  if (!state) throw new Error(`${file}: encryptionsalt is not a Pulumi v1 salt`);
  const key = crypto.pbkdf2Sync(passphrase, Buffer.from(state[1], "base64"), 1_000_000, 32, "sha256");
  // The salt's own ciphertext holds "pulumi": the CLI's check of the passphrase.
  let check: string | undefined;
  try {
    check = decryptValue(key, state[2]);
  } catch {
    check = undefined;
  }
  if (check !== "pulumi") {
    throw new WrongPassphraseError(`the passphrase in PULUMI_CONFIG_PASSPHRASE is not the one of ${file}`);
  }
  return { decrypt: (ciphertext) => decryptValue(key, ciphertext) };
}

function decryptValue(key: Buffer, value: string): string {
  const [version, nonce, sealed] = value.split(":");
  if (version !== "v1" || nonce === undefined || sealed === undefined) {
    throw new Error("not a Pulumi v1 ciphertext");
  }
  const bytes = Buffer.from(sealed, "base64");
  const decipher = crypto.createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64"));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString(
    "utf8",
  );
}
