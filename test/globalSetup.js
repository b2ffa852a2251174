module.exports = () => require("./tempFolders").setup();
