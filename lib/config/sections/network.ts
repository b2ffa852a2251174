/** The platform:network section: the VPC's name and ranges. */
import { z } from "zod";
import { cidr, resourceName } from "./fields";

export const networkSchema = z.strictObject({
  /** Name of the VPC. @default `<cluster name>-vpc` */
  name: resourceName.optional(),
  /** Primary range of the node subnet. @default 10.0.0.0/20 */
  nodesCidr: cidr.optional(),
  /** Secondary range for pods. @default 10.4.0.0/14 */
  podsCidr: cidr.optional(),
  /** Secondary range for Services. @default 10.8.0.0/20 */
  servicesCidr: cidr.optional(),
  /** Proxy-only subnet for regional and internal Gateway classes. @default 10.9.0.0/23 */
  proxyOnlyCidr: cidr.optional(),
  /** The control plane's /28 on private clusters. @default 172.16.0.0/28 */
  controlPlaneCidr: cidr.optional(),
});
