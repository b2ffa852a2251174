/**
 * Which changes replace an object instead of updating it, as the upstream code decides, for the
 * upgrade preview (`render --diff`). Each rule names the file at the tag it was read from. Field paths
 * use Pulumi's property-path syntax (`spec.template`, `nodeConfig.spot`, `containers[*].image`),
 * relative to a resource's inputs or a Kubernetes object; `*` is any list element.
 *
 * Three deciders:
 * - the Pulumi Kubernetes provider, for objects Pulumi deploys: its `forceNew` table
 *   (`kubernetesReplacedFields`);
 * - the Kubernetes API server, which refuses to change some fields at all (`kubernetesImmutableFields`):
 *   Pulumi does not replace an object for those unless its table or `replaceOnChanges` says so, and
 *   Helm's upgrade fails on them;
 * - the provider of a Pulumi type: terraform-provider-google(-beta)'s `ForceNew`, which the Pulumi GCP
 *   provider bridges, and the Kubernetes provider's Helm release and provider config
 *   (`typeReplacedFields`).
 */
import { replacementSources } from "./replacementRules";

export { kubernetesImmutableFields } from "./immutableFields";
export { kubernetesReplacedFields } from "./providerReplaced";
export { replacementSources, type ReplacementCondition, type ReplacementRule } from "./replacementRules";
export { typeReplacedFields } from "./typeReplaced";

/**
 * Resources Pulumi deletes before it creates their replacement, by type token: the Pulumi GCP
 * provider's `DeleteBeforeReplace` (pulumi/pulumi-gcp provider/resources.go at v9.35.0, the newest tag
 * that could be read).
 */
export const deletedBeforeReplaced: Readonly<Record<string, string>> = {
  "gcp:projects/iAMMember:IAMMember":
    "pulumi/pulumi-gcp v9.35.0 provider/resources.go (google_project_iam_member)",
};

/** What Pulumi and Helm do around a replacement, each where it is decided. */
export const replacementBehaviour = {
  /** A replaceOnChanges path replaces the resource when a change is at or below it. */
  replaceOnChanges: `${replacementSources.pulumi} pkg/resource/deploy/step_generator.go applyReplaceOnChanges`,
  /** An ignoreChanges path keeps the old value at or below it, before the provider diffs. */
  ignoreChanges: `${replacementSources.pulumi} pkg/resource/deploy/step_generator.go processIgnoreChanges`,
  /** A resource protected before and after cannot be replaced. */
  protectReplace: `${replacementSources.pulumi} pkg/resource/deploy/step_generator.go ("unable to replace resource ... marked for protection")`,
  /** A protected resource cannot be deleted. */
  protectDelete: `${replacementSources.pulumi} pkg/resource/deploy/step.go DeleteStep.Apply (deleteProtectedError)`,
  /** A retainOnDelete resource is dropped from the stack, not deleted. */
  retainOnDelete: `${replacementSources.pulumi} pkg/resource/deploy/step.go DeleteStep.Apply (RetainOnDelete)`,
  /** A resource's URN holds the types of its parents: another parent type is another resource. */
  urn: `${replacementSources.pulumi} sdk/go/common/resource/urn.go NewURN (parentType)`,
  /** A resource whose provider must be replaced is replaced with it. */
  providerReplaced: `${replacementSources.pulumi} pkg/resource/deploy/step_generator.go diff (providerChanged)`,
  /** The Kubernetes provider deletes an object first when its replacement keeps its name and namespace. */
  kubernetesDeleteFirst: `${replacementSources.pulumiKubernetes} provider/pkg/provider/provider.go Diff (deleteBeforeReplace)`,
  /** Helm patches each object; a patch the API server refuses fails the upgrade (with force too: a PUT). */
  helmPatch: `${replacementSources.helm} pkg/kube/client.go updateResource`,
  /** Helm deletes an object the chart no longer renders, unless it carries helm.sh/resource-policy: keep. */
  helmRemoved: `${replacementSources.helm} pkg/kube/client.go update (ResourcePolicyAnno keep)`,
  /** Helm creates hooks anew each time they run (deleting the old one first by default). */
  helmHooks: `${replacementSources.helm} pkg/action/hooks.go execHook`,
  /** Helm installs a chart's crds/ folder on install only, never on upgrade. */
  helmCrds: `${replacementSources.helm} pkg/action/install.go installCRDs (upgrade.go has none)`,
} as const;
