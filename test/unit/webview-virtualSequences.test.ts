/**
 * The renderer's carried-over state through random sequences of host messages and scrolls
 * (happy-dom, a fixed seed, so every run plays the same sequences): live updates that change a
 * turn's height, turns whose height changes with no update, scrolls, new turns, a turn record that
 * changes which turn it retries or replaces, resyncs (a snapshot of the same turns, or of the last
 * page), older pages, a chat emptied and back. After each step the turn facts carried over from the
 * last transcript (webview/render/turnFacts.ts) are those computed afresh, and the turn read is laid
 * out where the DOM has it (webview/render/virtual.ts keeps heights by index as well as by id: a
 * height kept by index but not by id put the layout off the DOM, and the user's reading position
 * jumped by that much at the next pass).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TurnRecord } from '../../src/core/events';
import type { TranscriptTurn, TurnCursor } from '../../src/core/transcript';
import type { HostMessage } from '../../src/protocol/messages';
import type { ViewState } from '../../webview/state';
import { session, useHappyDom } from './happyDom';

const window = useHappyDom();

function record(n: number, extra: Partial<TurnRecord> = {}): TurnRecord {
  return { id: `t${String(n).padStart(4, '0')}`, sessionId: 's1', prompt: `prompt ${n}`, origin: 'prompt', parentTurnId: null, status: 'completed', errorClass: null, seq: n, createdAt: n, ...extra };
}
function range(from: number, to: number): TranscriptTurn[] {
  return Array.from({ length: to - from }, (_, i) => ({ ...record(from + i), items: [], applied: {} }));
}
/** Turn heights (px): 40 to 160 by id, or what a step set. */
const heights = new Map<string, number>();
const heightOf = (id: string) => heights.get(id) ?? 40 + (Number(id.slice(1)) % 5) * 30;

/** A linear congruential generator: the same sequences at every run. */
function random(seed: number): (n: number) => number {
  let s = seed;
  return (n) => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return Math.floor((s / 0x80000000) * n);
  };
}

const SEQUENCES = 12;
const STEPS = 150;
const live = { running: false, actionableRequestIds: [], readOnlyReason: null };

