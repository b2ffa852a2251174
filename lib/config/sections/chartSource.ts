/** The platform:chartSource section: where every Helm release's chart comes from. */
import { z } from "zod";
import { chartDigest } from "./fields";

/**
 * Where every Helm release's chart comes from: each chart's upstream repository, a mirror, or a local
 * folder (docs/upgrades.md, "Where charts come from").
 */
export const chartSourceSchema = z.strictObject({
  /**
   * A mirror holding every chart at its pinned version: an OCI registry (`oci://host/path`, each chart at
   * `<mirror>/<chart>:<version>`, such as Artifact Registry) or an HTTPS Helm repository. @default none:
   * each chart's upstream repository
   */
  mirror: z
    .string()
    .regex(
      /^(oci|https):\/\/[^\s/]+(\/[^\s]*)?$/,
      "an oci:// registry path or an https:// Helm repository, such as oci://europe-docker.pkg.dev/acme/charts",
    )
    .optional(),
  /**
   * A folder of the pinned charts, relative to the program's folder, as `helm pull` writes them: each
   * `<chart>-<version>.tgz`, or unpacked (`helm pull --untar --untardir <folder>/<chart>-<version>`).
   * @default none
   */
  folder: z.string().min(1).optional(),
  /**
   * The sha256 digest each pinned chart must have, by chart name (`istiod`, `cert-manager`): Helm checks
   * it against an OCI mirror, the platform against a folder's `.tgz`. An HTTPS repository cannot be
   * checked. @default none
   */
  digests: z.record(z.string(), chartDigest).optional(),
});
