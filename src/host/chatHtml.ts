/**
 * A chat panel's webview as VS Code creates or restores it: its options (scripts on; resources from
 * the extension's `dist/` and `media/` only) and its HTML (a strict Content Security Policy with a
 * fresh nonce per page; the chat's id on the body for the view's first message).
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import { identityRoot } from './tabIdentity';

/**
 * Webview options for every chat panel (created or restored).
 * @param sessionId the chat the panel shows, carried in the options so VS Code saves it with the
 *                  tab (tabIdentity.ts); undefined for a tab with no chat yet.
 */
export function chatWebviewOptions(extensionUri: vscode.Uri, sessionId: string | undefined): vscode.WebviewOptions & vscode.WebviewPanelOptions {
  return {
    enableScripts: true,
    localResourceRoots: [
      vscode.Uri.joinPath(extensionUri, 'dist'),
      vscode.Uri.joinPath(extensionUri, 'media'),
      ...(sessionId === undefined ? [] : [identityRoot(extensionUri, sessionId)]),
    ],
    enableFindWidget: true,
  };
}

/**
 * The webview's HTML: strict CSP, fresh nonce, scripts and styles from the extension's folders only.
 * The nonce also admits the `<style>` element the toolkit's FAST foundation adds to test for
 * `:focus-visible` (it reads the nonce from `meta[property="csp-nonce"]`); refused, that test fails
 * (a CSP error in the console) and the controls fall back to showing focus on every click.
 */
export function renderHtml(webview: vscode.Webview, extensionUri: vscode.Uri, sessionId: string | undefined): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'chat.css'));
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource} 'nonce-${nonce}'`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  const session = sessionId ? ` data-session-id="${escapeAttribute(sessionId)}"` : '';
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${csp}">
  <meta property="csp-nonce" content="${nonce}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <link href="${style}" rel="stylesheet">
  <title>Agent chat</title>
</head>
<body${session}>
  <div id="app"></div>
  <script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
}

/** `value` safe inside a double-quoted HTML attribute. */
function escapeAttribute(value: string): string {
  return value.replace(/[&"<>]/g, (c) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' })[c]!);
}
