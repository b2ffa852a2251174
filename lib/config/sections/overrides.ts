/** The platform:overrides section: chart values over the platform's, by release. */
import { z } from "zod";

/** Changes to what the platform installs, without forking it. */
export const overridesSchema = z.strictObject({
  /** Values deep-merged over the platform's for a Helm release, by release name. */
  charts: z
    .record(
      z.string(),
      z.strictObject({
        values: z.record(z.string(), z.unknown()),
        /** Take over CRD flags that CRD ownership decides. @default false */
        overrideCrdFlags: z.boolean().optional(),
      }),
    )
    .optional(),
});
