import * as fs from "fs";
import * as path from "path";
import { certManagerNamespace } from "../../lib/addons";
import { istioCaNames, linkerdIdentityNames, linkerdNamespace } from "../../lib/meshes";
import type { RenderResult } from "../../lib/render";
import { linkerdFacts } from "../../lib/versions";
import { find, renderPlatform } from "../helpers";

/**
 * The trust anchor rotation procedures of docs/linkerd.md and docs/istio.md, held to the code: the
 * steps in their order, every object a command names as the platform names it, and what each config
 * step renders (the Bundle's sources before, during and after a rotation).
 */

const docs = path.resolve(__dirname, "../../docs");

/** The section of a doc that starts at `heading`, up to the next heading of its level. */
function section(file: string, heading: string): string {
  const text = fs.readFileSync(path.join(docs, file), "utf8");
  const start = text.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`${file} has no "${heading}"`);
  const level = heading.split(" ")[0];
  const next = text.indexOf(`\n${level} `, start + heading.length + 2);
  return text.slice(start, next === -1 ? undefined : next);
}

/** The bold step titles of a numbered procedure, in order. */
const steps = (text: string): string[] => [...text.matchAll(/^\d+\. \*\*(.+?)\*\*/gm)].map((m) => m[1]);

type Source = { secret: { name: string; key: string } };
const sources = (r: RenderResult, bundle: string): Source[] =>
  (find(r, "Bundle", bundle).inputs.spec as { sources: Source[] }).sources;

describe("Linkerd", () => {
  const doc = section("linkerd.md", "## Rotating the trust anchor");
  const n = linkerdIdentityNames;

  test("the steps, in the order that keeps mTLS up: both anchors everywhere before the new issuer", () => {
    expect(steps(doc)).toEqual([
      "Keep the current anchor's certificate.",
      "Distribute both.",
      "Give the anchor a new key.",
      "Roll everything that holds trust anchors, control plane first.",
      "Issue the issuer from the new anchor.",
      "Stop trusting the old anchor.",
    ]);
  });

  test("every command names the objects as the platform names them", () => {
    for (const command of [
      `kubectl -n ${certManagerNamespace} get secret ${n.trustAnchor} -o jsonpath='{.data.tls\\.crt}'`,
      `kubectl -n ${certManagerNamespace} create secret generic ${n.previousAnchor} --from-file=tls.crt=previous.crt`,
      `kubectl -n ${certManagerNamespace} delete secret ${n.trustAnchor}`,
      `kubectl -n ${certManagerNamespace} wait --for=condition=Ready certificate/${n.trustAnchor}`,
      `kubectl -n ${linkerdNamespace} get configmap ${linkerdFacts.trustRootsConfigMap} -o jsonpath='{.data.ca-bundle\\.crt}'`,
      `kubectl -n ${linkerdNamespace} rollout restart deploy`,
      `cmctl renew -n ${linkerdNamespace} ${n.identityIssuer}`,
    ])
      expect(doc).toContain(command);
  });

  test("the anchor renews with its key (so a new key needs its Secret deleted), the issuer every 23 hours", async () => {
    const r = await renderPlatform({ mesh: { kind: "linkerd" } });
    expect(find(r, "Certificate", n.trustAnchor, certManagerNamespace).inputs.spec).toMatchObject({
      privateKey: { rotationPolicy: "Never" },
    });
    expect(find(r, "Certificate", n.identityIssuer, linkerdNamespace).inputs.spec).toMatchObject({
      duration: "48h0m0s",
      renewBefore: "25h0m0s",
    });
    expect(doc).toContain("cert-manager renews the issuer every 23 hours");
    // The identity table says what the code renders; no page says the anchor rotates its key.
    const all = fs.readFileSync(path.join(docs, "linkerd.md"), "utf8");
    expect(all).toMatch(/`linkerd-trust-anchor`[^\n]*`rotationPolicy: Never`/);
    expect(all).not.toMatch(/`linkerd-trust-anchor`[^\n]*`rotationPolicy: Always`/);
  });

  test("step 2 distributes both anchors from the trust namespace, step 6 only the new one", async () => {
    const during = await renderPlatform({ mesh: { kind: "linkerd", previousTrustAnchor: true } });
    expect(sources(during, n.trustRoots)).toEqual([
      { secret: { name: n.trustAnchor, key: "tls.crt" } },
      { secret: { name: n.previousAnchor, key: "tls.crt" } },
    ]);
    const after = await renderPlatform({ mesh: { kind: "linkerd" } });
    expect(sources(after, n.trustRoots)).toEqual([{ secret: { name: n.trustAnchor, key: "tls.crt" } }]);
  });
});

describe("Istio", () => {
  const doc = section("istio.md", "## Rotating the root");
  const n = istioCaNames;

  test("the steps, in the order that keeps mTLS up: both roots in every proxy before the new intermediate", () => {
    expect(steps(doc)).toEqual([
      "Keep the current root's certificate.",
      "Trust both.",
      "Give the root a new key.",
      "Wait an hour",
      "Issue the intermediate from the new root.",
      "Stop trusting the old root",
    ]);
  });

  test("every command names the objects as the platform names them", () => {
    for (const command of [
      `kubectl -n ${certManagerNamespace} get secret ${n.root} -o jsonpath='{.data.tls\\.crt}'`,
      `kubectl -n ${certManagerNamespace} create secret generic ${n.previousRoot} --from-file=tls.crt=previous.crt`,
      `kubectl -n ${certManagerNamespace} delete secret ${n.root}`,
      `kubectl -n ${certManagerNamespace} get configmap ${n.trustRoots} -o jsonpath='{.data.ca\\.pem}'`,
      `cmctl renew -n istio-system ${n.intermediate}`,
    ])
      expect(doc).toContain(command);
  });

  test("the root renews with its key; workload certificates live an hour (the waits of steps 4 and 6)", async () => {
    const r = await renderPlatform({ mesh: { kind: "istio" } });
    expect(find(r, "Certificate", n.root, certManagerNamespace).inputs.spec).toMatchObject({
      privateKey: { rotationPolicy: "Never" },
    });
    // istio-csr's default maximum workload certificate lifetime, which the platform does not change.
    const csr = r.resources.find((x) => x.inputs.name === "cert-manager-istio-csr");
    expect(
      (csr?.inputs.values as { app: { server: Record<string, unknown> } }).app.server,
    ).not.toHaveProperty("maxCertificateDuration");
  });

  test("step 2 pins both roots in istio-csr's file, step 6 only the new one", async () => {
    const during = await renderPlatform({ mesh: { kind: "istio", previousTrustAnchor: true } });
    expect(sources(during, n.trustRoots)).toEqual([
      { secret: { name: n.root, key: "tls.crt" } },
      { secret: { name: n.previousRoot, key: "tls.crt" } },
    ]);
    const after = await renderPlatform({ mesh: { kind: "istio" } });
    expect(sources(after, n.trustRoots)).toEqual([{ secret: { name: n.root, key: "tls.crt" } }]);
  });

  test("the upgrade from a root in istio-system copies it to where the root now lives, before pulumi up", () => {
    const upgrade = section(
      "istio.md",
      "### Upgrading a stack from a release with a self-signed root in istio-system",
    );
    expect(upgrade).toContain(`metadata: {name: "${n.root}", namespace: "${certManagerNamespace}"}`);
    expect(upgrade.indexOf("kubectl apply -f -")).toBeLessThan(upgrade.indexOf("\npulumi up\n"));
  });
});
