/**
 * The table of the long-chat view bench (longChatView.ts): its figures with issue 11's targets, the
 * verdicts and what the issue measured with the old design, as plain text (stdout) and markdown (the
 * second table of docs/BENCHMARKS.md's long-chat section).
 */
import * as os from 'node:os';
import type { BEFORE_VIEW } from './longChatBefore';
import type { LongChatViewResult } from './longChatView';
import type { DecisionTimes } from './longChatSteps';
import { fmt, percentile } from './stats';
import { chatLabel, p50p95 as costs, type UpdateCost } from './viewUpdate';

/** Issue 11's targets for the view (ms, MB). */
export const VIEW_TARGETS = { openMs: 300, reloadShownMs: 1000, frameP95Ms: 20, longTaskMs: 50, ackMs: 50, clearedP95Ms: 200, memoryAboveShortMB: 50, updateWebviewMs: 4 } as const;

type Row = readonly [metric: string, short: string, long: string, before: string, target: string, verdict: string];

const MB = 1048576;
const met = (ok: boolean) => (ok ? 'met' : 'NOT MET');
const p = (xs: readonly number[], q: number) => percentile(xs, q);
const p50p95 = (xs: readonly number[]) => `${fmt(p(xs, 50))} / ${fmt(p(xs, 95))} (max ${fmt(Math.max(...xs))}, n=${xs.length})`;

