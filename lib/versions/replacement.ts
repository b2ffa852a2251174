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

const k8sProvider = (file: string) => `${replacementSources.pulumiKubernetes} provider/pkg/provider/${file}`;
const k8s = (file: string) => `${replacementSources.kubernetes} ${file}`;
const googleBeta = (file: string) => `${replacementSources.googleBeta} google-beta/${file}`;

// ---------------------------------------------------------------------------------------------------
// The Pulumi Kubernetes provider's forceNew table (diff.go `forceNew`, `forceNewProperties`).

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

// ---------------------------------------------------------------------------------------------------
// What the API server refuses to change (ValidateXUpdate in each group's validation.go).

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

// ---------------------------------------------------------------------------------------------------
// Pulumi types: ForceNew of the Terraform schemas @pulumi/gcp bridges, and the Kubernetes provider's
// Helm release and provider config. Only fields the platform sets, or a user could change through it.

const container = (file: string) => googleBeta(`services/container/${file}`);
const compute = (file: string) => googleBeta(`services/compute/${file}`);
/** A node_config block, as `schemaNodeConfig` (node_config.go) defines it for clusters and node pools. */
const nodeConfig: ReplacementRule = {
  fields: [
    "nodeConfig.serviceAccount",
    "nodeConfig.oauthScopes",
    "nodeConfig.spot",
    "nodeConfig.preemptible",
    "nodeConfig.shieldedInstanceConfig.enableSecureBoot",
    "nodeConfig.shieldedInstanceConfig.enableIntegrityMonitoring",
    "nodeConfig.metadata",
    "nodeConfig.guestAccelerators",
    "nodeConfig.localSsdCount",
    "nodeConfig.bootDiskKmsKey",
  ],
  source: container("node_config.go schemaNodeConfig (ForceNew)"),
};
const iamMember = (file: string, ownFields: readonly string[]): readonly ReplacementRule[] => [
  { fields: ownFields, source: googleBeta(file) },
  {
    fields: ["role", "member", "condition"],
    source: googleBeta("tpgiamresource/resource_iam_member.go (role, member, condition: ForceNew)"),
  },
];

