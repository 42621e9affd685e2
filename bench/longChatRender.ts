/**
 * The webview's cost of one `changes` message with rendering, in plain Node on happy-dom (no layout,
 * so no paint or reflow: the DOM work only): the view's reducer and its `ChatRenderer` with the
 * virtualized transcript (turns given a fixed height, an 800 px viewport, following the bottom), fed
 * the host's own messages of a long-chat bench run (longChatTask.ts): the snapshot, then `changes`
 * messages with the last page loaded; then every older page, then the same `changes` again with
 * every turn loaded. Times in ms per message.
 */
import type { HostMessage } from '../src/protocol/messages';

/** Times of reduce + render per `changes` message, and the most turns the DOM held. */
export interface RenderTimes {
  readonly renderChangesPageMs: number[];
  readonly renderChangesAllMs: number[];
  readonly mountedMax: number;
}

/** Height of every turn (px) and of the viewport the renderer is told. */
const TURN_PX = 400;
const VIEWPORT_PX = 800;

/**
 * Times reduce + render of each of `changesJson` on the snapshot's page, then again after
 * `pagesJson` (the older pages, newest first as the view asks for them) were applied.
 * Installs happy-dom's window as the process's globals (call in a process of its own).
 */
export async function renderTimes(snapshotJson: string, pagesJson: readonly string[], changesJson: readonly string[]): Promise<RenderTimes> {
  const { Window } = await import('happy-dom');
  const window = new Window();
  const globals = globalThis as unknown as Record<string, unknown>;
  Object.assign(globals, { window, document: window.document, Node: window.Node, HTMLElement: window.HTMLElement });
  // After the globals: DOMPurify binds to the window it finds when it loads.
  const { buildSkeleton } = await import('../webview/layout');
  const { ChatRenderer } = await import('../webview/render');
  const { INITIAL_VIEW_STATE, reduceHostMessage } = await import('../webview/state');
  let mountedMax = 0;
  // One view from the snapshot, with `pages` applied, then each `changes` message timed.
  const pass = (pages: readonly string[]): number[] => {
    const sk = buildSkeleton(window.document.createElement('div') as unknown as HTMLElement);
    window.document.body.replaceChildren(sk.app as never);
    const renderer = new ChatRenderer(sk, undefined, {
      geometry: { height: () => TURN_PX, viewportHeight: () => VIEWPORT_PX, contentTop: () => 0 },
      atBottom: () => true,
      schedule: (run) => run(),
      onNearTop: () => undefined,
    });
    let state = INITIAL_VIEW_STATE;
    let seq = 0;
    const receive = (json: string): number => {
      const message = { ...(JSON.parse(json) as HostMessage), seq: ++seq };
      const t0 = performance.now();
      state = reduceHostMessage(state, message);
      renderer.render(state);
      const ms = performance.now() - t0;
      mountedMax = Math.max(mountedMax, sk.content.querySelectorAll('section.turn').length);
      return ms;
    };
    receive(snapshotJson);
    for (const page of pages) receive(page);
    const times = changesJson.map(receive);
    if (state.transcript.turns.length < pages.length) throw new Error('the pages were not applied');
    return times;
  };
  const renderChangesPageMs = pass([]);
  const renderChangesAllMs = pass(pagesJson);
  await window.happyDOM.close();
  return { renderChangesPageMs, renderChangesAllMs, mountedMax };
}
