/**
 * The salvage corpus (salvageCorpus.ts): 200 chats written by the journal's own operations, moved
 * aside; each sampled page of the snapshot damaged in turn (the bench damages every page), and,
 * separately, records in the middle of the log. Every chat whose pages (or whose log records) were
 * intact must come back whole; the figures are printed.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import type { SqlJsStatic } from 'sql.js';
import { readMovedAside } from '../../src/journal/salvage/readMovedAside';
import { loadSqlJs } from '../../src/journal/sqljs';
import { WASM_PATH, trackedTempDir } from './helpers';
import { buildCorpus, recoveredWhole, type Corpus } from './salvageCorpus';
import { logRecords, logTrial, pageMap, pageTrial, sweepTotals, type LogTrial, type PageMap, type PageTrial } from './salvageSweep';

describe('salvage corpus: 200 chats, damaged pages', () => {
  let sql: SqlJsStatic;
  let corpus: Corpus;
  let map: PageMap;
  before(async () => {
    sql = await loadSqlJs(WASM_PATH);
    corpus = await buildCorpus(sql, trackedTempDir('nac-salvage-'));
    map = pageMap(sql, corpus);
  });

  it('reads every chat of an intact moved-aside journal whole', () => {
    const read = readMovedAside(sql, corpus.aside);
    assert.equal(read.chats.length, 200);
    assert.deepEqual(read.chats.filter((c) => !c.whole).map((c) => c.sessionId), []);
    assert.deepEqual(read.chats.filter((c) => !recoveredWhole(c, corpus.reference.get(c.sessionId))).map((c) => c.sessionId), []);
  });

  it('brings back whole every chat whose pages are intact, page by page (a sample: every table root and leaf kind, the schema, indexes)', () => {
    const pages = samplePages(map, 24);
    const trials: PageTrial[] = pages.map((p) => pageTrial(sql, corpus, map, p, path.join(corpus.dir, 'trial')));
    for (const t of trials) assert.deepEqual(t.intactLost, [], `page ${t.page} (${t.holds}): intact chats not recovered whole`);
    for (const t of trials) if (t.matchedAll) assert.equal(t.falseWhole, 0, `page ${t.page} (${t.holds}): a chat called whole is not`);
    const totals = sweepTotals(trials);
    // Damage that hits a chat's rows leaves it partial (or lost), never silently whole-looking.
    assert.ok(totals.hit > 0 && totals.hitPartial > 0, JSON.stringify(totals));
    console.log(`salvage corpus (${map.pageCount} pages of ${map.pageSize} bytes, ${map.chatPages.size} chats; ${pages.length} pages damaged in turn): ${JSON.stringify(totals)}`);
  });
});

describe('salvage corpus: 160 chats in the snapshot and 40 in the log, damaged log records', () => {
  it('brings back whole every chat no damaged or later record names, and every chat made after the damage; the others as they were before it, marked partial', async () => {
    const sql = await loadSqlJs(WASM_PATH);
    const corpus = await buildCorpus(sql, trackedTempDir('nac-salvage-log-'), { chats: 160, logChats: 40 });
    const log = logRecords(corpus);
    assert.ok(log.records.length > 100, `${log.records.length} records`);
    const picks = [0.1, 0.3, 0.5, 0.7, 0.9].map((f) => Math.floor(f * log.records.length));
    const trials = picks.map((i) => logTrial(sql, corpus, log, i, path.join(corpus.dir, 'trial')));
    for (const t of trials) {
      assert.deepEqual(t.untouchedLost, [], `record ${t.record}: untouched chats, or chats made after the damage, not recovered whole`);
      assert.equal(t.falseWhole, 0, `record ${t.record}: a chat called whole is not`);
      assert.equal(t.touchedPartial + t.touchedLost, t.touched, `record ${t.record}: every chat a lost record names is partial or missing`);
    }
    const sum = (k: keyof LogTrial) => trials.reduce((n, t) => n + (t[k] as number), 0);
    console.log(`salvage corpus, log (${log.records.length} records; ${trials.length} damaged in turn): ${JSON.stringify({ untouched: sum('untouched'), untouchedWhole: sum('untouchedWhole'), madeAfter: sum('madeAfter'), madeAfterWhole: sum('madeAfterWhole'), touched: sum('touched'), touchedPartial: sum('touchedPartial'), touchedLost: sum('touchedLost') })}`);
  });
});

/** Page 1, every table's first and last page and `n` more spread over the file (deterministic). */
function samplePages(map: PageMap, n: number): number[] {
  const chosen = new Set<number>([1]);
  const byHolder = new Map<string, number[]>();
  for (const [p, h] of map.holds) byHolder.set(h, [...(byHolder.get(h) ?? []), p]);
  for (const pages of byHolder.values()) {
    pages.sort((a, b) => a - b);
    chosen.add(pages[0]!);
    chosen.add(pages[pages.length - 1]!);
  }
  for (let i = 0; i < n; i++) chosen.add(1 + Math.floor(((i + 0.5) * map.pageCount) / n));
  return [...chosen].filter((p) => p <= map.pageCount).sort((a, b) => a - b);
}

