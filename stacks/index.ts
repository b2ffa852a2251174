import { Platform, loadPlan } from "../lib";

/**
 * The repository's own Pulumi program: one environment per stack, configured in
 * `stacks/Pulumi.<env>.yaml`. `pulumi up` and `npm run render -- <env>` both run this function.
 */
export = () => {
  const platform = new Platform("platform", { plan: loadPlan() });
  return platform.outputs();
};
