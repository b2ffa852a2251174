/** The shape of a replacement rule, and the upstream versions and files the rule tables were read from. */
/** A change of any of `fields` (or of anything they contain, or that contains them) replaces the object. */
export interface ReplacementRule {
  readonly fields: readonly string[];
  /** Paths below `fields` that may change anyway. */
  readonly except?: readonly string[];
  /** The rule holds only under this condition. */
  readonly when?: ReplacementCondition;
  /** The upstream file, at its tag, that makes it so. */
  readonly source: string;
}

/**
 * Conditions a rule depends on, which the diff checks on the two versions of the object:
 * - `cidr-shrinks`: the new range does not contain the old one;
 * - `secret-not-mutable`, `configmap-not-mutable`: the Kubernetes provider's `enableSecretMutable`
 *   (`enableConfigMapMutable`) is off, or the new object is `immutable: true`;
 * - `was-immutable`: the object was created `immutable: true`;
 * - `not-indexed`: the Job's `spec.completionMode` is not `Indexed`;
 * - `not-suspended`: the Job was not suspended;
 * - `not-external-name`: neither version of the Service is `type: ExternalName`.
 */
export type ReplacementCondition =
  | "cidr-shrinks"
  | "secret-not-mutable"
  | "configmap-not-mutable"
  | "was-immutable"
  | "not-indexed"
  | "not-suspended"
  | "not-external-name";

/** The versions each table was read at. */
export const replacementSources = {
  /**
   * The module proxy serves the provider only as this pseudo-version, which is tag v4.25.0; the table
   * (diff.go) and the Helm release's and provider config's rules mean the same through v4.32.0, the
   * newest tag that could be read (pulumi/pulumi-kubernetes git diff v4.25.0 v4.32.0). @pulumi/kubernetes
   * 4.34.2 deploys with provider 4.34.2, whose source could not be read.
   */
  pulumiKubernetes: "pulumi/pulumi-kubernetes v4.25.0 (provider/v4@v4.0.0-20260115033456-f47bc2d6f199)",
  kubernetes: "kubernetes/kubernetes v1.36.3",
  apiextensions: "kubernetes/apiextensions-apiserver v0.36.3 (Kubernetes 1.36.3)",
  /**
   * @pulumi/gcp 9.37.0 bridges terraform-provider-google-beta v7.46.1 (pulumi/pulumi-gcp issue 4019,
   * "Release v9.37.0"). Neither the module proxy nor the stored mirror has v7.46.1; v7.45.0 is the
   * newest tag that could be read, so the schemas are v7.45.0's.
   */
  googleBeta: "hashicorp/terraform-provider-google-beta v7.45.0",
  /** The Helm library the Kubernetes provider's helm.v3.Release runs (provider/go.mod at v4.25.0). */
  helm: "helm/helm v3.18.6",
  /** The engine that applies replaceOnChanges, ignoreChanges, protect and retainOnDelete. */
  pulumi: "pulumi/pulumi v3.274.1",
} as const;

export const k8sProvider = (file: string) =>
  `${replacementSources.pulumiKubernetes} provider/pkg/provider/${file}`;
export const k8s = (file: string) => `${replacementSources.kubernetes} ${file}`;
export const googleBeta = (file: string) => `${replacementSources.googleBeta} google-beta/${file}`;
