const { lazy, fromPulumi } = require(".");
module.exports = lazy(() => require(fromPulumi("@npmcli/arborist")));
