/**
 * The salvage corpus's sweep: damage one page of a moved-aside snapshot (a copy per trial), salvage
 * it, and count chats recovered whole against the chats whose pages were intact (salvagePages.ts),
 * and what became of the chats whose pages were hit. Shared by salvageCorpus.test.ts (a sample of
 * pages) and the bench (`npm run bench -- --salvage`: every page).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { SALVAGED_TABLES } from '../../src/core/salvage';
import { readMovedAside } from '../../src/journal/salvage/readMovedAside';
import { damagePage, recoveredWhole, type Corpus } from './salvageCorpus';
import { tablePages } from './salvagePages';

/** One damaged page's outcome, in chats. */
export interface PageTrial {
  readonly page: number;
  /** What the page held: a table's name (its b-tree), `schema`, or `other` (indexes, search index, free). */
  readonly holds: string;
  /** Chats whose pages were all intact, and of them recovered whole. */
  readonly intact: number;
  readonly intactWhole: number;
  /** Chats with a row on the damaged page: recovered whole, partly, or not at all. */
  readonly hit: number;
  readonly hitWhole: number;
  readonly hitPartial: number;
  /** Chats the plan called whole that are not (must be 0 when every lost row could be matched to its chat). */
  readonly falseWhole: number;
  /** Chats recovered partly (any chat). */
  readonly partial: number;
  /** False when the read says some lost rows could not be matched to their chats (then `falseWhole` may be above 0). */
  readonly matchedAll: boolean;
  /** Ids of intact chats not recovered whole (must be empty). */
  readonly intactLost: readonly string[];
}

/** Which pages each chat of the corpus needs, and what each page holds. */
export interface PageMap {
  readonly pageSize: number;
  readonly pageCount: number;
  readonly chatPages: Map<string, Set<number>>;
  readonly holds: Map<number, string>;
}

/** The page map of the corpus's intact snapshot (see salvagePages.ts). */
export function pageMap(sql: SqlJsStatic, corpus: Corpus): PageMap {
  const bytes = fs.readFileSync(corpus.aside);
  const raw = bytes.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  const db = new sql.Database(bytes);
  const holds = new Map<number, string>();
  const schema = tablePages(bytes, 1);
  for (const p of schema.all) holds.set(p, 'schema');
  const chatPages = new Map<string, Set<number>>();
  for (const table of SALVAGED_TABLES) {
    const root = Number(db.exec('SELECT rootpage FROM sqlite_master WHERE name = ?', [table])[0]!.values[0]![0]);
    const pages = tablePages(bytes, root);
    for (const p of pages.all) holds.set(p, table);
    const key = table === 'sessions' ? 'id' : 'session_id';
    for (const [rowid, session] of db.exec(`SELECT rowid, ${key} FROM ${table}`)[0]?.values ?? []) {
      const set = chatPages.get(String(session)) ?? new Set(schema.all);
      for (const p of pages.byRowid.get(Number(rowid)) ?? []) set.add(p);
      chatPages.set(String(session), set);
    }
  }
  db.close();
  return { pageSize, pageCount: bytes.length / pageSize, chatPages, holds };
}

/** Damages page `page` of a copy of the corpus's moved-aside journal in `trialDir` and judges the salvage (see module docstring). */
export function pageTrial(sql: SqlJsStatic, corpus: Corpus, map: PageMap, page: number, trialDir: string): PageTrial {
  fs.rmSync(trialDir, { recursive: true, force: true });
  fs.mkdirSync(trialDir, { recursive: true });
  const aside = path.join(trialDir, path.basename(corpus.aside));
  for (const name of fs.readdirSync(path.dirname(corpus.aside))) {
    if (name.startsWith(path.basename(corpus.aside))) fs.copyFileSync(path.join(path.dirname(corpus.aside), name), path.join(trialDir, name));
  }
  damagePage(aside, page, map.pageSize);
  const read = readMovedAside(sql, aside);
  const chats = new Map(read.chats.map((c) => [c.sessionId, c]));
  let intact = 0, intactWhole = 0, hit = 0, hitWhole = 0, hitPartial = 0, falseWhole = 0;
  const intactLost: string[] = [];
  for (const [id, pages] of map.chatPages) {
    const whole = recoveredWhole(chats.get(id), corpus.reference.get(id));
    if (chats.get(id)?.whole && !whole) falseWhole++;
    if (!pages.has(page)) {
      intact++;
      if (whole) intactWhole++;
      else intactLost.push(id);
    } else {
      hit++;
      if (whole) hitWhole++;
      else if (chats.has(id)) hitPartial++;
    }
  }
  const partial = read.chats.filter((c) => !c.whole).length;
  const matchedAll = !read.notes.some((n) => n.includes('not all could be matched'));
  return { page, holds: map.holds.get(page) ?? 'other', matchedAll, intact, intactWhole, hit, hitWhole, hitPartial, falseWhole, partial, intactLost };
}

/** Totals of several trials, as the report prints them. */
export function sweepTotals(trials: readonly PageTrial[]): Record<'pages' | 'intact' | 'intactWhole' | 'hit' | 'hitWhole' | 'hitPartial' | 'falseWhole', number> {
  const sum = (k: keyof PageTrial) => trials.reduce((n, t) => n + (t[k] as number), 0);
  return { pages: trials.length, intact: sum('intact'), intactWhole: sum('intactWhole'), hit: sum('hit'), hitWhole: sum('hitWhole'), hitPartial: sum('hitPartial'), falseWhole: sum('falseWhole') };
}