/** Fields whose change replaces a resource, by Pulumi type token. */
export const typeReplacedFields: Readonly<Record<string, readonly ReplacementRule[]>> = {
  "gcp:container/cluster:Cluster": [
    {
      fields: [
        "name",
        "location",
        "project",
        "network",
        "subnetwork",
        "description",
        "initialNodeCount",
        "enableAutopilot",
        "networkingMode",
        "datapathProvider",
        "defaultMaxPodsPerNode",
        "ipAllocationPolicy.clusterSecondaryRangeName",
        "ipAllocationPolicy.servicesSecondaryRangeName",
        "ipAllocationPolicy.clusterIpv4CidrBlock",
        "ipAllocationPolicy.servicesIpv4CidrBlock",
        "privateClusterConfig.masterIpv4CidrBlock",
        "privateClusterConfig.privateEndpointSubnetwork",
        "clusterAutoscaling.autoProvisioningDefaults.bootDiskKmsKey",
      ],
      source: container("resource_container_cluster.go (ForceNew)"),
    },
    nodeConfig,
  ],
  "gcp:container/nodePool:NodePool": [
    {
      fields: [
        "name",
        "cluster",
        "location",
        "project",
        "initialNodeCount",
        "maxPodsPerNode",
        "placementPolicy",
      ],
      source: container("resource_container_node_pool.go (ForceNew)"),
    },
    nodeConfig,
  ],
  "gcp:compute/network:Network": [
    {
      fields: ["name", "project", "autoCreateSubnetworks", "description"],
      source: compute("resource_compute_network.go (ForceNew)"),
    },
  ],
  "gcp:compute/subnetwork:Subnetwork": [
    {
      fields: ["name", "network", "region", "project", "description"],
      source: compute("resource_compute_subnetwork.go (ForceNew)"),
    },
    // Growing the range is an update; anything else replaces the subnet.
    {
      fields: ["ipCidrRange"],
      when: "cidr-shrinks",
      source: compute(
        "resource_compute_subnetwork.go CustomizeDiff ForceNewIfChange(ip_cidr_range, IsShrinkageIpCidr)",
      ),
    },
  ],
  "gcp:compute/router:Router": [
    {
      fields: ["name", "network", "region", "project"],
      source: compute("resource_compute_router.go (ForceNew)"),
    },
  ],
  "gcp:compute/routerNat:RouterNat": [
    {
      fields: ["name", "router", "region", "project", "type", "endpointTypes", "initialNatIps"],
      source: compute("resource_compute_router_nat.go (ForceNew)"),
    },
  ],
  "gcp:compute/firewall:Firewall": [
    { fields: ["name", "project", "direction"], source: compute("resource_compute_firewall.go (ForceNew)") },
  ],
  "gcp:compute/globalAddress:GlobalAddress": [
    {
      fields: ["name", "project", "address", "addressType", "purpose", "network", "ipVersion", "description"],
      source: compute("resource_compute_global_address.go (ForceNew)"),
    },
  ],
  "gcp:compute/address:Address": [
    {
      fields: [
        "name",
        "project",
        "region",
        "address",
        "addressType",
        "purpose",
        "subnetwork",
        "network",
        "networkTier",
        "description",
      ],
      source: compute("resource_compute_address.go (ForceNew)"),
    },
  ],
  "gcp:compute/sSLPolicy:SSLPolicy": [
    {
      fields: ["name", "project", "description"],
      source: compute("resource_compute_ssl_policy.go (ForceNew)"),
    },
  ],
  "gcp:compute/regionSslPolicy:RegionSslPolicy": [
    {
      fields: ["name", "region", "project", "description"],
      source: compute("resource_compute_region_ssl_policy.go (ForceNew)"),
    },
  ],
  "gcp:certificatemanager/certificate:Certificate": [
    {
      fields: ["name", "project", "location", "scope", "managed"],
      source: googleBeta(
        "services/certificatemanager/resource_certificate_manager_certificate.go (ForceNew)",
      ),
    },
  ],
  "gcp:certificatemanager/certificateMap:CertificateMap": [
    {
      fields: ["name", "project"],
      source: googleBeta(
        "services/certificatemanager/resource_certificate_manager_certificate_map.go (ForceNew)",
      ),
    },
  ],
  "gcp:certificatemanager/certificateMapEntry:CertificateMapEntry": [
    {
      fields: ["name", "project", "map", "hostname", "matcher"],
      source: googleBeta(
        "services/certificatemanager/resource_certificate_manager_certificate_map_entry.go (ForceNew)",
      ),
    },
  ],
  "gcp:gkebackup/backupPlan:BackupPlan": [
    {
      fields: ["name", "project", "location", "cluster"],
      source: googleBeta("services/gkebackup/resource_gke_backup_backup_plan.go (ForceNew)"),
    },
  ],
  "gcp:kms/keyRing:KeyRing": [
    {
      fields: ["name", "location", "project"],
      source: googleBeta("services/kms/resource_kms_key_ring.go (ForceNew)"),
    },
  ],
  "gcp:kms/cryptoKey:CryptoKey": [
    {
      fields: [
        "name",
        "keyRing",
        "purpose",
        "importOnly",
        "destroyScheduledDuration",
        "versionTemplate.protectionLevel",
      ],
      source: googleBeta("services/kms/resource_kms_crypto_key.go (ForceNew)"),
    },
  ],
  "gcp:kms/cryptoKeyIAMMember:CryptoKeyIAMMember": iamMember(
    "services/kms/iam_kms_crypto_key.go (crypto_key_id: ForceNew)",
    ["cryptoKeyId"],
  ),
  "gcp:serviceaccount/account:Account": [
    {
      fields: ["accountId", "project"],
      source: googleBeta("services/resourcemanager/resource_google_service_account.go (ForceNew)"),
    },
  ],
  "gcp:serviceaccount/iAMMember:IAMMember": iamMember(
    "services/resourcemanager/iam_service_account.go (service_account_id: ForceNew)",
    ["serviceAccountId"],
  ),
  "gcp:projects/iAMMember:IAMMember": iamMember(
    "services/resourcemanager/iam_project.go (project: ForceNew)",
    ["project"],
  ),
  "gcp:projects/service:Service": [
    {
      fields: ["service", "project"],
      source: googleBeta("services/resourcemanager/resource_google_project_service.go (ForceNew)"),
    },
  ],
  "gcp:projects/serviceIdentity:ServiceIdentity": [
    {
      fields: ["service", "project"],
      source: googleBeta("services/resourcemanager/resource_project_service_identity.go (ForceNew)"),
    },
  ],
  "gcp:artifactregistry/repositoryIamMember:RepositoryIamMember": iamMember(
    "services/artifactregistry/iam_artifact_registry_repository.go (project, location, repository: ForceNew)",
    ["project", "location", "repository"],
  ),
  "kubernetes:helm.sh/v3:Release": [
    { fields: ["name", "namespace"], source: k8sProvider("helm_release.go Diff (forceNewFields)") },
  ],
  // With clusterIdentifier set (the platform sets it), a kubeconfig change alone replaces nothing.
  "pulumi:providers:kubernetes": [
    { fields: ["clusterIdentifier"], source: k8sProvider("provider.go DiffConfig (clusterIdentifierKey)") },
  ],
};

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
