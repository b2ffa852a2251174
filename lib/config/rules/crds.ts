/** The cross-field rules of CRD ownership (platform:crds) and the Prometheus that monitoring names. */
import type { EnvironmentInput } from "../environment";
import type { ConfigProblem } from "../errors";
import type { PlatformConfig } from "../resolved";
import { gatewayApi } from "../../versions";
import { cfg } from "./key";

export function crdRules(input: EnvironmentInput, config: PlatformConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const platformGateway =
    config.cluster.gatewayApi === "disabled" && (config.crds.gatewayApi ?? "platform") === "platform";
  if (platformGateway && !config.crds.gatewayApiBundleFile) {
    problems.push({
      path: cfg("crds.gatewayApiBundleFile"),
      problem:
        "is missing: with GKE's Gateway API disabled, the platform installs the pinned upstream bundle from a local copy",
      fix: `download standard-install.yaml of ${gatewayApi.version} (github.com/kubernetes-sigs/gateway-api/releases) and set platform:crds.gatewayApiBundleFile to its path, or set platform:crds.gatewayApi to "pre-installed"`,
    });
  }
  if (input.crds?.gatewayApiBundleFile !== undefined && !platformGateway) {
    problems.push({
      path: cfg("crds.gatewayApiBundleFile"),
      problem:
        "is set, but the platform does not install the Gateway API here (GKE owns it, or it is pre-installed)",
      fix: "remove platform:crds.gatewayApiBundleFile",
    });
  }
  if (config.crds.prometheusOperator === "platform" && config.monitoring.backend !== "prometheus") {
    problems.push({
      path: cfg("crds.prometheusOperator"),
      problem: `is "platform", but only the platform's Prometheus (monitoring.backend "prometheus") installs those CRDs; the backend is "${config.monitoring.backend}"`,
      fix: 'remove platform:crds.prometheusOperator, or set platform:monitoring.backend to "prometheus"',
    });
  }
  if (input.monitoring?.prometheusUrl !== undefined && config.monitoring.backend !== "existing-prometheus") {
    problems.push({
      path: cfg("monitoring.prometheusUrl"),
      problem: `is set, but monitoring.backend is "${config.monitoring.backend}"; it names an existing Prometheus`,
      fix: 'remove platform:monitoring.prometheusUrl, or set platform:monitoring.backend to "existing-prometheus"',
    });
  }
  if (
    input.monitoring?.scraperNamespace !== undefined &&
    config.monitoring.backend !== "existing-prometheus"
  ) {
    problems.push({
      path: cfg("monitoring.scraperNamespace"),
      problem: `is set, but monitoring.backend is "${config.monitoring.backend}"; it names where an existing Prometheus runs, and the platform knows where its own monitoring does`,
      fix: 'remove platform:monitoring.scraperNamespace, or set platform:monitoring.backend to "existing-prometheus"',
    });
  }
  return problems;
}
