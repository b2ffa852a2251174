import { X509Certificate } from "crypto";
import { dateText } from "./objects";

/** Certificates read from PEM: only public certificates, never a key. */

/** Every certificate in a PEM text (a bundle holds several); a block that does not parse is left out. */
export function certificatesIn(pem: string | undefined): X509Certificate[] {
  if (!pem) return [];
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  return blocks.flatMap((b) => {
    try {
      return [new X509Certificate(b)];
    } catch {
      return [];
    }
  });
}

/** `CN=x, O=y`: a subject or issuer as one line. */
export function nameText(name: string): string {
  return name
    .split("\n")
    .filter((l) => l.trim() !== "")
    .join(", ");
}

export const notAfter = (c: X509Certificate): Date => new Date(c.validTo);
export const notBefore = (c: X509Certificate): Date => new Date(c.validFrom);

/** A certificate as the report prints it: subject and expiry, nothing else. */
export function certificateText(c: X509Certificate): string {
  return `subject ${nameText(c.subject)}, expires ${dateText(notAfter(c))}`;
}

/** Whether `ca` signed `leaf`: its subject is the leaf's issuer and its key verifies the signature. */
export function signedBy(leaf: X509Certificate, ca: X509Certificate): boolean {
  try {
    return leaf.checkIssued(ca) && leaf.verify(ca.publicKey);
  } catch {
    return false;
  }
}