/** The rows (metric, short chat, long chat, before, target, verdict). */
export function viewRows(r: LongChatViewResult): Row[] {
  const T = VIEW_TARGETS;
  // Older results carry no `before`: its column is left empty rather than filled from the code.
  const B: Record<keyof typeof BEFORE_VIEW, string> = r.before ?? { open: '', reload: '', frames: '', decidedA: '', clearedB: '', rss: '' };
  const opens = r.openLong.map((x) => x.paintedMs);
  const skeletons = r.openLong.map((x) => x.skeletonMs);
  const f = r.scroll.frames;
  const d = r.decisions;
  const ack = d.map((x) => x.disabledMs);
  const decidedA = d.map((x) => x.decidedAMs);
  const cleared = d.map((x) => x.clearedBMs);
  const workB = d.flatMap((x) => (x.viewWorkBMs === undefined ? [] : [x.viewWorkBMs]));
  const renderB = d.flatMap((x) => (x.longestRenderBMs === undefined ? [] : [x.longestRenderBMs]));
  // The same decisions in the short chat (older results have none): the 10-turn column.
  const ds = r.decisionsShort ?? [];
  const short = (of: (x: DecisionTimes) => number | undefined) => {
    const xs = ds.flatMap((x) => { const v = of(x); return v === undefined ? [] : [v]; });
    return xs.length > 0 ? p50p95(xs) : '';
  };
  const memAbove = (r.rssLong - r.rssShort) / MB;
  return [
    ['Open Chat…: Enter in the picker → the last turn painted, warm host (ms; long: p50 / max; short: again (the first))', `${fmt(r.openShortWarm?.paintedMs)} (${fmt(r.openShort.paintedMs)})`, `${fmt(p(opens, 50))} / ${fmt(Math.max(...opens))} (n=${opens.length})`, B.open, `<= ${T.openMs} ms`, met(p(opens, 50) <= T.openMs)],
    ['  of which Enter → the view\'s skeleton shown (VS Code made the webview, its script ran) (ms; long: p50)', `${fmt(r.openShortWarm?.skeletonMs)} (${fmt(r.openShort.skeletonMs)})`, fmt(p(skeletons, 50)), '', '', ''],
    ...(r.openBlank?.length ? [[`  VS Code's floor: Enter in the command palette → a blank webview painted (static HTML, no script; bench/blankWebview), ms, ${r.openBlank.length} opens`, r.openBlank.map((ms) => fmt(ms)).join(', '), '', '', '', ''] as Row] : []),
    ['Reload Window with the chat\'s tab active: navigation start → workbench ready (status bar painted) (ms)', fmt(r.reloadShort.readyMs), fmt(r.reloadLong.readyMs), '', '', ''],
    ['  workbench ready → the chat\'s skeleton shown (the host started, the tab restored) (ms)', fmt(r.reloadShort.skeletonMs), fmt(r.reloadLong.skeletonMs), '', '', ''],
    ['  workbench ready → the last turn painted (ms)', fmt(r.reloadShort.shownMs), fmt(r.reloadLong.shownMs), B.reload, `<= ${T.reloadShownMs} ms`, reloadVerdict(r)],
    ...(r.reloadBlank ? [['  VS Code\'s floor: the same reload with a blank webview\'s tab active (static HTML set by its serializer; bench/blankWebview): workbench ready → painted (ms)', fmt(r.reloadBlank.shownMs), '', '', '', ''] as Row] : []),
    ['  the chat\'s skeleton → the last turn painted (the extension\'s own part) (ms)', fmt(r.reloadShort.shownMs - r.reloadShort.skeletonMs), fmt(r.reloadLong.shownMs - r.reloadLong.skeletonMs), '', '', ''],
    [`wheel to the first turn (${(r.scroll.heightPx / 1e6).toFixed(2)} M px): ${r.scroll.wheelSteps} steps in ${(r.scroll.wallMs / 1000).toFixed(1)} s${r.scroll.reachedTop ? '' : ' (top NOT reached)'}; frame deltas p50 / p95 / max (ms, n=${f.n})`, '', `${fmt(f.p50)} / ${fmt(f.p95)} / ${fmt(f.max)}`, B.frames, `p95 <= ${T.frameP95Ms} ms`, met(r.scroll.reachedTop && f.p95 <= T.frameP95Ms)],
    ['  long tasks while scrolling (count; longest ms); of them the chat frame\'s own', '', `${f.longTasks}; ${fmt(f.longestMs)}; own ${f.ownLongTasks}; ${fmt(f.ownLongestMs)}`, '', `none > ${T.longTaskMs} ms`, met(f.longestMs <= T.longTaskMs)],
    ...(r.scrollTasks ? [[`  the tasks of the renderer thread running the chat's frame (and the workbench's) meanwhile, from a trace (n=${r.scrollTasks.n}): over 50 ms by CPU time (longest ms); by wall clock (longest ms)`, '', `${r.scrollTasks.overCpu50} (${fmt(r.scrollTasks.longestCpu)}); ${r.scrollTasks.overWall50} (${fmt(r.scrollTasks.longestWall)})`, '', `none > ${T.longTaskMs} ms of CPU`, met(r.scrollTasks.overCpu50 === 0)] as Row] : []),
    ['  the host\'s `page` messages meanwhile; long tasks starting within 100 ms of one\'s arrival', '', `${f.pages}; ${f.longTasksNearPage}`, '', '', ''],
    ['window B: Open Chat… → the last turn painted, B\'s host opening it first (ms; skeleton)', '', `${fmt(r.openInB.paintedMs)} (${fmt(r.openInB.skeletonMs)})`, '', '', ''],
    ['decide a card in A: click → its buttons painted disabled in A (p50 / p95 ms)', short((x) => x.disabledMs), p50p95(ack), '', `<= ${T.ackMs} ms`, met(p(ack, 95) <= T.ackMs)],
    ['  click → A\'s card painted with its outcome, the host\'s answer (p50 / p95 ms)', short((x) => x.decidedAMs), p50p95(decidedA), B.decidedA, '', ''],
    ['  click → B\'s card painted without buttons (p50 / p95 ms)', short((x) => x.clearedBMs), p50p95(cleared), B.clearedB, `p95 <= ${T.clearedP95Ms} ms`, met(p(cleared, 95) <= T.clearedP95Ms)],
    ...(workB.length > 0 ? [
      [`  B's view meanwhile, in Chromium: its host messages handled + its renders and layout passes begun before its card was painted, summed (User Timing, webview/timing.ts; p50 / p95 ms, n=${workB.length} long, ${ds.length} short)`, short((x) => x.viewWorkBMs), p50p95(workB), '', `<= ${T.updateWebviewMs} ms`, met(p(workB, 95) <= T.updateWebviewMs)] as Row,
      ['    its longest render (p50 / p95 ms)', short((x) => x.longestRenderBMs), p50p95(renderB), '', '', ''] as Row,
    ] : []),
    ...aloneRows(r),
    ['extension host RSS 5 s after opening the chat, same host and journal (MB)', fmt(r.rssShort / MB), `${fmt(r.rssLong / MB)} (+${fmt(memAbove)})`, B.rss, `<= +${T.memoryAboveShortMB} MB`, met(memAbove <= T.memoryAboveShortMB)],
  ];
}

