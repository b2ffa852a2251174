import * as path from "path";
import { renderProject, type RenderResult, type RenderedResource } from "../../lib/render";
import { at } from "../helpers";

/**
 * `pulumi destroy` then `pulumi up` of an environment must create nothing whose name collides with
 * something Google Cloud kept. This lists every GCP resource the platform retains on delete or that
 * GCP never deletes, and checks how each one's name avoids the collision.
 */

const root = path.resolve(__dirname, "../..");
const KEY_RING = "gcp:kms/keyRing:KeyRing";
const CRYPTO_KEY = "gcp:kms/cryptoKey:CryptoKey";
const SERVICE = "gcp:projects/service:Service";
const BACKUP_PLAN = "gcp:gkebackup/backupPlan:BackupPlan";
const SERVICE_IDENTITY = "gcp:projects/serviceIdentity:ServiceIdentity";

/** Left behind by a destroy: retained by the platform, or never deleted by GCP. */
function kept(r: RenderedResource): boolean {
  if (!r.custom || !r.type.startsWith("gcp:")) return false;
  return (
    r.options.retainOnDelete ||
    (r.type === SERVICE && at(r, "disableOnDestroy") === false) ||
    // A service agent cannot be deleted ("once created, this resource cannot be updated or destroyed").
    r.type === SERVICE_IDENTITY
  );
}

/** Enabling an enabled API, or asking for an existing service agent, returns what is there. */
function sameEveryTime(r: RenderedResource): void {
  expect(Object.keys(r.inputs).sort()).toEqual(
    r.type === SERVICE
      ? ["disableDependentServices", "disableOnDestroy", "project", "service"]
      : ["project", "service"],
  );
  expect(String(at(r, "service"))).toMatch(/^[a-z]+\.googleapis\.com$/);
}

/** Pulumi names it `<resource name>-<random suffix>` once and keeps the name in state. */
function autoNamed(r: RenderedResource): void {
  expect(at(r, "name")).toBeUndefined();
  // A stack made before the suffix keeps the fixed name it has instead of replacing the resource.
  expect(r.options.ignoreChanges).toContain("name");
}

/** How each kind of kept resource stays clear of what a previous environment left behind. */
const nameStrategies: Record<string, (r: RenderedResource, result: RenderResult) => void> = {
  // Cloud KMS never deletes key rings.
  [KEY_RING]: autoNamed,
  // Keys are never deleted either; a key's full name is its ring's, so a new ring makes it new.
  [CRYPTO_KEY]: (r, result) => {
    const ring = result.resources.find((x) => x.type === KEY_RING && r.dependencies.includes(x.key));
    expect(ring).toBeDefined();
    autoNamed(ring as RenderedResource);
    expect(String(at(r, "keyRing"))).toMatch(/\/keyRings\/.+-<known after deploy, random suffix>$/);
  },
  // Backups outlive the cluster; the plan has no fixed name, so a new environment makes a new plan.
  [BACKUP_PLAN]: (r) => expect(at(r, "name")).toBeUndefined(),
  [SERVICE]: sameEveryTime,
  [SERVICE_IDENTITY]: sameEveryTime,
};

const renders = new Map<string, Promise<RenderResult>>();
const renderOf = (stack: string): Promise<RenderResult> => {
  const cached = renders.get(stack) ?? renderProject(root, stack);
  renders.set(stack, cached);
  return cached;
};

/** What every environment of the repository leaves behind: its key, its APIs and GKE's service agent. */
const leftBehind = (stack: string, apis: readonly string[]): string[] => [
  `${KEY_RING}::gke-${stack}-secrets-ring`,
  `${CRYPTO_KEY}::gke-${stack}-secrets-key`,
  ...apis.map((api) => `${SERVICE}::gke-${stack}-apis-${api}`),
  `${SERVICE_IDENTITY}::gke-${stack}-apis-container-agent`,
];
/** Staging and prod also leave their backup plan, Backup for GKE's API and its service agent. */
const withBackups = (stack: string, apis: readonly string[]): string[] => [
  ...leftBehind(stack, [...apis, "gkebackup"]),
  `${SERVICE_IDENTITY}::gke-${stack}-apis-gkebackup-agent`,
  `${BACKUP_PLAN}::gke-${stack}-backups`,
];
const baseApis = [
  "certificatemanager",
  "cloudkms",
  "cloudresourcemanager",
  "compute",
  "container",
  "containersecurity",
  "iam",
];

describe.each([
  ["dev", leftBehind("dev", baseApis)],
  ["staging", withBackups("staging", [...baseApis, "binaryauthorization"])],
  // Prod names the repositories its nodes pull from, whose IAM is Artifact Registry's.
  ["prod", withBackups("prod", [...baseApis, "artifactregistry", "binaryauthorization"])],
])("stacks/%s", (stack, expected) => {
  test("every resource left behind by a destroy is listed", async () => {
    const result = await renderOf(stack);
    expect(
      result.resources
        .filter(kept)
        .map((r) => r.key)
        .sort(),
    ).toEqual([...expected].sort());
  });

  test("and each one's name cannot collide with what a previous environment left", async () => {
    const result = await renderOf(stack);
    for (const r of result.resources.filter(kept)) {
      const strategy = nameStrategies[r.type];
      expect(strategy).toBeDefined();
      strategy(r, result);
    }
  });
});
