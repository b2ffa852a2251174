/** What the Kubernetes API server refuses to change (ValidateXUpdate in each group's validation.go). */
import { k8s, replacementSources, type ReplacementRule } from "./replacementRules";

const apps = k8s("pkg/apis/apps/validation/validation.go");
const batch = k8s("pkg/apis/batch/validation/validation.go");
const core = k8s("pkg/apis/core/validation/validation.go");

/**
 * Fields the Kubernetes API server refuses to change, by `<group>/<Kind>` (any version). A CronJob and
 * a PodDisruptionBudget (policy/v1) may change entirely.
 */
export const kubernetesImmutableFields: Readonly<Record<string, readonly ReplacementRule[]>> = {
  "apps/Deployment": [{ fields: ["spec.selector"], source: `${apps} ValidateDeploymentUpdate` }],
  "apps/ReplicaSet": [{ fields: ["spec.selector"], source: `${apps} ValidateReplicaSetUpdate` }],
  "apps/DaemonSet": [{ fields: ["spec.selector"], source: `${apps} ValidateDaemonSetSpecUpdate` }],
  "apps/StatefulSet": [
    {
      fields: ["spec"],
      except: [
        "spec.replicas",
        "spec.ordinals",
        "spec.template",
        "spec.updateStrategy",
        "spec.revisionHistoryLimit",
        "spec.persistentVolumeClaimRetentionPolicy",
        "spec.minReadySeconds",
      ],
      source: `${apps} ValidateStatefulSetUpdate`,
    },
  ],
  "batch/Job": [
    {
      fields: [
        "spec.selector",
        "spec.completionMode",
        "spec.podFailurePolicy",
        "spec.backoffLimitPerIndex",
        "spec.managedBy",
        "spec.successPolicy",
      ],
      source: `${batch} ValidateJobSpecUpdate`,
    },
    // An Indexed Job may change completions together with parallelism.
    { fields: ["spec.completions"], when: "not-indexed", source: `${batch} validateCompletions` },
    // A suspended Job may change its scheduling directives (and, with a feature gate, resources).
    { fields: ["spec.template"], when: "not-suspended", source: `${batch} validatePodTemplateUpdate` },
  ],
  "core/Service": [
    {
      fields: ["spec.clusterIP", "spec.clusterIPs"],
      when: "not-external-name",
      source: `${core} validateUpgradeDowngradeClusterIPs`,
    },
    {
      fields: ["spec.ipFamilies[0]"],
      when: "not-external-name",
      source: `${core} validateUpgradeDowngradeIPFamilies`,
    },
  ],
  "core/PersistentVolumeClaim": [
    {
      fields: ["spec"],
      // A bound claim may grow (not shrink) its storage request and change its attributes class.
      except: ["spec.resources.requests.storage", "spec.volumeAttributesClassName"],
      source: `${core} ValidatePersistentVolumeClaimUpdate`,
    },
  ],
  "core/Secret": [
    { fields: ["type"], source: `${core} ValidateSecretUpdate` },
    // stringData is folded into data before validation, so it is as immutable.
    {
      fields: ["data", "stringData", "immutable"],
      when: "was-immutable",
      source: `${core} ValidateSecretUpdate`,
    },
  ],
  "core/ConfigMap": [
    {
      fields: ["data", "binaryData", "immutable"],
      when: "was-immutable",
      source: `${core} ValidateConfigMapUpdate`,
    },
  ],
  "rbac.authorization.k8s.io/RoleBinding": [
    { fields: ["roleRef"], source: k8s("pkg/apis/rbac/validation/validation.go ValidateRoleBindingUpdate") },
  ],
  "rbac.authorization.k8s.io/ClusterRoleBinding": [
    {
      fields: ["roleRef"],
      source: k8s("pkg/apis/rbac/validation/validation.go ValidateClusterRoleBindingUpdate"),
    },
  ],
  "storage.k8s.io/StorageClass": [
    {
      fields: ["parameters", "provisioner", "reclaimPolicy", "volumeBindingMode"],
      source: k8s("pkg/apis/storage/validation/validation.go ValidateStorageClassUpdate"),
    },
  ],
  // scope and names.kind are immutable once the CRD is Established, which every CRD in use is.
  "apiextensions.k8s.io/CustomResourceDefinition": [
    {
      fields: ["spec.group", "spec.names.plural", "spec.scope", "spec.names.kind"],
      source: `${replacementSources.apiextensions} pkg/apis/apiextensions/validation/validation.go validateCustomResourceDefinitionSpecUpdate`,
    },
  ],
};
