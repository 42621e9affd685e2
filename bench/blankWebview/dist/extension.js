/**
 * The view benches' floors: what VS Code itself takes, here, for what our extension does, with
 * nothing of ours in it.
 * - `nacBench.openBlank` (the long-chat view bench, bench/longChatView.ts): a WebviewPanel opened by a
 *   command, with static HTML and no script. The page holds an element `#transcript` so the bench's
 *   probe (bench/longChatProbe.ts) watches it as it watches a chat view, and `#nac-blank` to be seen
 *   painted. Its serializer restores the same page after Reload Window (the floor of a restored tab).
 * - `nacBench.quickPick` (the chat list bench, bench/chatListView.ts): a QuickPick of 100 items shaped
 *   like Open Chat…'s (a title, a description, a separator), all in memory, with the same
 *   placeholder.
 */
'use strict';
const vscode = require('vscode');

const BLANK_HTML = '<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="default-src \'none\';"></head>'
  + '<body><div id="transcript"><p id="nac-blank">blank</p></div></body></html>';

/** 100 items: "Benchmark chat" first (the row the bench waits for), then numbered ones. */
function pickItems() {
  const items = [{ label: 'This workspace', kind: vscode.QuickPickItemKind.Separator }];
  for (let i = 0; i < 100; i++) {
    items.push({ label: i === 0 ? 'Benchmark chat' : `Benchmark chat ${i}`, description: `Local agent · ${i + 1} min ago`, id: String(i) });
  }
  return items;
}

/** Registers the commands and the serializer (see the module docstring). */
function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand('nacBench.openBlank', () => {
      const panel = vscode.window.createWebviewPanel('nacBenchBlank', 'Blank webview', vscode.ViewColumn.Active, { enableScripts: false });
      panel.webview.html = BLANK_HTML;
    }),
    vscode.window.registerWebviewPanelSerializer('nacBenchBlank', {
      deserializeWebviewPanel(panel) {
        panel.webview.html = BLANK_HTML;
        return Promise.resolve();
      },
    }),
    vscode.commands.registerCommand('nacBench.quickPick', () => {
      const pick = vscode.window.createQuickPick();
      pick.placeholder = 'Open a chat';
      pick.matchOnDescription = true;
      pick.items = pickItems();
      pick.onDidAccept(() => pick.hide());
      pick.onDidHide(() => pick.dispose());
      pick.show();
    }),
  );
}

module.exports = { activate };
