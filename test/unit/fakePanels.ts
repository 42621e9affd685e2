/**
 * The real `ChatPanels` (src/host/chatPanels.ts) in plain Node, with `vscode` replaced by the
 * stand-in (vscodeStub.ts, whose layout, tabs and `said` are re-exported here): a stand-in
 * WebviewPanel that records what the host posts and plays the view's messages, and the view's own
 * reducer folding what was posted. Import this module before anything that loads `vscode` (it
 * installs the stand-in when loaded).
 */
import { strict as assert } from 'node:assert';
import type { HostMessage } from '../../src/protocol/messages';
import type { ChatRuntime } from '../../src/runtime/chatRuntime';
import { INITIAL_VIEW_STATE, reduceHostMessage, type ViewState } from '../../webview/state';
import { waitFor } from './helpers';
import { vscodeStub } from './vscodeStub';

export { chatTab, layout, said } from './vscodeStub';

/** A message the host posted, with the sequence number the panel stamps on updates. */
export type Posted = HostMessage & { seq?: number };

/**
 * A stand-in WebviewPanel: what the host posted, `receive` to play a view message, `view()` the view's
 * state, and what the host did to the panel itself (`events`: 'reveal', 'reveal-keep-focus', 'dispose').
 */
export interface FakePanel {
  readonly panel: object;
  readonly posted: Posted[];
  readonly events: string[];
  receive(raw: unknown): void;
  view(): ViewState;
  /**
   * The user closes the tab: `onDidDispose` listeners run, and from then on the panel's and its
   * webview's properties throw 'Webview is disposed', as VS Code's do.
   */
  close(): void;
  /** VS Code changes the panel's view state (a tab shown or hidden): `onDidChangeViewState` listeners run. */
  setViewState(state: { readonly active: boolean; readonly visible: boolean }): void;
}

/**
 * A new stand-in panel (see `FakePanel`). `postMs`: how long each `postMessage` takes before it
 * resolves (ms; default 0: the next turn of the event loop), as VS Code's round trip to the view does.
 * `visible`: whether its tab shows at first (default true; false: a hidden tab, whose view VS Code
 * builds again when it shows).
 */
export function fakePanel(options: { readonly postMs?: number; readonly visible?: boolean } = {}): FakePanel {
  const posted: Posted[] = [];
  const view = { receive: (_raw: unknown): void => undefined };
  let closed = false;
  const live = <T>(value: T): T => {
    if (closed) throw new Error('Webview is disposed');
    return value;
  };
  const fields = { html: '', options: {} as unknown, title: '', iconPath: undefined as unknown, active: true, visible: options.visible ?? true, viewColumn: 1 };
  const webview = {
    get html() { return live(fields.html); },
    set html(value: string) { fields.html = live(value); },
    get options() { return live(fields.options); },
    set options(value: unknown) { fields.options = live(value); },
    cspSource: 'vscode-resource:',
    asWebviewUri: () => 'vscode-resource:/x',
    onDidReceiveMessage: (listener: (raw: unknown) => void) => ((view.receive = listener), { dispose: () => undefined }),
    postMessage: async (m: Posted) => {
      if (options.postMs) await new Promise((r) => setTimeout(r, options.postMs));
      return posted.push(m);
    },
  };
  const events: string[] = [];
  const disposeListeners = new Set<() => void>();
  const viewStateListeners = new Set<() => void>();
  const panel = {
    webview,
    get title() { return live(fields.title); },
    set title(value: string) { fields.title = live(value); },
    get iconPath() { return live(fields.iconPath); },
    set iconPath(value: unknown) { fields.iconPath = live(value); },
    get active() { return live(fields.active); },
    set active(value: boolean) { fields.active = value; },
    get visible() { return live(fields.visible); },
    set visible(value: boolean) { fields.visible = value; },
    get viewColumn() { return live(fields.viewColumn); },
    set viewColumn(value: number) { fields.viewColumn = value; },
    reveal: (_column?: unknown, preserveFocus?: boolean) => void events.push(live(preserveFocus ? 'reveal-keep-focus' : 'reveal')),
    onDidDispose: (listener: () => void) => (disposeListeners.add(listener), { dispose: () => void disposeListeners.delete(listener) }),
    onDidChangeViewState: (listener: () => void) => (viewStateListeners.add(listener), { dispose: () => void viewStateListeners.delete(listener) }),
    dispose: () => void events.push('dispose'),
  };
  const close = () => {
    if (closed) return;
    closed = true;
    for (const listener of [...disposeListeners]) listener();
  };
  const setViewState = (state: { readonly active: boolean; readonly visible: boolean }) => {
    Object.assign(fields, state);
    for (const listener of [...viewStateListeners]) listener();
  };
  return { panel, posted, events, receive: (raw: unknown) => view.receive(raw), view: () => posted.reduce(reduceHostMessage, INITIAL_VIEW_STATE), close, setViewState };
}

let current = fakePanel();

/** Makes `panel` the one the next `createWebviewPanel` returns; returns it. */
export function nextPanel(panel: FakePanel = fakePanel()): FakePanel {
  current = panel;
  return panel;
}

vscodeStub.window.createWebviewPanel = () => current.panel;

// Loaded after the stand-in is in place (a static import would load the real `vscode` first).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const chatPanels = require('../../src/host/chatPanels') as typeof import('../../src/host/chatPanels');

/** The real ChatPanels class, loaded against the stand-in `vscode`. */
export const ChatPanels = chatPanels.ChatPanels;

/** The real ChatPanel class (one tab), loaded against the stand-in `vscode`. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const ChatPanel = (require('../../src/host/chatPanel') as typeof import('../../src/host/chatPanel')).ChatPanel;

/**
 * A chat of the local agent created in `runtime` and opened in a real ChatPanels bound to it, on
 * `panel`, whose view has posted `ready` and got its snapshot. `settled` waits until the panel posted
 * all it will so far; `dispose` unbinds the panels. `log` receives the host's log lines (default: dropped).
 */
export async function openChatPanel(runtime: ChatRuntime, panel: FakePanel = nextPanel(), log: (line: string) => void = () => undefined) {
  const panels = new ChatPanels(Promise.resolve(runtime), {} as never, log, {} as never);
  const binding = panels.bind(runtime);
  const s = await runtime.createSession('local');
  assert.ok(s.ok);
  const chat = await panels.open(s.value);
  panel.receive({ type: 'ready' });
  await waitFor('the snapshot', () => panel.posted.some((m) => m.type === 'snapshot'));
  const settled = async () => {
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    await chat.post(async () => undefined);
  };
  return { sessionId: s.value.id, chat, panel, settled, dispose: () => binding.dispose() };
}
