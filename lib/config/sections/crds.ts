/** The platform:crds section: who owns the CRD families the platform cannot decide alone. */
import { z } from "zod";
import { crdOwnerDeclarations } from "../schema";

/** Who owns CRD families the platform cannot decide alone. Everything else is derived (lib/crds). */
export const crdsSchema = z.strictObject({
  /**
   * Gateway API CRDs when GKE's channel is disabled: the platform installs the pinned upstream
   * bundle, or they are pre-installed. @default platform
   */
  gatewayApi: z.enum(crdOwnerDeclarations).optional(),
  /**
   * The pinned upstream `standard-install.yaml` (versions.gatewayApi), downloaded, when the platform
   * installs the Gateway API itself. Each CRD becomes its own resource, retained on delete.
   */
  gatewayApiBundleFile: z.string().min(1).optional(),
  /**
   * Prometheus Operator CRDs: `platform` (kube-prometheus-stack's, only with monitoring.backend
   * prometheus) or `pre-installed` (an existing operator's; not with backend prometheus). @default
   * platform with backend prometheus, pre-installed with existing-prometheus, none otherwise
   */
  prometheusOperator: z.enum(crdOwnerDeclarations).optional(),
});
