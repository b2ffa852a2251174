/** The whole environment config as a user writes it: one key per section (environmentInputSchema). */
import { z } from "zod";
import { tiers } from "./schema";
import { appSchema } from "./sections/apps";
import { chartSourceSchema } from "./sections/chartSource";
import { clusterSchema } from "./sections/cluster";
import { crdsSchema } from "./sections/crds";
import { gcpSchema } from "./sections/gcp";
import { ingressSchema } from "./sections/ingress";
import { isolationSchema } from "./sections/isolation";
import { meshSchema } from "./sections/mesh";
import { monitoringSchema } from "./sections/monitoring";
import { networkSchema } from "./sections/network";
import { overridesSchema } from "./sections/overrides";
import { teamsSchema } from "./sections/teams";
import { sizingSchema } from "./sizing";

/**
 * Everything one environment sets, as a user writes it in `stacks/Pulumi.<env>.yaml` under the
 * `platform:` namespace (plus the provider's own `gcp:project` and `gcp:region`); top-level keys are
 * Pulumi config keys (`platform:<key>`), each a section of its own module (`sections/`). Every object
 * is strict: an unknown key is an error that names the nearest valid key. Everything not required has
 * a default per tier (see `defaults.ts`); cross-field rules live in `rules/`.
 */
export const environmentInputSchema = z.strictObject({
  /** Which tier's defaults apply. */
  tier: z.enum(tiers),
  /** Read from the provider's `gcp:project` and `gcp:region`. */
  gcp: gcpSchema,
  network: networkSchema.optional(),
  cluster: clusterSchema.optional(),
  mesh: meshSchema.optional(),
  /** Which app namespaces only take calls from other namespaces that are allowed (docs/mesh-policy.md). */
  isolation: isolationSchema.optional(),
  ingress: ingressSchema.optional(),
  monitoring: monitoringSchema.optional(),
  crds: crdsSchema.optional(),
  chartSource: chartSourceSchema.optional(),
  /** Teams: namespaces, access, quota and who may call them (docs/teams.md). */
  teams: teamsSchema.optional(),
  apps: z.array(appSchema).optional(),
  /** Replicas, requests and limits of what the platform installs (docs/configuration.md, "Sizing"). */
  sizing: sizingSchema.optional(),
  overrides: overridesSchema.optional(),
});

export type EnvironmentInput = z.infer<typeof environmentInputSchema>;
