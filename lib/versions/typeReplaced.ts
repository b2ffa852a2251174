/** What replaces a resource of a Pulumi type: ForceNew of the Terraform schemas @pulumi/gcp bridges, and the Kubernetes provider's Helm release and provider config. */
import { googleBeta, k8sProvider, type ReplacementRule } from "./replacementRules";

// Only fields the platform sets, or a user could change through it.

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
        // Not authenticatorGroupsConfig: GKE updates it in place (UpdateCluster's DesiredAuthenticatorGroupsConfig).
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
