/**
 * Modules that @pulumi/pulumi loads when it is imported but that the tests never call: npm's dependency
 * resolver (@npmcli/arborist, normalize-package-data: for packaging a function's closure) and the
 * TypeScript compiler (typescript-shim: for parsing a serialized function). Jest evaluates every module
 * again in each test file, so loading them eagerly costs each file about 0.6 s of CPU. jest.config.js
 * maps them to these stand-ins, which load the real module the first time anything is read from it,
 * so a test that does use one gets the real thing.
 */
const path = require("path");

const pulumiDir = path.dirname(require.resolve("@pulumi/pulumi/package.json"));

/** The real module, resolved from the SDK's folder as the SDK resolves it. */
const fromPulumi = (id) => require.resolve(id, { paths: [pulumiDir] });

/**
 * A stand-in for a CommonJS module, loaded on first use. It says it is an ES module, so the importers
 * TypeScript and swc emit (`__importStar`, `__importDefault`) hand it over as it is instead of copying
 * every export at import time; `default` is then the module itself, as those importers expect.
 */
function lazy(load) {
  let loaded;
  const target = () => (loaded ??= load());
  return new Proxy(
    {},
    {
      get(_, key) {
        if (key === "__esModule") return true;
        const mod = target();
        if (key === "default" && !(mod && mod.__esModule)) return mod;
        return mod[key];
      },
      has: (_, key) => key in target(),
      ownKeys: () => Reflect.ownKeys(target()),
      getOwnPropertyDescriptor: (_, key) => {
        const d = Reflect.getOwnPropertyDescriptor(target(), key);
        return d && { ...d, configurable: true };
      },
    },
  );
}

module.exports = { lazy, fromPulumi, pulumiDir };
