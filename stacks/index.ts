import { Platform, loadEnvironmentConfig } from "../lib";

/**
 * The repository's own Pulumi program: one environment per stack, configured in
 * `stacks/Pulumi.<env>.yaml`. `pulumi up` and `npm run render -- <env>` both run this function.
 */
export = () => {
  const config = loadEnvironmentConfig();
  const platform = new Platform("platform", { config });
  return platform.outputs();
};
