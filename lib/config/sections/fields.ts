/** Value grammars several sections of the environment config share: CIDRs, resource names, chart digests. */
import { z } from "zod";

export const cidr = z
  .string()
  .regex(/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/, "an IPv4 CIDR such as 10.0.0.0/20");

export const resourceName = z
  .string()
  .regex(
    /^[a-z]([-a-z0-9]{0,38}[a-z0-9])?$/,
    "a name of lowercase letters, digits and '-', starting with a letter, at most 40 characters, such as shop",
  );

/** A chart's sha256 digest, as a Helm repository index or an OCI registry gives it. */
export const chartDigest = z
  .string()
  .regex(/^sha256:[0-9a-f]{64}$/, "sha256: and 64 lowercase hex digits, such as sha256:0f1e...");
