/** An app's mesh section (platform:apps[].mesh): its routes and who may call it. */
import { z } from "zod";
import { httpMethods } from "../schema";
import { valueCheck } from "../valueChecks";
import { resourceName } from "./fields";

// Gateway API Duration (GEP-2257), the format of HTTPRoute timeouts.
const duration = z
  .string()
  .regex(/^([0-9]{1,5}(h|m|s|ms)){1,4}$/, "a Gateway API duration such as 500ms, 10s or 1m30s");
/**
 * A request path as mesh routes and authorization rules match it: `/authors.json` is that exact path,
 * `/authors/*` is every path under `/authors` (a prefix, whole segments). Both meshes read both forms.
 */
export const meshPath = z
  .string()
  .regex(
    /^(\/[-A-Za-z0-9/._~!$&'()+,;=:@%]*|\/([-A-Za-z0-9/._~!$&'()+,;=:@%]*\/)?\*)$/,
    "an exact path such as /authors.json, or a prefix ending in /* such as /authors/* (a * elsewhere is not matchable by both meshes)",
  );
const headerName = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, "an HTTP header name such as x-request-id");

export const meshRouteSchema = z.strictObject({
  /** Names the HTTPRoute `<app>-<name>`, and the route in the mesh's metrics. */
  name: resourceName,
  /** Requests this route takes: any match may apply; within one, all conditions must. @default every request */
  matches: z
    .array(
      z.strictObject({
        path: meshPath.optional(),
        method: z.enum(httpMethods).optional(),
        /** Exact header values, e.g. `x-request-id: alternative`. */
        headers: z
          .record(headerName, z.string().min(1))
          .check(
            valueCheck((h) =>
              Object.keys(h).length > 16
                ? {
                    problem: `has ${Object.keys(h).length} headers; the HTTPRoute CRD allows at most 16 in one match`,
                    allowed: "at most 16 headers, such as x-request-id: alternative",
                    fix: (path) => `split ${path} over several matches of at most 16 headers each`,
                  }
                : undefined,
            ),
          )
          .optional(),
      }),
    )
    .min(1)
    .max(8)
    .optional(),
  /** Apps in the same namespace the requests go to, by weight (a canary). @default this app */
  backends: z
    .array(
      z.strictObject({
        app: resourceName,
        /** That app's Service port. @default its port */
        port: z.int().min(1).max(65535).optional(),
        /** Share relative to the other backends. @default 1 */
        weight: z.int().min(0).max(1000).optional(),
      }),
    )
    .min(1)
    .max(16)
    .optional(),
  /** HTTPRoute timeouts: `request` end to end, `backendRequest` per try. */
  timeouts: z.strictObject({ request: duration.optional(), backendRequest: duration.optional() }).optional(),
  /** Retry failed requests (Linkerd). Only for idempotent requests. */
  retry: z
    .strictObject({
      /** Statuses that are retried: 5xx, gateway-error, a code such as 503, or a range such as 500-504. */
      on: z
        .array(
          z
            .string()
            .regex(
              /^(5xx|gateway-error|[1-5][0-9]{2}(-[1-5][0-9]{2})?)$/,
              "5xx, gateway-error, a status such as 503, or a range such as 500-504",
            ),
        )
        .min(1),
      /** Retries after the first try. @default 1 */
      attempts: z.int().min(1).max(10).optional(),
      /** Time limit of each try. */
      timeout: duration.optional(),
    })
    .optional(),
  /** Fault injection: this share of the route's requests goes to a backend that answers `status`. */
  fault: z
    .strictObject({
      percent: z.int().min(1).max(100),
      /** @default 500 */
      status: z.int().min(400).max(599).optional(),
    })
    .optional(),
});

export const accessRuleSchema = z.strictObject({
  /**
   * Who may call: an app of the same namespace by name (`webapp`), or any service account as
   * `<namespace>/<service account>`. Callers are identified by their mesh identity (mTLS).
   */
  from: z
    .array(
      z
        .string()
        .regex(
          /^([a-z0-9]([-a-z0-9]*[a-z0-9])?\/)?[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/,
          "an app name such as webapp, or <namespace>/<service account>",
        ),
    )
    .min(1)
    .max(16),
  /** @default every method */
  methods: z.array(z.enum(httpMethods)).min(1).optional(),
  /** @default every path */
  paths: z.array(meshPath).min(1).max(16).optional(),
});

export const appMeshSchema = z.strictObject({
  /** Routes for calls to this app's Service through the mesh (HTTPRoutes with the Service as parent). */
  routes: z.array(meshRouteSchema).min(1).max(16).optional(),
  /**
   * Who may call which requests of this app. With rules, everything else is refused; probes, metrics
   * scrapes and the app's ingress still get through.
   */
  authorization: z.strictObject({ rules: z.array(accessRuleSchema).min(1).max(32) }).optional(),
});
