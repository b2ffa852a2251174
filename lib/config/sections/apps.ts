/** The platform:apps section: each app, its probes, metrics and exposure. */
import { z } from "zod";
import { exposurePaths, httpMethods } from "../schema";
import { checkedString, hostNameProblem, imageReferenceProblem } from "../valueChecks";
import { appMeshSchema } from "./appMesh";
import { resourceName } from "./fields";

export const appSchema = z.strictObject({
  name: resourceName,
  /** @default the team's first namespace with `team`, else the app's name */
  namespace: resourceName.optional(),
  /** The team the app belongs to: it runs in one of the team's namespaces (docs/teams.md). @default none */
  team: resourceName.optional(),
  image: checkedString(imageReferenceProblem),
  port: z.int().min(1).max(65535),
  /** @default 1 in dev, 2 elsewhere */
  replicas: z.int().min(1).max(1000).optional(),
  /**
   * A path on the app's port that answers while the process itself works, without asking its
   * dependencies: an HTTP liveness probe on it restarts a hung process. @default none: no liveness
   * probe (Kubernetes restarts the container when its process exits); never the readiness path
   */
  livenessPath: z.string().startsWith("/", "a path starting with /, such as /livez").optional(),
  /** Prometheus metrics on the app's port, scraped by the environment's monitoring. */
  metrics: z
    .strictObject({ path: z.string().startsWith("/", "a path starting with /, such as /metrics") })
    .optional(),
  /** Expose through the environment's ingress. */
  expose: z
    .strictObject({
      host: checkedString(hostNameProblem),
      /** @default / */
      path: z.string().startsWith("/", "a path starting with /, such as /shop").optional(),
      /** Which ways; list two during an Ingress-to-Gateway migration. @default [ingress.kind] */
      via: z.array(z.enum(exposurePaths)).min(1).optional(),
      /** Longest a request may take end to end. @default 30 */
      timeoutSeconds: z.int().min(1).max(86400).optional(),
      /** The app's readiness path, which load balancers health-check. @default / */
      healthCheckPath: z.string().startsWith("/", "a path starting with /, such as /healthz").optional(),
      /** Remove `path` before the request reaches the app. @default false */
      stripPrefix: z.boolean().optional(),
      /** Only these methods are routed. @default all */
      methods: z.array(z.enum(httpMethods)).min(1).optional(),
      /**
       * A Cloud Armor security policy (its name) in front of the app on Google's load balancers: a global
       * policy for global Gateway classes and GCE Ingress, a regional one for regional classes. @default none
       */
      securityPolicy: z
        .string()
        .regex(/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/, "a Cloud Armor security policy name such as shop-waf")
        .optional(),
    })
    .optional(),
  /** East-west traffic policy in the mesh: routes and authorization (docs/mesh-policy.md). */
  mesh: appMeshSchema.optional(),
});