/**
 * The view alone's rows (viewUpdate.ts): one card shown then cleared in the 10-turn chat (short
 * column) and the 5,000-turn one, as opened and all loaded (long column); the update target's
 * verdict on the worst p95 of them.
 */
function aloneRows(r: LongChatViewResult): Row[] {
  const v = r.viewAlone;
  if (!v) return [];
  const [short, ...long] = v.chats;
  if (!short) return [];
  const work = (of: 'shown' | 'cleared', c: { shown: UpdateCost[]; cleared: UpdateCost[] }) => costs(c[of], (x) => x.workMs);
  const worst = Math.max(...v.chats.flatMap((c) => [c.shown, c.cleared].map((xs) => percentile(xs.map((x) => x.workMs).sort((a, b) => a - b), 95))));
  const row = (of: 'shown' | 'cleared', what: string): Row => [
    `  ${what}: the view's work (messages + renders + layout passes, User Timing; p50 / p95 ms, n=${v.trials} each)`, work(of, short),
    long.map((c) => `${chatLabel(c)}: ${work(of, c)}`).join('; '), '', of === 'cleared' ? `<= ${VIEW_TARGETS.updateWebviewMs} ms` : '', of === 'cleared' ? met(worst <= VIEW_TARGETS.updateWebviewMs) : '',
  ];
  return [
    [`the view alone in Chromium, no VS Code (bench/viewUpdate.ts; load ${v.load.start.toFixed(1)} -> ${v.load.end.toFixed(1)}): a card appears (changes: boundary_requested), then clears (changes: boundary_decided)`, '', '', '', '', ''],
    row('shown', 'the card appears'),
    row('cleared', 'the card clears (the verdict: the worst p95 of both rows)'),
    [`  the message posted → the card painted (p50 / p95 ms)`, costs(short.cleared, (x) => x.paintedMs), long.map((c) => `${chatLabel(c)}: ${costs(c.cleared, (x) => x.paintedMs)}`).join('; '), '', '', ''],
  ];
}

/**
 * A warning when other work loaded the machine beyond its cores (the runs share it): every figure
 * here is wall-clock time in processes that then wait for a core.
 */
export function busy(load: { readonly start: number; readonly end: number }): string {
  const worst = Math.max(load.start, load.end);
  const cores = os.cpus().length;
  return worst > cores ? `\n- Other work was running: a load average up to ${worst.toFixed(1)} on ${cores} cores, about ${(worst / cores).toFixed(1)} times more runnable work than cores: wall-clock figures are inflated, tails (p95, long tasks) most` : '';
}

/** One line: date, load average before and after, wall time. */
export function viewLoadLine(r: LongChatViewResult): string {
  const build = r.build ? `; ${r.build.kind} build (webview.js ${Math.round(r.build.webviewBytes / 1024)} KB)` : '';
  return `${r.date}; load average (1 min) ${r.load.start.toFixed(1)} -> ${r.load.end.toFixed(1)} on ${os.cpus().length} cores; ${(r.wallMs / 1000).toFixed(0)} s${build}`;
}

