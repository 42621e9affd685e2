/**
 * Which chat a chat tab shows, carried by the tab itself.
 *
 * VS Code saves three things of a webview panel with its layout and hands them back to the
 * serializer: the title, the state its view last stored (`setState`) and the webview options the
 * extension set. The state exists only once the view's script has run: a panel opened in the
 * background and hidden before its view loaded (several tabs reopened at once, a quick switch) has
 * none, and a browser reload can drop it. The options are set by the host as it creates the panel,
 * so they are saved whether or not the view ever ran: a tab's chat id rides in them, as one extra
 * `localResourceRoots` entry `<extension>/media/chat-tab/<chat id>` (inside `media/`, which the
 * view may already read: it grants nothing; no file is ever there).
 *
 * A restored tab's chat is the one its options name, else the one its state names, else none (the
 * tab offers a picker). Never a chat matched by title or age: a title can repeat or change while
 * the tab is not drawn, and another window's tabs are in the same journal.
 */
import * as vscode from 'vscode';
import { isSessionId, sessionIdFromState } from '../protocol/decode';

/** The folder under the extension whose last segment is the tab's chat id. */
const IDENTITY_FOLDER = ['media', 'chat-tab'] as const;

/** The `localResourceRoots` entry that says a tab shows chat `sessionId` (see module docstring). */
export function identityRoot(extensionUri: vscode.Uri, sessionId: string): vscode.Uri {
  return vscode.Uri.joinPath(extensionUri, ...IDENTITY_FOLDER, encodeURIComponent(sessionId));
}

/**
 * The chat id a panel's webview options carry, or undefined when none (a tab of an older build, an
 * orphan tab) or when the entry is malformed.
 * @param options a panel's `webview.options` as VS Code restored them.
 */
export function sessionIdFromOptions(options: { readonly localResourceRoots?: readonly { readonly path: string }[] } | undefined): string | undefined {
  const suffix = `/${IDENTITY_FOLDER.join('/')}/`;
  for (const root of options?.localResourceRoots ?? []) {
    const at = typeof root?.path === 'string' ? root.path.lastIndexOf(suffix) : -1;
    if (at < 0) continue;
    let id: string;
    try {
      id = decodeURIComponent(root.path.slice(at + suffix.length));
    } catch {
      continue;
    }
    if (isSessionId(id)) return id;
  }
  return undefined;
}

/**
 * The chat a restored panel shows: the one its options name, else the one its state names, else
 * undefined. Where both name one and disagree, the options win: the host wrote them, the state was
 * written by a view that may have shown something else before.
 */
export function restoredIdentity(options: Parameters<typeof sessionIdFromOptions>[0], state: unknown): { sessionId: string | undefined; from: 'options' | 'state' | 'none' } {
  const fromOptions = sessionIdFromOptions(options);
  if (fromOptions) return { sessionId: fromOptions, from: 'options' };
  const fromState = sessionIdFromState(state);
  return fromState ? { sessionId: fromState, from: 'state' } : { sessionId: undefined, from: 'none' };
}
