/**
 * The salvage corpus's sweeps: damage one page of a moved-aside snapshot (a copy per trial), salvage
 * it, and count chats recovered whole against the chats whose pages were intact (salvagePages.ts),
 * and what became of the chats whose pages were hit; likewise one record in the middle of its log,
 * against the chats no record from there on names. Shared by salvageCorpus.test.ts (a sample of
 * pages) and the bench (`npm run bench -- --salvage`: every page).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { SqlJsStatic } from 'sql.js';
import { SALVAGED_TABLES } from '../../src/core/salvage';
import { FRAME_BYTES, LOG_HEADER_BYTES, decodeFrame } from '../../src/journal/logFormat';
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

/** One damaged log record's outcome, in chats. */
export interface LogTrial {
  /** Index of the damaged record in the log (0-based) and how many records the log holds. */
  readonly record: number;
  readonly records: number;
  /** Chats no record from the damaged one on names, and of them recovered whole. */
  readonly untouched: number;
  readonly untouchedWhole: number;
  /** Chats made after the damaged record that it does not name, and of them recovered whole (their changes depend on nothing lost). */
  readonly madeAfter: number;
  readonly madeAfterWhole: number;
  /** Chats made before, named by the damaged record or a later one: recovered partly (as before the damage), or not at all. */
  readonly touched: number;
  readonly touchedPartial: number;
  readonly touchedLost: number;
  /** Untouched chats and chats made after not recovered whole (must be empty), and chats called whole that are not (must be 0). */
  readonly untouchedLost: readonly string[];
  readonly falseWhole: number;
}

/** The records of the corpus's log generation (offset, length, sessions named), in order. */
export function logRecords(corpus: Corpus): { file: string; records: { offset: number; length: number; x: readonly string[] }[] } {
  const name = fs.readdirSync(corpus.dir).filter((n) => n.startsWith(`${path.basename(corpus.aside)}.log.`)).sort().pop()!;
  const bytes = fs.readFileSync(path.join(corpus.dir, name));
  const records: { offset: number; length: number; x: readonly string[] }[] = [];
  for (let offset = LOG_HEADER_BYTES; ; ) {
    const length = bytes.readUInt32LE(offset);
    const outcome = decodeFrame(bytes.subarray(offset, offset + FRAME_BYTES), bytes.subarray(offset + FRAME_BYTES, offset + FRAME_BYTES + length), offset);
    if (outcome.type !== 'record') break;
    records.push({ offset, length, x: outcome.record.x });
    offset = outcome.next;
  }
  return { file: name, records };
}

/** Damages record `index` of the corpus's log (16 bytes in the middle of its payload) in a copy in `trialDir`, salvages it, judges it. */
export function logTrial(sql: SqlJsStatic, corpus: Corpus, log: ReturnType<typeof logRecords>, index: number, trialDir: string): LogTrial {
  fs.rmSync(trialDir, { recursive: true, force: true });
  fs.mkdirSync(trialDir, { recursive: true });
  for (const name of fs.readdirSync(corpus.dir)) if (name.startsWith(path.basename(corpus.aside))) fs.copyFileSync(path.join(corpus.dir, name), path.join(trialDir, name));
  const target = log.records[index]!;
  const fd = fs.openSync(path.join(trialDir, log.file), 'r+');
  fs.writeSync(fd, Buffer.alloc(16, 0xab), 0, 16, target.offset + FRAME_BYTES + Math.floor(target.length / 2));
  fs.closeSync(fd);
  const read = readMovedAside(sql, path.join(trialDir, path.basename(corpus.aside)));
  const chats = new Map(read.chats.map((c) => [c.sessionId, c]));
  const touchedIds = new Set(log.records.slice(index).flatMap((r) => r.x));
  const before = new Set([...corpus.snapshotChats, ...log.records.slice(0, index + 1).flatMap((r) => r.x)]);
  let untouched = 0, untouchedWhole = 0, madeAfter = 0, madeAfterWhole = 0, touched = 0, touchedPartial = 0, touchedLost = 0, falseWhole = 0;
  const untouchedLost: string[] = [];
  for (const id of corpus.reference.keys()) {
    const chat = chats.get(id);
    const whole = recoveredWhole(chat, corpus.reference.get(id));
    if (chat?.whole && !whole) falseWhole++;
    if (!touchedIds.has(id) || !before.has(id)) {
      if (touchedIds.has(id)) madeAfter++;
      else untouched++;
      if (whole) touchedIds.has(id) ? madeAfterWhole++ : untouchedWhole++;
      else untouchedLost.push(id);
    } else {
      touched++;
      if (!chat) touchedLost++;
      else if (!chat.whole) touchedPartial++;
    }
  }
  return { record: index, records: log.records.length, untouched, untouchedWhole, madeAfter, madeAfterWhole, touched, touchedPartial, touchedLost, untouchedLost, falseWhole };
}
