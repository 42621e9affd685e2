/**
 * The virtualized transcript on happy-dom (webview/render/virtual.ts through the renderer): the
 * DOM holds a bounded window of turns however long the chat, scrolling materializes other turns and
 * asks for older pages, a prepended page keeps the turn being read in place, an update to a turn out
 * of sight changes no DOM, and the selection's and focus's turns stay mounted. happy-dom has no
 * layout: the test gives each turn's height (`Geometry`) and sets `scrollTop` itself.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TurnRecord } from '../../src/core/events';
import type { TranscriptTurn, TurnCursor } from '../../src/core/transcript';
import type { HostMessage } from '../../src/protocol/messages';
import type { ViewState } from '../../webview/state';
import { session, useHappyDom } from './happyDom';

const window = useHappyDom();

const VIEWPORT_PX = 600;
/** Most turns the DOM may hold with a 600 px viewport and turns of 40 px or more (a screen above and below). */
const BOUND = 40;

function record(n: number): TurnRecord {
  return { id: `t${String(n).padStart(4, '0')}`, sessionId: 's1', prompt: `prompt ${n}`, origin: 'prompt', parentTurnId: null, status: 'completed', errorClass: null, seq: n, createdAt: n };
}
function range(from: number, to: number): TranscriptTurn[] {
  return Array.from({ length: to - from }, (_, i) => ({ ...record(from + i), items: [], applied: {} }));
}
/** Turn n's height: 40 to 160 px, varying; turns listed in `tall` are 300 px. */
const tall = new Set<string>();
function heightOf(id: string): number {
  return tall.has(id) ? 300 : 40 + (Number(id.slice(1)) % 5) * 30;
}

/** A renderer on a skeleton in the document, with given heights, a sync scheduler and a recorder of `loadOlder`s. */
async function setUp(schedule: (run: () => void) => void = (run) => run()) {
  const { buildSkeleton } = await import('../../webview/layout');
  const { ChatRenderer } = await import('../../webview/render');
  const state = await import('../../webview/state');
  const sk = buildSkeleton(window.document.createElement('div') as unknown as HTMLElement);
  window.document.body.replaceChildren(sk.app as never);
  const view = { pinned: true, state: state.INITIAL_VIEW_STATE as ViewState, asked: [] as TurnCursor[] };
  const renderer = new ChatRenderer(sk, undefined, {
    geometry: { height: (el) => (measured.n++, heightOf(el.dataset.turnId ?? '')), viewportHeight: () => VIEWPORT_PX, contentTop: () => 0 },
    atBottom: () => view.pinned,
    schedule,
    onNearTop: () => {
      const before = state.olderPageToAsk(view.state);
      if (!before) return;
      view.asked.push(before);
      view.state = state.markOlderAsked(view.state, before);
    },
  });
  const receive = (message: HostMessage) => {
    view.state = state.reduceHostMessage(view.state, message);
    renderer.render(view.state);
  };
  const mounted = () => [...sk.content.querySelectorAll<HTMLElement>(':scope > section.turn')].map((el) => el.dataset.turnId!);
  const spacers = () => [...sk.content.querySelectorAll<HTMLElement>(':scope > .turn-spacer')].map((el) => Number.parseFloat(el.style.height));
  const scrollTo = (top: number) => {
    view.pinned = false;
    sk.transcript.scrollTop = top;
    sk.transcript.dispatchEvent(new window.Event('scroll') as never);
  };
  const live = { running: false, actionableRequestIds: [], readOnlyReason: null };
  const open = (turns: TranscriptTurn[], turnCount = turns.length) =>
    receive({ type: 'snapshot', queue: [], session, transcript: { turns }, hasOlder: turnCount > turns.length, turnCount, live });
  return { sk, view, renderer, receive, mounted, spacers, scrollTo, open };
}

/** How many times a pass measured a turn (each one a forced layout in a browser). */
const measured = { n: 0 };

const contiguous = (ids: string[]) => ids.every((id, i) => i === 0 || Number(id.slice(1)) === Number(ids[i - 1]!.slice(1)) + 1);

