/** The gcp section of the environment config: the provider's project and region. */
import { z } from "zod";
import { gcpRegionProblem } from "../gcpValues";
import { checkedString } from "../valueChecks";

export const gcpSchema = z.strictObject({
  project: z.string().regex(/^[a-z][-a-z0-9]{4,28}[a-z0-9]$/, "a GCP project id such as acme-platform-dev"),
  region: checkedString(gcpRegionProblem),
});
