/**
 * The chat view's page (src/host/chatHtml.ts): its Content Security Policy admits scripts by the
 * page's nonce only and styles from the extension's files and that nonce, which the page also names in
 * `meta[property="csp-nonce"]` for the toolkit's own `<style>` element (refused before: a CSP error on
 * every load, and the toolkit's `:focus-visible` test failing); a fresh nonce per page; the chat's id
 * escaped into the body. `vscode` is replaced by the little the module touches.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import './vscodeStub';

// Loaded after the stand-in is in place (a static import would load the real `vscode` first).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { renderHtml } = require('../../src/host/chatHtml') as typeof import('../../src/host/chatHtml');

const webview = { cspSource: "'self' https://*.vscode-cdn.net", asWebviewUri: (u: { path: string }) => `https://file+.vscode-resource${u.path}` };

describe('the chat view\'s page', () => {
  it('admits scripts by nonce and styles by source and nonce, names the nonce for the toolkit, and never allows inline styles', () => {
    const html = renderHtml(webview as never, { path: '/ext' } as never, 'chat-"1"<');
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)![1]!;
    const nonce = /<meta property="csp-nonce" content="([^"]+)">/.exec(html)![1]!;
    assert.match(nonce, /^[A-Za-z0-9+/]{22}==$/, '16 random bytes');
    assert.deepEqual(csp.split('; '), [
      "default-src 'none'",
      `style-src 'self' https://*.vscode-cdn.net 'nonce-${nonce}'`,
      "font-src 'self' https://*.vscode-cdn.net",
      "img-src 'self' https://*.vscode-cdn.net data:",
      `script-src 'nonce-${nonce}'`,
    ]);
    assert.ok(!csp.includes('unsafe-inline'));
    assert.match(html, new RegExp(`<script nonce="${nonce.replace(/[+/]/g, '\\$&')}" src="https://file\\+\\.vscode-resource/ext/dist/webview\\.js"></script>`));
    assert.match(html, /<body data-session-id="chat-&quot;1&quot;&lt;">/);
    assert.notEqual(/csp-nonce" content="([^"]+)"/.exec(renderHtml(webview as never, { path: '/ext' } as never, undefined))![1], nonce, 'a fresh nonce per page');
  });
});