test('the facts carried over are those computed afresh, and the turn read is laid out where the DOM has it, whatever the sequence', async () => {
  const { buildSkeleton } = await import('../../webview/layout');
  const { ChatRenderer } = await import('../../webview/render');
  const { turnFactsOf } = await import('../../webview/render/turnFacts');
  const state = await import('../../webview/state');
  const pick = random(1);
  for (let sequence = 0; sequence < SEQUENCES; sequence++) {
    heights.clear();
    const sk = buildSkeleton(window.document.createElement('div') as unknown as HTMLElement);
    window.document.body.replaceChildren(sk.app as never);
    const view = { pinned: true, state: state.INITIAL_VIEW_STATE as ViewState };
    const later: (() => void)[] = [];
    const failures: unknown[] = [];
    const renderer = new ChatRenderer(sk, (error) => failures.push(error), {
      geometry: { height: (el) => heightOf(el.dataset.turnId ?? ''), viewportHeight: () => 600, contentTop: () => 0 },
      atBottom: () => view.pinned,
      schedule: (run) => later.push(run),
      onNearTop: () => {
        const before = state.olderPageToAsk(view.state);
        if (before) view.state = state.markOlderAsked(view.state, before);
      },
    });
    const receive = (message: HostMessage) => {
      view.state = state.reduceHostMessage(view.state, message);
      renderer.render(view.state);
    };
    const all = range(0, 300 + pick(300));
    const snapshot = (turns: readonly TranscriptTurn[], hasOlder: boolean) =>
      receive({ type: 'snapshot', queue: [], session, transcript: { turns: [...turns] }, hasOlder, turnCount: all.length, live });
    snapshot(all.slice(-30), true);
    let facts = turnFactsOf(view.state.transcript, undefined);
    const steps: string[] = [];
    for (let step = 0; step < STEPS; step++) {
      const turns = view.state.transcript.turns;
      const some = turns[pick(turns.length)]!;
      const other = turns[pick(turns.length)]!;
      const kind = pick(11);
      steps.push(String(kind));
      if (kind === 0) {
        // A live update that changes the turn's height.
        heights.set(some.id, 40 + pick(400));
        receive({ type: 'update', update: { type: 'event', event: { runId: `r-${some.id}-${step}`, seq: 1, sessionId: 's1', turnId: some.id, kind: 'text', payload: { text: 'more' }, at: 9 } } });
      } else if (kind === 1) {
        // A mounted turn's height changes with no update (an output box scrolled, fonts loaded): the resize's pass.
        const mounted = renderer.virtual.mountedIds;
        if (mounted.length > 0) heights.set(mounted[pick(mounted.length)]!, 40 + pick(400));
        renderer.virtual.relayout();
      } else if (kind === 2) {
        view.pinned = false;
        sk.transcript.scrollTop = pick(Math.max(1, sk.transcript.scrollHeight));
        sk.transcript.dispatchEvent(new window.Event('scroll') as never);
      } else if (kind === 3) {
        all.push(...range(all.length, all.length + 1));
        receive({ type: 'update', update: { type: 'turn', turn: record(all.length - 1) } });
      } else if (kind === 4) snapshot(turns, view.state.hasOlder);
      else if (kind === 5) snapshot(all.slice(-30), true);
      else if (kind === 6 && view.state.olderAsked) {
        const before: TurnCursor = view.state.olderAsked;
        const at = all.findIndex((t) => t.id === before.id);
        const from = Math.max(0, at - 30);
        receive({ type: 'page', before, turns: all.slice(from, at), hasOlder: from > 0 });
      } else if (kind === 7) {
        receive({ type: 'update', update: { type: 'turn', turn: record(Number(some.id.slice(1)), { replacesTurnId: other.id }) } });
      } else if (kind === 8) {
        receive({ type: 'update', update: { type: 'turn', turn: record(Number(some.id.slice(1)), { origin: 'retry', parentTurnId: other.id }) } });
      } else if (kind === 9) {
        snapshot([], false);
        snapshot(turns, view.state.hasOlder);
      } else receive({ type: 'checkpoints', turns: [] });
      // The passes a scroll or a deferred margin scheduled (animation frames).
      for (let frame = 0; frame < 50 && later.length > 0; frame++) later.shift()!();
      const where = `sequence ${sequence}, steps ${steps.join(',')}`;

      assert.deepEqual(failures, [], `nothing failed to render (${where})`);
      facts = turnFactsOf(view.state.transcript, facts);
      const fresh = turnFactsOf(view.state.transcript, undefined);
      assert.deepEqual(
        [facts.ids, [...facts.index], [...facts.followedUp].sort(), [...facts.replaced].sort()],
        [fresh.ids, [...fresh.index], [...fresh.followedUp].sort(), [...fresh.replaced].sort()],
        `the facts carried over (${where})`,
      );
      const anchor = renderer.virtual.anchor();
      const children = [...sk.content.children] as unknown as HTMLElement[];
      const at = anchor ? children.findIndex((el) => el.dataset.turnId === anchor.turnId) : -1;
      if (at < 0) continue;
      let y = 0;
      let spacers = 0;
      for (const el of children.slice(0, at)) {
        const spacer = el.classList.contains('turn-spacer');
        if (spacer) spacers++;
        y += spacer ? Number.parseFloat(el.style.height) : heightOf(el.dataset.turnId ?? '');
      }
      // Spacers are whole pixels (half a pixel off each), and a pass scrolls only by a pixel or more.
      assert.ok(Math.abs(sk.transcript.scrollTop - anchor!.offset - y) < spacers / 2 + 1, `turn ${anchor!.turnId} laid out at ${sk.transcript.scrollTop - anchor!.offset} px, in the DOM at ${y} (${where})`);
    }
  }
});
