import { Construct } from "constructs";
import { linkerdFacts } from "../../versions";
import { Bundle, Certificate, ClusterIssuer, waitForAnnotation } from "../../manifests";

/** Names the identity objects share; Linkerd's chart and docs expect these. */
export const linkerdIdentityNames = {
  rootIssuer: "linkerd-trust-root-issuer",
  trustAnchor: "linkerd-trust-anchor",
  previousAnchor: "linkerd-previous-anchor",
  identityIssuer: linkerdFacts.issuerSecret,
  trustRoots: linkerdFacts.trustRootsConfigMap,
} as const;

export interface LinkerdTrustAnchorProps {
  /** trust-manager's trust namespace, the only one it reads Secrets from (app.trust.namespace). */
  readonly trustNamespace: string;
  /** Linkerd's trust domain. @default cluster.local */
  readonly trustDomain?: string;
}

/**
 * The mesh's root of trust, made and kept inside the cluster by cert-manager: a self-signed root CA
 * (the trust anchor) and a CA ClusterIssuer that signs Linkerd's identity issuer from it. No private
 * key ever passes through Pulumi: state holds only these object specs.
 */
export class LinkerdTrustAnchor extends Construct {
  constructor(scope: Construct, id: string, props: LinkerdTrustAnchorProps) {
    super(scope, id);
    const domain = props.trustDomain ?? "cluster.local";
    new ClusterIssuer(this, "root-issuer", {
      metadata: { name: linkerdIdentityNames.rootIssuer },
      spec: { selfSigned: {} },
    });
    new Certificate(this, "trust-anchor", {
      metadata: {
        name: linkerdIdentityNames.trustAnchor,
        namespace: props.trustNamespace,
        annotations: { [waitForAnnotation]: "condition=Ready" },
      },
      spec: {
        secretName: linkerdIdentityNames.trustAnchor,
        issuerRef: { name: linkerdIdentityNames.rootIssuer, kind: "ClusterIssuer", group: "cert-manager.io" },
        isCA: true,
        commonName: `root.linkerd.${domain}`,
        // Ten years. Renewal keeps the key (rotationPolicy Never), so certificates under the old anchor
        // still verify; a new key is a deliberate rotation with both anchors distributed (docs/linkerd.md).
        duration: "87600h0m0s",
        renewBefore: "8760h0m0s",
        privateKey: { algorithm: "ECDSA", size: 256, rotationPolicy: "Never" },
      },
    });
    new ClusterIssuer(this, "identity-issuer", {
      metadata: { name: linkerdIdentityNames.identityIssuer },
      spec: { ca: { secretName: linkerdIdentityNames.trustAnchor } },
    });
  }
}

export interface LinkerdIssuerProps {
  /** Linkerd's control-plane namespace. */
  readonly namespace: string;
  /** Also distribute `linkerd-previous-anchor`, during a trust anchor rotation. @default false */
  readonly previousTrustAnchor?: boolean;
  readonly trustDomain?: string;
}

/**
 * Linkerd's identity issuer certificate (in the control-plane namespace, where the chart reads the
 * kubernetes.io/tls Secret) and the trust-manager Bundle that writes the anchor into the
 * `linkerd-identity-trust-roots` ConfigMap the control plane mounts.
 */
export class LinkerdIssuer extends Construct {
  constructor(scope: Construct, id: string, props: LinkerdIssuerProps) {
    super(scope, id);
    const domain = props.trustDomain ?? "cluster.local";
    new Certificate(this, "issuer", {
      metadata: {
        name: linkerdIdentityNames.identityIssuer,
        namespace: props.namespace,
        // Pulumi waits until cert-manager has written the Secret, so the control plane never starts without it.
        annotations: { [waitForAnnotation]: "condition=Ready" },
      },
      spec: {
        secretName: linkerdFacts.issuerSecret,
        issuerRef: {
          name: linkerdIdentityNames.identityIssuer,
          kind: "ClusterIssuer",
          group: "cert-manager.io",
        },
        // The issuer signs every proxy's certificate, so it is a CA; Linkerd requires ECDSA (chart README).
        isCA: true,
        commonName: `identity.linkerd.${domain}`,
        dnsNames: [`identity.linkerd.${domain}`],
        // Linkerd's documented rotation: a 48h issuer renewed 25h before expiry, so a missed renewal has a day to be noticed.
        duration: "48h0m0s",
        renewBefore: "25h0m0s",
        privateKey: { algorithm: "ECDSA", rotationPolicy: "Always" },
        usages: ["cert sign", "crl sign", "server auth", "client auth"],
      },
    });
    new Bundle(this, "trust-roots", {
      metadata: {
        name: linkerdIdentityNames.trustRoots,
        // Pulumi waits until trust-manager has written the ConfigMap the identity pods mount.
        annotations: { [waitForAnnotation]: "condition=Synced" },
      },
      spec: {
        sources: [
          { secret: { name: linkerdIdentityNames.trustAnchor, key: "tls.crt" } },
          // Only during a rotation: a missing source would stop trust-manager from writing the target.
          ...(props.previousTrustAnchor
            ? [{ secret: { name: linkerdIdentityNames.previousAnchor, key: "tls.crt" } }]
            : []),
        ],
        target: {
          configMap: { key: linkerdFacts.trustRootsKey },
          namespaceSelector: { matchLabels: { [linkerdFacts.controlPlaneNamespaceLabel]: "true" } },
        },
      },
    });
  }
}