describe('the virtualized transcript', () => {
  test('a render that changes no turn on screen measures nothing; one that does, does', async () => {
    const v = await setUp();
    v.open(range(0, 200));
    const on = v.mounted();
    measured.n = 0;
    v.receive({ type: 'queue', prompts: [] });
    v.receive({ type: 'checkpoints', turns: [] });
    v.receive({ type: 'live', live: { running: false, actionableRequestIds: [], readOnlyReason: null } });
    assert.equal(measured.n, 0, 'the queue, the checkpoints and the same live state lay nothing out');
    assert.deepEqual(v.mounted(), on);
    // Running: the last turn no longer offers Edit, so it is drawn again, and measured.
    v.receive({ type: 'live', live: { running: true, actionableRequestIds: [], readOnlyReason: null } });
    assert.ok(measured.n > 0, 'a turn changed: the pass measures');
    measured.n = 0;
    v.receive({ type: 'update', update: { type: 'turn', turn: record(200) } });
    assert.ok(measured.n > 0 && v.mounted().includes('t0200'), 'a new turn is laid out');
  });

  test('holds a bounded number of turns of a 5,000-turn chat, and opens at its end', async () => {
    const v = await setUp();
    v.open(range(0, 5000));
    const ids = v.mounted();
    assert.ok(ids.length > 0 && ids.length <= BOUND, `${ids.length} turns in the DOM`);
    assert.equal(ids.at(-1), 't4999', 'the last turn is shown');
    assert.ok(contiguous(ids));
    const shown = ids.reduce((sum, id) => sum + heightOf(id), 0);
    assert.equal(v.spacers().length, 1, 'one spacer stands for the turns above');
    assert.equal(v.sk.transcript.scrollTop + VIEWPORT_PX, v.spacers()[0]! + shown, 'the viewport ends at the last turn');
  });

  test('scrolling materializes the turns there, and only those', async () => {
    const v = await setUp();
    v.open(range(0, 5000));
    v.scrollTo(0);
    let ids = v.mounted();
    assert.equal(ids[0], 't0000', 'the first turn is there at the top');
    assert.ok(ids.length <= BOUND && !ids.includes('t4999'), `${ids.length} turns, the last one gone`);
    const middle = v.spacers()[0]! / 2; // half the height of the turns below
    v.scrollTo(middle);
    ids = v.mounted();
    assert.ok(ids.length <= BOUND && contiguous(ids), `${ids.length} turns`);
    const at = v.renderer.virtual.anchor()!;
    assert.ok(ids.includes(at.turnId), `the turn at the top of the viewport (${at.turnId}) is in the DOM`);
    assert.ok(Number(at.turnId.slice(1)) > 1000 && Number(at.turnId.slice(1)) < 4000, at.turnId);
  });

  test('a jump far from the mounted turns mounts the viewport\'s turns at once and the margin two turns a pass', async () => {
    const later: (() => void)[] = [];
    const v = await setUp((run) => later.push(run));
    v.open(range(0, 5000));
    const atEnd = v.mounted();
    v.scrollTo(v.spacers()[0]! / 2);
    later.shift()!();
    const top = v.sk.transcript.scrollTop;
    // The turns the viewport shows: from the one at its top (the anchor), by the heights given.
    const at = v.renderer.virtual.anchor()!;
    const visible: string[] = [];
    for (let n = Number(at.turnId.slice(1)), y = top - at.offset; y < top + VIEWPORT_PX; n++) {
      const id = `t${String(n).padStart(4, '0')}`;
      visible.push(id);
      y += heightOf(id);
    }
    const ids = v.mounted();
    assert.ok(visible.length > 2 && visible.every((id) => ids.includes(id)), `the viewport's turns ${visible.join()} are in the DOM: ${ids.join()}`);
    assert.equal(ids.filter((id) => !atEnd.includes(id)).length, visible.length + 2, `the viewport's turns and 2 of the margin: ${ids.join()}`);
    assert.equal(later.length, 1, 'the rest of the margin comes in a later pass');
    // Frame after frame, the margin fills in: a screen above and below.
    for (let frame = 0; frame < 20 && later.length > 0; frame++) {
      const before = v.mounted().length;
      later.shift()!();
      assert.ok(v.mounted().length <= before + 2, `at most 2 more turns a pass (${before} -> ${v.mounted().length})`);
    }
    assert.equal(later.length, 0, 'done');
    const full = v.mounted();
    const above = full.slice(0, full.indexOf(visible[0]!)).reduce((sum, id) => sum + heightOf(id), 0);
    const below = full.slice(full.indexOf(visible.at(-1)!) + 1).reduce((sum, id) => sum + heightOf(id), 0);
    assert.ok(above >= VIEWPORT_PX - 160 && below >= VIEWPORT_PX - 160, `a screen of turns above (${above} px) and below (${below} px)`);
    assert.ok(contiguous(full));
  });

  test('near the top of what is loaded asks once for the older page, and a page keeps the turn read in place', async () => {
    const v = await setUp();
    v.open(range(4970, 5000), 5000);
    assert.equal(v.view.asked.length, 0, 'the end of the chat needs no older page');
    assert.ok(v.spacers()[0]! > 4970 * 40, `${v.spacers()[0]} px stand for the turns not loaded`);
    // The user scrolls up, 100 px at a time, until a page is asked for.
    for (let step = 0; step < 50 && v.view.asked.length === 0; step++) v.scrollTo(v.sk.transcript.scrollTop - 100);
    assert.deepEqual(v.view.asked.map((c) => c.id), ['t4970'], 'the page before the oldest loaded turn is asked for');
    const first = Number(v.mounted()[0]!.slice(1));
    assert.ok(first >= 4970 && first < 4980, `asked once the view neared the oldest loaded turn (t${first} is the first in the DOM)`);
    v.scrollTo(v.sk.transcript.scrollTop - 900); // the user scrolls on while the page is on its way
    assert.equal(v.view.asked.length, 1, 'not asked again meanwhile');
    assert.ok(v.mounted().includes('t4970'));
    const reading = v.renderer.virtual.anchor()!;
    const top = v.sk.transcript.scrollTop;

    // Taller turns than estimated: the page moves what is below it unless the view follows the turn read.
    for (const t of range(4940, 4970)) tall.add(t.id);
    v.receive({ type: 'page', before: v.view.asked[0]!, turns: range(4940, 4970), hasOlder: true });
    assert.ok(v.mounted().some((id) => tall.has(id)), `some of the page is in the DOM: ${v.mounted().join()} ${JSON.stringify(reading)}`);
    assert.notEqual(v.sk.transcript.scrollTop, top, 'the scroll position moved with the content');
    assert.deepEqual(v.renderer.virtual.anchor(), reading, 'the same turn is at the same place in the viewport');
    tall.clear();
  });

  test('an update to a turn out of sight changes no DOM', async () => {
    const v = await setUp();
    v.open(range(0, 5000));
    const observer = new window.MutationObserver(() => undefined);
    observer.observe(v.sk.content as never, { subtree: true, childList: true, attributes: true, characterData: true });
    const event = (turnId: string) => ({ runId: `r-${turnId}`, seq: 1, sessionId: 's1', turnId, kind: 'text' as const, payload: { text: 'more' }, at: 9 });
    v.receive({ type: 'update', update: { type: 'event', event: event('t0010') } });
    assert.equal(v.view.state.transcript.turns[10]?.items.length, 1, 'precondition: the turn changed');
    assert.deepEqual(observer.takeRecords().map((r) => `${r.type} ${r.attributeName} ${(r.target as unknown as HTMLElement).className}`), [], 'nothing in the DOM changed');
    v.receive({ type: 'update', update: { type: 'event', event: event('t4999') } });
    assert.ok(observer.takeRecords().length > 0, 'an update to a turn in sight does change it');
    observer.disconnect();
  });

  test('a turn above the one read that grows with a live update moves the scroll position by as much', async () => {
    const v = await setUp();
    v.open(range(0, 5000));
    const idsBefore = v.view.state.transcript.turns.map((t) => t.id);
    v.scrollTo(v.sk.transcript.scrollTop - 900);
    const anchor = v.renderer.virtual.anchor()!;
    const above = v.mounted()[v.mounted().indexOf(anchor.turnId) - 1];
    assert.ok(above, `precondition: the turn above the one read (${anchor.turnId}) is mounted`);
    tall.add(above!);
    v.receive({ type: 'update', update: { type: 'event', event: { runId: `r-${above}`, seq: 1, sessionId: 's1', turnId: above!, kind: 'text', payload: { text: 'more' }, at: 9 } } });
    assert.deepEqual(v.view.state.transcript.turns.map((t) => t.id), idsBefore, 'precondition: the same turns in the same order');
    assert.ok(v.mounted().includes(above!), 'precondition: the grown turn is still mounted');
    // Where the turn read really is: the spacers' heights and the mounted turns' real heights above it.
    let y = 0;
    for (const el of v.sk.content.children as unknown as HTMLElement[]) {
      if (el.dataset.turnId === anchor.turnId) break;
      y += el.classList.contains('turn-spacer') ? Number.parseFloat(el.style.height) : heightOf(el.dataset.turnId ?? '');
    }
    tall.clear();
    // Spacers are whole pixels.
    assert.ok(Math.abs(v.sk.transcript.scrollTop - (y + anchor.offset)) < 1, `the view (${v.sk.transcript.scrollTop}) is where the turn read really is, as far into it as before (${y + anchor.offset})`);
    assert.deepEqual(v.renderer.virtual.anchor(), anchor, 'and it reads it there');
  });

  test('the turns of the text selection and of the focus stay mounted when scrolled away from', async () => {
    const v = await setUp();
    v.open(range(0, 5000));
    const text = (id: string) => {
      const walker = window.document.createTreeWalker(v.sk.content.querySelector(`section[data-turn-id="${id}"] .message.user`) as never, 4 /* text */);
      return walker.nextNode()!;
    };
    const selection = window.document.getSelection()!;
    const r = window.document.createRange();
    r.setStart(text('t4996') as never, 1);
    r.setEnd(text('t4998') as never, 2);
    selection.removeAllRanges();
    selection.addRange(r);
    const focused = v.sk.content.querySelector<HTMLElement>('section[data-turn-id="t4990"] .message.user')!;
    focused.setAttribute('tabindex', '-1');
    focused.focus();
    assert.equal(window.document.activeElement, focused as never);

    v.scrollTo(0);
    let ids = v.mounted();
    assert.equal(ids[0], 't0000', 'the top is shown');
    for (const id of ['t4996', 't4997', 't4998', 't4990']) assert.ok(ids.includes(id), `${id} stays mounted`);
    assert.ok(!ids.includes('t4999') && !ids.includes('t4991'), 'but not the turns around them');
    assert.ok(ids.length <= BOUND + 4);

    selection.removeAllRanges();
    focused.blur();
    v.scrollTo(1);
    ids = v.mounted();
    assert.ok(!ids.includes('t4998') && !ids.includes('t4990'), 'once released they go');
  });

  test('Tab from the last or first turn in the DOM goes on into the turns beyond it', async () => {
    const v = await setUp();
    v.open(range(0, 5000));
    v.scrollTo(v.spacers()[0]! / 2);
    const press = (id: string, shiftKey: boolean) => {
      const el = v.sk.content.querySelector<HTMLElement>(`section[data-turn-id="${id}"] .message.user`)!;
      el.setAttribute('tabindex', '-1');
      el.focus();
      el.dispatchEvent(new window.KeyboardEvent('keydown', { key: 'Tab', shiftKey, bubbles: true }) as never);
    };
    const last = v.mounted().at(-1)!;
    const n = Number(last.slice(1));
    press(last, false);
    for (let i = n + 1; i <= n + 10; i++) assert.ok(v.mounted().includes(`t${String(i).padStart(4, '0')}`), `turn ${i} after the last one is mounted for Tab`);
    const first = v.mounted()[0]!;
    press(first, true);
    const f = Number(first.slice(1));
    for (let i = f - 10; i < f; i++) assert.ok(v.mounted().includes(`t${String(i).padStart(4, '0')}`), `turn ${i} before the first one is mounted for Shift+Tab`);
    assert.ok(contiguous(v.mounted()));
    (window.document.activeElement as unknown as HTMLElement).blur();
    v.scrollTo(v.sk.transcript.scrollTop + 1); // any scroll ends it
    assert.ok(!v.mounted().includes(`t${String(n + 10).padStart(4, '0')}`) && v.mounted().length <= BOUND);
  });

  test('a pass whose last round still measured new heights leaves no layout off the DOM: it schedules another', async () => {
    // The ResizeObserver's first report of each turn a pass mounted used to run that next pass; it now
    // runs none for a turn the pass measured at that height, and the pass's own scroll runs none either.
    const { VirtualTranscript } = await import('../../webview/render/virtual');
    const doc = window.document;
    const scroller = doc.createElement('div') as unknown as HTMLElement;
    const content = doc.createElement('div') as unknown as HTMLElement;
    scroller.appendChild(content);
    doc.body.replaceChildren(scroller as never);
    const ids = Array.from({ length: 60 }, (_, i) => `t${i}`);
    const els = ids.map((id) => {
      const el = doc.createElement('section') as unknown as HTMLElement;
      el.className = 'turn';
      el.dataset.turnId = id;
      return el;
    });
    /** Measures of each turn while its content settles (an image, a font): 5 px taller at each of its first 6 (as many as a pass makes). */
    const settling = new Map<string, number>();
    let settle = false;
    const height = (el: HTMLElement) => {
      const id = el.dataset.turnId!;
      if (!settle) return 100;
      const n = settling.get(id) ?? 0;
      settling.set(id, n + 1);
      return 100 + 5 * Math.min(n + 1, 6);
    };
    const scheduled: (() => void)[] = [];
    const virtual = new VirtualTranscript(scroller, content, {
      geometry: { height, viewportHeight: () => 600, contentTop: () => 0 }, atBottom: () => false, schedule: (run) => scheduled.push(run),
    });
    const drain = () => {
      for (let k = 0; k < 50 && scheduled.length > 0; k++) scheduled.shift()!();
    };
    const spacers = () => [...content.querySelectorAll<HTMLElement>('.turn-spacer')].map((el) => el.style.height).join(',');
    virtual.restoreTo({ turnId: 't30', offset: 0 });
    virtual.show({ ids, hasOlder: false, unloaded: 0, element: (i) => els[i]! });
    drain();
    settle = true;
    virtual.relayout();
    drain();
    const settled = spacers();
    virtual.relayout();
    assert.equal(spacers(), settled, 'a pass once everything is measured changes no spacer');
  });
});
