/**
 * The search section of the benchmark's report: a table for the terminal and the "## Search"
 * section of docs/BENCHMARKS.md (kept by runs that do not measure it), with the issue's targets.
 */
import type { SearchBenchResult } from './search';
import { fmt } from './stats';

const HEADING = '## Search';

const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}%`;
const mb = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MB`;
const verdict = (met: boolean) => (met ? 'met' : 'NOT MET');

/** The rows of the section's table: [metric, figure, target, verdict]. */
function rows(r: SearchBenchResult): string[][] {
  const out: string[][] = [];
  for (const s of r.sizes) {
    const growth = s.migrated.bytesAfter / s.migrated.bytesBefore - 1;
    const tag = `${s.sizeMB} MB`;
    out.push([`${tag}: file without → with the index (migration 4 over ${s.events} events)`, `${mb(s.migrated.bytesBefore)} → ${mb(s.migrated.bytesAfter)} (${pct(growth)}; ${mb(s.migrated.freeBytesAfter)} of it free pages)`, '≤ +40%', verdict(growth <= 0.4)]);
    out.push([`${tag}: durable write of a text event (~1.15 KB), with / without the index, p50 (p95, p99)`, `${fmt(s.writeWith.p50)} (${fmt(s.writeWith.p95)}, ${fmt(s.writeWith.p99)}) / ${fmt(s.writeWithout.p50)} (${fmt(s.writeWithout.p95)}, ${fmt(s.writeWithout.p99)}) ms; block median of p50 ratios ${s.writeRatio.toFixed(2)}`, 'p50 ≤ +15%', verdict(s.writeRatio <= 1.15)]);
    out.push([`${tag}: search, host call → results, p50 / p95 / max (n=${s.search.all.n})`, `${fmt(s.search.all.p50)} / ${fmt(s.search.all.p95)} / ${fmt(s.search.all.max)} ms; host thread's longest stall ${fmt(s.search.hostStallMaxMs)} ms${s.search.idleStallMaxMs === undefined ? '' : ` (no search, as long after: ${fmt(s.search.idleStallMaxMs)} ms)`}`, 'p95 ≤ 50 ms; stall ≤ 16 ms', verdict(s.search.all.p95 <= 50 && s.search.hostStallMaxMs <= 16)]);
    out.push([`${tag}: the same while the writes' background work still ran (both journals' compactions, the integrity check; 2 cores)`, `${fmt(s.searchBusy.all.p50)} / ${fmt(s.searchBusy.all.p95)} / ${fmt(s.searchBusy.all.max)} ms; host thread's longest stall ${fmt(s.searchBusy.hostStallMaxMs)} ms`, '(no target: shown for comparison)', '']);
    out.push([`${tag}: migration 4 (index of every existing row), in one sql.js`, `${(s.migrated.migrateMs / 1000).toFixed(1)} s`, '(shown with progress)', '']);
  }
  const m = r.manyChats;
  const tag = `${m.built.chats} chats (${mb(m.built.bytes)})`;
  out.push([`${tag}: search p50 / p95 / max; one workspace's`, `${fmt(m.search.all.p50)} / ${fmt(m.search.all.p95)} / ${fmt(m.search.all.max)} ms; ${fmt(m.searchWorkspace.all.p50)} / ${fmt(m.searchWorkspace.all.p95)} ms`, 'p95 ≤ 50 ms', verdict(Math.max(m.search.all.p95, m.searchWorkspace.all.p95) <= 50)]);
  out.push([`${tag}: listChats, every chat, p50 / p95; one workspace's`, `${fmt(m.listChats.p50)} / ${fmt(m.listChats.p95)} ms; ${fmt(m.listChatsWorkspace.p50)} / ${fmt(m.listChatsWorkspace.p95)} ms`, 'first population ≤ 150 ms (journal part)', verdict(m.listChats.p95 <= 150)]);
  out.push([`${tag}: getChatListItem p50 / p95`, `${fmt(m.getChatListItem.p50)} / ${fmt(m.getChatListItem.p95)} ms`, 'one-chat change ≤ 10 ms', verdict(m.getChatListItem.p95 <= 10)]);
  return out;
}

/** Per-query p50s of the largest size, one line. */
function perQuery(r: SearchBenchResult): string {
  const s = r.sizes[r.sizes.length - 1];
  if (!s) return '';
  return Object.entries(s.search.byQuery).map(([q, ms]) => `"${q}" ${fmt(ms)}`).join(', ');
}

/** The section as plain text for the terminal. */
export function searchText(r: SearchBenchResult): string {
  return rows(r).map(([what, figure, target, v]) => `  ${what}: ${figure}  [${target}${v ? `: ${v}` : ''}]`).join('\n');
}

/** The "## Search" section of docs/BENCHMARKS.md. */
export function searchMarkdown(r: SearchBenchResult, command: string): string {
  const last = r.sizes[r.sizes.length - 1];
  return [
    HEADING,
    '',
    `\`${command}\` (bench/search.ts), ${r.date.slice(0, 16).replace('T', ' ')} UTC; load average ${r.load.start.toFixed(1)} -> ${r.load.end.toFixed(1)} on 2 cores; ${(r.wallMs / 1000).toFixed(0)} s.`,
    '',
    '| metric | figure | target | verdict |',
    '|---|---|---|---|',
    ...rows(r).map((cells) => `| ${cells.join(' | ')} |`),
    '',
    last ? `Search p50 per query at ${last.sizeMB} MB (ms): ${perQuery(r)}. Each query returns at most 50 turns, newest first; "the" returned ${last.search.resultsOfCommon}.` : '',
    '',
    'What is measured: each size\'s journal is built at schema 3 (bench/build.ts rows) and migrated by the product\'s',
    'migration 4 in a child process (timed; file sizes before and after, as exported). Writes go through the',
    '`Journal` door (worker, redo log, fdatasync) to that journal and to a copy without the index\'s triggers,',
    `${BLOCK_NOTE}. Search is timed on the host thread from \`journal.read('searchChats', …)\` to its result, over`,
    'as-you-type prefixes of "journal", common words, several words and an absent word, 12 rounds; the stall is',
    "the host event loop's longest delay meanwhile (and, for comparison, over as long right after with no search running). It is timed",
    'twice: right after the writes, while both journals\' helper threads still compact and check 200+ MB (more busy threads',
    'than the 2 cores), and again once the copy is closed and the process\'s threads use under a tenth of a core (the figure',
    'held to the target: one window has one journal). The many-chats journal: 1-3 turns per chat in 7 workspaces,',
    'a tenth with no known workspace; listChats is the whole list (what the view\'s first population reads).',
  ].join('\n');
}

const BLOCK_NOTE = 'alternating blocks of 50 (600 each, after 100 each of warm-up)';
