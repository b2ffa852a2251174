/** The platform:isolation section: which app namespaces take calls only from allowed namespaces. */
import { z } from "zod";
import { resourceName } from "./fields";

/**
 * Isolation of app namespaces from each other (docs/mesh-policy.md, "Namespace isolation"). An isolated
 * namespace takes calls from its own pods, from the ingress, monitoring and mesh the platform runs, and
 * from the callers its apps' authorization rules name; nothing else from other namespaces. Two layers
 * enforce it: a NetworkPolicy, and the mesh's authorization where the mesh enforces per-request policy
 * (Linkerd; Istio's sidecars).
 */
export const isolationSchema = z.strictObject({
  /** Isolate every app namespace but those in `except`. @default true in staging and prod, false in dev */
  enabled: z.boolean().optional(),
  /**
   * App namespaces left open to every namespace: no NetworkPolicy, and no mesh policy unless
   * mesh.denyByDefault names them. @default none
   */
  except: z.array(resourceName).min(1).optional(),
});
