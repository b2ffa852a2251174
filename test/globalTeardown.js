module.exports = () => require("./tempFolders").teardown();