function header(r: LongChatViewResult): Row {
  return ['metric', `${r.shortTurns} turns`, `${r.longTurns} turns`, `before (issue 11, old design, ${r.longTurns} turns)`, 'target', 'verdict'];
}

/** The plain-text table (stdout). */
export function viewText(r: LongChatViewResult): string {
  const all = [header(r), ...viewRows(r)];
  const widths = [0, 1, 2, 3, 4, 5].map((i) => Math.max(...all.map((row) => row[i]!.length)));
  const line = (row: Row) => row.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [`== Long chat in code-server: ${viewLoadLine(r)}`, line(all[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...all.slice(1).map(line)].join('\n');
}

/** The reload target's verdict; when not met, whether VS Code's own restore of a blank webview already takes longer. */
function reloadVerdict(r: LongChatViewResult): string {
  if (r.reloadLong.shownMs <= VIEW_TARGETS.reloadShownMs) return met(true);
  return r.reloadBlank && r.reloadBlank.shownMs > VIEW_TARGETS.reloadShownMs ? 'NOT MET (VS Code\'s floor alone is over it)' : met(false);
}

/** The markdown sub-section (a `###` heading, its method and its table). */
export function viewMarkdown(r: LongChatViewResult): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  return `### The view in code-server (bench/longChatView.ts)

- Command: \`npm run bench -- --long-chat-view\`; ${viewLoadLine(r)}; journal ${(r.journalBytes / MB).toFixed(1)} MB${busy(r.load)}
- code-server and headless Chromium (software rendering, 1400x900) on this machine, the extension as
  installed from \`dist/\`; one journal seeded with the long chat and a ${r.shortTurns}-turn chat
  (bench/longChatSeed.ts). Times are taken inside the pages (bench/longChatProbe.ts): "painted" is
  the element in the chat's frame, then the next animation frame, then a task after it. Open: the
  short chat first (the window's first chat view), then the long one ${r.openLong.length} times, closing its tab in
  between, then the short one again. Reload: "workbench ready" is the status bar painted in the reloaded page, whose
  navigation start is the reload's start; "skeleton": the chat frame's document holds the view's
  layout (its script ran; the extension's serializer sets the view's HTML before the journal is
  open). The short chat's column is the same reload with the short chat's tab active; the floor's, the same reload
  with the tab of a webview of static HTML restored by its own serializer (bench/blankWebview). Scrolling: the mouse over the transcript, one wheel event
  of ${'−'}${r.scroll.wheelPx} px per animation frame until the first turn is painted at scrollTop 0; the frame deltas
  and long tasks (PerformanceObserver 'longtask') are the chat frame's ("own": attributed to the chat
  frame itself rather than the workbench sharing its thread); a trace of the same scroll gives the
  tasks of the renderer main thread with the most CPU time (the one running the chat's frame, which
  the workbench shares) by their CPU (thread) time, which waiting for a core does not inflate, and
  by their wall-clock duration. Cards: window B is a
  second browser profile on the same server showing the long chat; A sends \`run touch card-N.txt &&
  echo …\` and clicks Allow once with the mouse on the card both show; B's view's work meanwhile is the sum
  of its User Timing measures (webview/timing.ts: each host message handled, each render with the
  layout it forces, each layout pass a resize scheduled) from the click to B's card painted. Memory: VmRSS of A's
  extension host process (the journal worker thread included) 5 s after each chat opened. The view
  alone: with code-server stopped, the production \`dist/webview.js\` in a page of its own with a
  stand-in host (bench/viewPage.ts), which posts the \`changes\` messages window B gets for one card
  (asked, then decided) ${r.viewAlone?.trials ?? 0} times per chat after 5 not measured; the view's User Timing
  measures from each message posted until the card showed the change.

| ${header(r).join(' | ')} |
|---|---|---|---|---|---|
${viewRows(r).map((row) => `| ${row.map(esc).join(' | ')} |`).join('\n')}
`;
}
