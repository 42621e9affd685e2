/**
 * The long-chat view bench's floor (bench/longChatView.ts): what VS Code itself takes, here, to show
 * a WebviewPanel opened by a command, with static HTML and no script of its own. The page holds an
 * element `#transcript` so the bench's probe (bench/longChatProbe.ts) watches it as it watches a
 * chat view, and `#nac-blank` to be seen painted.
 */
'use strict';
const vscode = require('vscode');

/** Registers `nacBench.openBlank`: a new blank WebviewPanel in the active column, each time. */
function activate(context) {
  context.subscriptions.push(vscode.commands.registerCommand('nacBench.openBlank', () => {
    const panel = vscode.window.createWebviewPanel('nacBenchBlank', 'Blank webview', vscode.ViewColumn.Active, { enableScripts: false });
    panel.webview.html = '<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src \'none\';"></head>'
      + '<body><div id="transcript"><p id="nac-blank">blank</p></div></body></html>';
  }));
}

module.exports = { activate };
