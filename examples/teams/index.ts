import { Platform, loadPlan } from "gke-mesh-platform";

// The whole environment comes from Pulumi.<stack>.yaml; see README.md for what it builds.
export = () => {
  const platform = new Platform("platform", { plan: loadPlan() });
  return platform.outputs();
};
