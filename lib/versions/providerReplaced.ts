/** The Pulumi Kubernetes provider's forceNew table (diff.go `forceNew`, `forceNewProperties`): the Kubernetes fields whose change makes Pulumi replace an object. */
import { k8sProvider, type ReplacementRule } from "./replacementRules";

const providerTable = k8sProvider("diff.go forceNew");
const labelSelector = (prefix: string): string[] => [
  prefix,
  `${prefix}.matchExpressions`,
  `${prefix}.matchLabels`,
];
const containerFields = (prefix: string): string[] =>
  [
    "args",
    "command",
    "env",
    "image",
    "imagePullPolicy",
    "lifecycle",
    "livenessProbe",
    "ports",
    "readinessProbe",
    "resources",
    "securityContext",
    "stdin",
    "stdinOnce",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "tty",
    "volumeDevices",
    "volumeMounts",
    "workingDir",
  ].map((f) => `${prefix}.${f}`);
const rule = (fields: readonly string[], source = providerTable): readonly ReplacementRule[] => [
  { fields, source },
];
const selectorOnly = rule(labelSelector("spec.selector"));
const statefulSet = rule([
  "spec.podManagementPolicy",
  "spec.revisionHistoryLimit",
  "spec.serviceName",
  "spec.volumeClaimTemplates",
  ...labelSelector("spec.selector"),
]);
const job = rule([
  "spec.completions",
  "spec.parallelism",
  "spec.template",
  ...labelSelector("spec.selector"),
]);
const roleBinding = rule(["roleRef"]);
const coreV1: Readonly<Record<string, readonly ReplacementRule[]>> = {
  PersistentVolume: rule(
    [
      "awsElasticBlockStore",
      "azureDisk",
      "azureFile",
      "cephfs",
      "cinder",
      "csi",
      "fc",
      "flexVolume",
      "flocker",
      "gcePersistentDisk",
      "glusterfs",
      "hostPath",
      "iscsi",
      "local",
      "nfs",
      "photonPersistentDisk",
      "portworxVolume",
      "quobyte",
      "rbd",
      "scaleIO",
      "storageos",
      "vsphereVolume",
    ].map((f) => `spec.${f}`),
  ),
  PersistentVolumeClaim: rule([
    "spec.accessModes",
    "spec.storageClassName",
    "spec.volumeName",
    ...labelSelector("spec.selector"),
  ]),
  Pod: rule([
    ...[
      "affinity",
      "automountServiceAccountToken",
      "dnsConfig",
      "dnsPolicy",
      "enableServiceLinks",
      "hostAliases",
      "hostIPC",
      "hostNetwork",
      "hostPID",
      "hostname",
      "imagePullSecrets",
      "nodeName",
      "nodeSelector",
      "overhead",
      "preemptionPolicy",
      "priority",
      "priorityClassName",
      "readinessGates",
      "restartPolicy",
      "runtimeClassName",
      "schedulerName",
      "securityContext",
      "serviceAccount",
      "serviceAccountName",
      "shareProcessNamespace",
      "subdomain",
      "terminationGracePeriodSeconds",
      "volumes",
    ].map((f) => `spec.${f}`),
    ...containerFields("spec.containers[*]"),
    ...containerFields("spec.initContainers[*]"),
  ]),
  ResourceQuota: rule(["spec.scopes"]),
  // A Secret's kind entry; its data is in the IsSecret branch below, which comes first in forceNewProperties.
  Secret: [
    { fields: ["type"], source: providerTable },
    {
      fields: ["type", "stringData", "data"],
      when: "secret-not-mutable",
      source: k8sProvider("diff.go forceNewProperties (clients.IsSecret)"),
    },
  ],
  ConfigMap: [
    {
      fields: ["binaryData", "data"],
      when: "configmap-not-mutable",
      source: k8sProvider("diff.go forceNewProperties (clients.IsConfigMap)"),
    },
  ],
  Service: rule(["spec.clusterIP"]),
};

/**
 * The Pulumi Kubernetes provider replaces an object when any of these change, by `<group>/<version>/<Kind>`
 * (`core` is the core group, as the table lists it under both "core" and ""). Every kind: `metadata.name`
 * and `metadata.namespace` (`*`). Replacing an object whose name and namespace stay, the provider
 * deletes it first (provider.go Diff, `deleteBeforeReplace`).
 */
export const kubernetesReplacedFields: Readonly<Record<string, readonly ReplacementRule[]>> = {
  "*": rule(["metadata.name", "metadata.namespace"], k8sProvider("diff.go metadataForceNewProperties")),
  // .spec.selector replaces a Deployment or DaemonSet only after v1beta1 (the table's own note).
  "apps/v1beta1/StatefulSet": statefulSet,
  "apps/v1beta2/DaemonSet": selectorOnly,
  "apps/v1beta2/Deployment": selectorOnly,
  "apps/v1beta2/StatefulSet": statefulSet,
  "apps/v1/DaemonSet": selectorOnly,
  "apps/v1/Deployment": selectorOnly,
  "apps/v1/StatefulSet": statefulSet,
  ...Object.fromEntries(Object.entries(coreV1).map(([kind, rules]) => [`core/v1/${kind}`, rules])),
  "policy/v1beta1/PodDisruptionBudget": rule(["spec"]),
  "rbac.authorization.k8s.io/v1alpha1/ClusterRoleBinding": roleBinding,
  "rbac.authorization.k8s.io/v1alpha1/RoleBinding": roleBinding,
  "rbac.authorization.k8s.io/v1beta1/ClusterRoleBinding": roleBinding,
  "rbac.authorization.k8s.io/v1beta1/RoleBinding": roleBinding,
  "rbac.authorization.k8s.io/v1/ClusterRoleBinding": roleBinding,
  "rbac.authorization.k8s.io/v1/RoleBinding": roleBinding,
  "storage.k8s.io/v1/StorageClass": rule(["parameters", "provisioner"]),
  "batch/v1beta1/Job": job,
  "batch/v1/Job": job,
  "batch/v2alpha1/Job": job,
};
