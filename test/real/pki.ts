import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import { run } from "./processes";

/**
 * The certificates a local cluster needs, made with openssl (Node can make keys, not certificates): one CA,
 * serving certificates for 127.0.0.1 and localhost, client certificates whose subject is the user and whose
 * organizations are its groups (how Kubernetes reads a client certificate). ECDSA P-256, valid two days.
 */

export interface KeyPair {
  readonly cert: string;
  readonly key: string;
}

export const openssl = process.env.OPENSSL ?? "openssl";

/** A self-signed CA in `dir`. */
export async function makeCa(dir: string, name: string): Promise<KeyPair> {
  const cert = path.join(dir, `${name}.crt`);
  const key = path.join(dir, `${name}.key`);
  await run(openssl, [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    key,
    "-out",
    cert,
    "-days",
    "2",
    "-subj",
    `/CN=${name}`,
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  return { cert, key };
}

export interface Subject {
  /** The file name, in the CA's folder. */
  readonly name: string;
  /** The common name: the user, for a client certificate. */
  readonly commonName: string;
  /** Organizations: the groups, for a client certificate. */
  readonly organizations?: readonly string[];
  /** Serving: the DNS names and IP addresses it is valid for. */
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
  readonly usage: "server" | "client";
}

/** A certificate signed by `ca`, beside the CA's files. */
export async function issue(ca: KeyPair, subject: Subject): Promise<KeyPair> {
  const dir = path.dirname(ca.cert);
  const cert = path.join(dir, `${subject.name}.crt`);
  const key = path.join(dir, `${subject.name}.key`);
  const csr = path.join(dir, `${subject.name}.csr`);
  const ext = path.join(dir, `${subject.name}.ext`);
  const dn = [...(subject.organizations ?? []).map((o) => `/O=${o}`), `/CN=${subject.commonName}`].join("");
  await run(openssl, [
    "req",
    "-new",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    key,
    "-out",
    csr,
    "-subj",
    dn,
  ]);
  const sans = [
    ...(subject.dnsNames ?? []).map((d) => `DNS:${d}`),
    ...(subject.ipAddresses ?? []).map((i) => `IP:${i}`),
  ];
  fs.writeFileSync(
    ext,
    [
      "basicConstraints=critical,CA:FALSE",
      "keyUsage=critical,digitalSignature",
      `extendedKeyUsage=${subject.usage === "server" ? "serverAuth" : "clientAuth"}`,
      ...(sans.length > 0 ? [`subjectAltName=${sans.join(",")}`] : []),
    ].join("\n"),
  );
  await run(openssl, [
    "x509",
    "-req",
    "-in",
    csr,
    "-CA",
    ca.cert,
    "-CAkey",
    ca.key,
    "-set_serial",
    `0x${crypto.randomBytes(16).toString("hex")}`,
    "-days",
    "2",
    "-extfile",
    ext,
    "-out",
    cert,
  ]);
  fs.rmSync(csr);
  fs.rmSync(ext);
  return { cert, key };
}

/** The key pair service account tokens are signed with (public and private PEM files). */
export function makeServiceAccountKey(dir: string): {
  readonly publicKey: string;
  readonly privateKey: string;
} {
  const pair = crypto.generateKeyPairSync("rsa", {
    modulusLength: 2048,
    publicKeyEncoding: { type: "spki", format: "pem" },
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
  });
  const publicKey = path.join(dir, "service-account.pub");
  const privateKey = path.join(dir, "service-account.key");
  fs.writeFileSync(publicKey, pair.publicKey);
  fs.writeFileSync(privateKey, pair.privateKey, { mode: 0o600 });
  return { publicKey, privateKey };
}
