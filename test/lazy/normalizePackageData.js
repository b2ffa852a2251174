const { lazy, fromPulumi } = require(".");
module.exports = lazy(() => require(fromPulumi("normalize-package-data")));
