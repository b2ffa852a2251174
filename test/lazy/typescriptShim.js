const path = require("path");
const { lazy, pulumiDir } = require(".");
module.exports = lazy(() => require(path.join(pulumiDir, "typescript-shim.js")));
