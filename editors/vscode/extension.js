// The gdl extension: starts `gdl lsp` (the language server of the gdl package) for .gdl files.
// Highlighting comes from syntaxes/gdl.tmLanguage.json; everything else from the server.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace.getConfiguration("gdl").get("server.command", ["gdl", "lsp"]);
  const serverOptions = { command, args };
  const clientOptions = { documentSelector: [{ scheme: "file", language: "gdl" }, { scheme: "untitled", language: "gdl" }] };
  client = new LanguageClient("gdl", "gdl language server", serverOptions, clientOptions);
  client.start();
  context.subscriptions.push({ dispose: () => client && client.stop() });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
