/**
 * `npm run bench -- --salvage`: the salvage corpus swept whole (test/unit/salvageCorpus.ts; the unit
 * test damages a sample). 200 chats written by the journal's own operations and moved aside as the
 * product moves a journal; every page of the snapshot damaged in turn (random bytes over the page, a
 * copy per trial), then, on a corpus of 160 chats in the snapshot and 40 in the log, every log record
 * damaged in turn. Counts chats recovered whole against chats whose pages (or records) were intact,
 * and times one salvage read. Its figures go to bench/results.json; docs/BENCHMARKS.md's
 * "## Salvage" section is rendered from them (doc.ts).
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as fs from 'node:fs';
import { SALVAGED_TABLES } from '../src/core/salvage';
import { readMovedAside } from '../src/journal/salvage/readMovedAside';
import { loadSqlJs } from '../src/journal/sqljs';
import { WASM_PATH } from '../test/unit/helpers';
import { buildCorpus } from '../test/unit/salvageCorpus';
import { logRecords, logTrial, pageMap, pageTrial, sweepTotals, type LogTrial, type PageTrial } from '../test/unit/salvageSweep';

const HEADING = '## Salvage';

/** What the sweep measured. */
export interface SalvageBenchResult {
  readonly pages: number;
  readonly pageSize: number;
  readonly totals: ReturnType<typeof sweepTotals>;
  /** Per kind of page (what it held): trials, chats hit, of them recovered partly. */
  readonly byHolder: Record<string, { pages: number; hit: number; hitPartial: number; intactLost: number }>;
  readonly log: Record<'records' | 'untouched' | 'untouchedWhole' | 'madeAfter' | 'madeAfterWhole' | 'touched' | 'touchedPartial' | 'touchedLost', number>;
  /** One read of the intact 200-chat journal and the median read of a damaged one (ms). */
  readonly readMs: number;
  readonly damagedReadMedianMs: number;
  readonly intactLost: number;
  readonly wallMs: number;
}

/** Runs the sweep (see module docstring); `say` gets progress lines. */
export async function benchSalvage(say: (line: string) => void): Promise<SalvageBenchResult> {
  const started = performance.now();
  const sql = await loadSqlJs(WASM_PATH);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nac-bench-salvage-'));
  try {
    const corpus = await buildCorpus(sql, path.join(dir, 'pages'));
    const map = pageMap(sql, corpus);
    let t = performance.now();
    readMovedAside(sql, corpus.aside);
    const readMs = performance.now() - t;
    const trials: PageTrial[] = [];
    const times: number[] = [];
    for (let page = 1; page <= map.pageCount; page++) {
      t = performance.now();
      trials.push(pageTrial(sql, corpus, map, page, path.join(dir, 'trial')));
      times.push(performance.now() - t);
      if (page % 25 === 0) say(`  page ${page} of ${map.pageCount}`);
    }
    const byHolder: SalvageBenchResult['byHolder'] = {};
    for (const tr of trials) {
      const h = (byHolder[tr.holds] ??= { pages: 0, hit: 0, hitPartial: 0, intactLost: 0 });
      h.pages++;
      h.hit += tr.hit;
      h.hitPartial += tr.hitPartial;
      h.intactLost += tr.intactLost.length;
    }
    const logCorpus = await buildCorpus(sql, path.join(dir, 'log'), { chats: 160, logChats: 40 });
    const records = logRecords(logCorpus);
    const logTrials: LogTrial[] = [];
    for (let i = 0; i < records.records.length; i++) {
      logTrials.push(logTrial(sql, logCorpus, records, i, path.join(dir, 'trial')));
      if ((i + 1) % 50 === 0) say(`  log record ${i + 1} of ${records.records.length}`);
    }
    const sum = (k: keyof LogTrial) => logTrials.reduce((n, x) => n + (x[k] as number), 0);
    const sorted = [...times].sort((a, b) => a - b);
    return {
      pages: map.pageCount, pageSize: map.pageSize, totals: sweepTotals(trials), byHolder,
      log: {
        records: records.records.length, untouched: sum('untouched'), untouchedWhole: sum('untouchedWhole'), madeAfter: sum('madeAfter'),
        madeAfterWhole: sum('madeAfterWhole'), touched: sum('touched'), touchedPartial: sum('touchedPartial'), touchedLost: sum('touchedLost'),
      },
      readMs, damagedReadMedianMs: sorted[Math.floor(sorted.length / 2)] ?? 0,
      intactLost: trials.reduce((n, x) => n + x.intactLost.length, 0) + logTrials.reduce((n, x) => n + x.untouchedLost.length, 0),
      wallMs: performance.now() - started,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The section for docs/BENCHMARKS.md. */
export function salvageMarkdown(r: SalvageBenchResult, when: string, load: string): string {
  const order = ['schema', ...SALVAGED_TABLES, 'other'];
  const rows = order.filter((h) => r.byHolder[h]).map((h) => {
    const x = r.byHolder[h]!;
    return `| ${h === 'other' ? 'other (indexes, search index, free)' : h === 'schema' ? 'schema (`sqlite_master`)' : `\`${h}\``} | ${x.pages} | ${x.hit} | ${x.hitPartial} | ${x.hit - x.hitPartial} | ${x.intactLost} |`;
  });
  const t = r.totals;
  return [
    HEADING,
    '',
    `\`npm run bench -- --salvage\` (bench/salvage.ts), ${when}, load average ${load}: the salvage corpus (test/unit/salvageCorpus.ts) swept whole. ` +
      `200 chats (1-4 prompts each, tool calls, approvals, long outputs in overflow pages, chats left running) written by the journal's own operations, ` +
      `moved aside as the product moves a journal; each of the ${r.pages} pages of ${r.pageSize} bytes overwritten with random bytes in turn (a copy per trial). ` +
      `A chat's pages are those a reader needs to reach its rows: leaves, overflow pages, the interior pages above them and the schema's pages.`,
    '',
    '| metric | figure |',
    '|---|---|',
    `| chats whose pages were intact, recovered whole | **${t.intactWhole} of ${t.intact}** (${r.pages} pages) |`,
    `| chats with a row on the damaged page: recovered partly / not at all | ${t.hitPartial} / ${t.hit - t.hitWhole - t.hitPartial} of ${t.hit} |`,
    `| chats called whole that were not | ${t.falseWhole} (only possible where the plan says lost rows could not be matched to their chats) |`,
    `| log (160 chats in the snapshot, 40 in the log, ${r.log.records} records, each damaged in turn): chats no damaged or later record names, recovered whole | **${r.log.untouchedWhole} of ${r.log.untouched}** |`,
    `| log: chats made after the damaged record, recovered whole | ${r.log.madeAfterWhole} of ${r.log.madeAfter} |`,
    `| log: chats the damaged or a later record names (kept as before it) partly / not at all | ${r.log.touchedPartial} / ${r.log.touchedLost} of ${r.log.touched} |`,
    `| one salvage read of the intact 200-chat journal; median read of a damaged one | ${r.readMs.toFixed(0)} ms; ${r.damagedReadMedianMs.toFixed(0)} ms |`,
    `| whole sweep | ${(r.wallMs / 1000).toFixed(0)} s |`,
    '',
    'By what the damaged page held:',
    '',
    '| page held | pages | chats hit | recovered partly | not at all | intact chats not whole |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    'Chats lost whole: a damaged schema page (SQLite reads the list of tables whole before any query, so every chat is lost; a reader of raw pages could do better), ' +
      'and, in the log sweep, the chats the damaged record itself created. A damaged index or search-index page loses nothing.',
    '',
  ].join('\n');
}
