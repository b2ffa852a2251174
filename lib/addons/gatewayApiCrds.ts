import * as fs from "fs";
import type * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { ApiObject } from "cdk8s";
import * as YAML from "yaml";
import { ConfigError } from "../config";
import { gatewayApi } from "../versions";
import { deployChart, newChart, type KubeObject } from "../deploy";

const at = "platform:crds.gatewayApiBundleFile";

/**
 * Reads the pinned upstream standard-channel bundle (`standard-install.yaml`) and checks that every
 * CRD in it is that version and channel, so a stale or experimental download is refused.
 */
export function readGatewayApiBundle(file: string): KubeObject[] {
  if (!fs.existsSync(file)) {
    throw new ConfigError([
      {
        path: at,
        problem: `${JSON.stringify(file)} does not exist`,
        fix: `download standard-install.yaml of ${gatewayApi.version} there`,
      },
    ]);
  }
  const docs = YAML.parseAllDocuments(fs.readFileSync(file, "utf8"))
    .map((d) => d.toJS() as KubeObject | null)
    .filter((d): d is KubeObject => d !== null && typeof d === "object" && typeof d.kind === "string");
  const crds = docs.filter((d) => d.kind === "CustomResourceDefinition");
  if (crds.length === 0) {
    throw new ConfigError([
      {
        path: at,
        problem: `${JSON.stringify(file)} holds no CustomResourceDefinition`,
        fix: "point it at the release's standard-install.yaml",
      },
    ]);
  }
  for (const crd of crds) {
    const annotations = (crd.metadata.annotations ?? {}) as Record<string, string>;
    const version = annotations["gateway.networking.k8s.io/bundle-version"];
    const channel = annotations["gateway.networking.k8s.io/channel"];
    if (version !== gatewayApi.version || channel !== gatewayApi.channel) {
      throw new ConfigError([
        {
          path: at,
          problem: `CRD ${crd.metadata.name} is bundle ${String(version)} channel ${String(channel)}`,
          allowed: `bundle ${gatewayApi.version}, channel ${gatewayApi.channel} (lib/versions)`,
          fix: `download standard-install.yaml of ${gatewayApi.version}, not the experimental channel or another release`,
        },
      ]);
    }
  }
  return docs;
}

/**
 * The Gateway API CRDs, when the platform owns them (GKE's channel disabled): every object of the
 * pinned bundle as its own resource, retained on delete, so no change to the stack ever deletes a
 * route CRD and the routes in it. Removing them is a deliberate `kubectl delete` (docs/linkerd.md).
 */
export class GatewayApiCrds extends pulumi.ComponentResource {
  readonly resources: readonly pulumi.Resource[];

  constructor(
    name: string,
    args: { bundleFile: string; provider: k8s.Provider },
    opts?: pulumi.ComponentResourceOptions,
  ) {
    super("gke-mesh-platform:addons:GatewayApiCrds", name, {}, opts);
    const chart = newChart("gateway-api");
    readGatewayApiBundle(args.bundleFile).forEach((o, i) => new ApiObject(chart, `object-${i}`, o));
    this.resources = [
      ...deployChart(name, chart, { provider: args.provider, parent: this, retainOnDelete: true }).values(),
    ];
    this.registerOutputs({});
  }
}
