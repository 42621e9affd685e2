/**
 * The salvage corpus: a journal of chats written through the journal's own operations (a bare
 * `LogStore` and `JournalCore`, as the worker runs them), moved aside as the product moves an
 * unreadable journal (`quarantine`), and the tools to damage it and judge what salvage got back:
 * each chat's rows in the intact journal (the reference), which snapshot pages each chat's rows live
 * on (salvagePages.ts), and a comparison of a salvaged chat with its reference. Shared by
 * salvageCorpus.test.ts (a sample of pages) and the bench (`npm run bench -- --salvage`, every page).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database, SqlJsStatic } from 'sql.js';
import { SALVAGED_TABLES, type SalvageRow, type SalvagedChat, type SalvagedTable } from '../../src/core/salvage';
import { compact } from '../../src/journal/logStore';
import { quarantine } from '../../src/journal/workerOpen';
import { openStore, type OpenStore } from './helpers';

/** Ids and shape of corpus chat `i` (deterministic). */
export const chatId = (i: number): string => `chat-${String(i).padStart(3, '0')}`;

/**
 * Writes chat `i` (1-4 turns; tool calls, approvals, long outputs on some). Left running as a window
 * that died would leave them: the last turn of chats 3, 28, 53… waiting on an approval, and of
 * chats 8, 33, 58… in the middle of its reply.
 */
function writeChat(s: OpenStore, i: number, t0: number): void {
  const id = chatId(i);
  const at = t0 + i * 1000;
  s.write((c) => c.createSession({ id, title: `Chat ${i}`, provider: 'local', createdAt: at, updatedAt: at, workspace: '/ws' }));
  const turns = 1 + (i % 4);
  for (let k = 0; k < turns; k++) {
    const turnId = `${id}-t${k}`;
    const runId = `${id}-r${k}`;
    const when = at + k * 10;
    s.write((c) => c.startTurn({ turn: { id: turnId, sessionId: id, prompt: `run ls number ${i}.${k}`, origin: 'prompt', parentTurnId: null, createdAt: when, clientId: `${id}-c${k}`, sentFrom: 'composer' }, run: { id: runId, instanceId: 'host-old', provider: 'local' } }));
    s.write((c) => c.appendEvents(runId, [{ kind: 'text', payload: { text: `Reply ${i}.${k}: ${'word '.repeat(20 + ((i * 7 + k) % 60))}` } }], when + 1));
    if ((i + k) % 3 === 0) {
      const inv = `${id}-i${k}`;
      s.write((c) => c.startInvocation({ id: inv, runId, tool: 'run', input: JSON.stringify({ command: 'ls' }), summary: 'ls', at: when + 2 }));
      // Every 17th chat's output is long: its row spills into overflow pages.
      const chunk = i % 17 === 0 ? 'x'.repeat(9000) : `file-${i}-${k}.txt\n`;
      s.write((c) => c.appendEvents(runId, [{ kind: 'invocation_output', payload: { invocationId: inv, chunk } }], when + 3));
      const last = i % 25 === 3 && k === turns - 1;
      if (last || (i + k) % 5 === 0) {
        s.write((c) => c.createBoundaryRequest({ id: `${id}-b${k}`, runId, invocationId: inv, kind: 'command', subject: 'rm x', why: 'not read-only', detail: null, scopeKey: 'command:rm', at: when + 4 }));
        if (last) return; // left waiting: the run, its turn and the request stay open
        s.write((c) => c.settleBoundaryRequest({ id: `${id}-b${k}`, status: 'approved', decision: 'allow_once', closureReason: 'user_decision', at: when + 5 }));
      }
      s.write((c) => c.finishInvocation({ id: inv, status: 'completed', exitCode: 0, at: when + 6 }));
    }
    if (i % 25 === 8 && k === turns - 1) return; // a reply cut off mid-way
    s.write((c) => c.finishRun({ runId, status: 'completed', turnStatus: 'completed', at: when + 7 }));
  }
}

/** Options of `buildCorpus`. */
export interface CorpusOptions {
  /** Chats written (default 200). */
  readonly chats?: number;
  /** Chats written after the compaction, so they and their changes are only in the log (default 0). */
  readonly logChats?: number;
}

/** A corpus journal moved aside: the paths of its snapshot and logs, and the chats' reference rows. */
export interface Corpus {
  readonly dir: string;
  /** The journal file (moved aside: nothing is there now). */
  readonly file: string;
  /** The moved-aside snapshot. */
  readonly aside: string;
  /** The chats written before the compaction (in the snapshot). */
  readonly snapshotChats: ReadonlySet<string>;
  /** Every chat's rows as the intact journal holds them, by session id. */
  readonly reference: Map<string, Record<SalvagedTable, SalvageRow[]>>;
}

/**
 * Builds a corpus journal in `dir` (see module docstring): `chats` chats compacted into the
 * snapshot, then `logChats` more only in the log; takes the reference rows; moves it aside.
 */
export async function buildCorpus(sql: SqlJsStatic, dir: string, options: CorpusOptions = {}): Promise<Corpus> {
  const file = path.join(dir, 'journal.sqlite');
  const chats = options.chats ?? 200;
  const s = await openStore(file, { rotateAtBytes: 64 * 1024 * 1024 });
  for (let i = 0; i < chats; i++) writeChat(s, i, 1_700_000_000_000);
  s.done();
  compact(sql, file, Number.MAX_SAFE_INTEGER);
  const more = await openStore(file, { rotateAtBytes: 64 * 1024 * 1024 });
  for (let i = chats; i < chats + (options.logChats ?? 0); i++) writeChat(more, i, 1_700_000_000_000);
  const reference = referenceRows(more.store.db);
  more.done();
  const aside = quarantine(file, 1_765_000_000_000);
  const snapshotChats = new Set(Array.from({ length: chats }, (_, i) => chatId(i)));
  return { dir, file, aside, snapshotChats, reference };
}

/** Every chat's rows in `db`, by session id, in the columns salvage compares (`comparable`). */
export function referenceRows(db: Database): Map<string, Record<SalvagedTable, SalvageRow[]>> {
  const out = new Map<string, Record<SalvagedTable, SalvageRow[]>>();
  for (const table of SALVAGED_TABLES) {
    const result = db.exec(`SELECT * FROM ${table}`)[0];
    for (const values of result?.values ?? []) {
      const row = Object.fromEntries(result!.columns.map((c, i) => [c, values[i] as string | number | null]));
      const session = String(table === 'sessions' ? row.id : row.session_id);
      if (!out.has(session)) out.set(session, Object.fromEntries(SALVAGED_TABLES.map((t) => [t, []])) as unknown as Record<SalvagedTable, SalvageRow[]>);
      out.get(session)![table].push(row);
    }
  }
  return out;
}

/**
 * Columns that differ by construction between a salvaged row and its original (numbering the
 * importing journal gives): an event's id, a prompt's search docid, a chat's place in the list
 * (`activity`, one more than any chat's at each write: a chat made after a damaged record counts
 * from what survived).
 */
const RENUMBERED = new Set(['id:events', 'search_doc:turns', 'activity:sessions']);

/** A row as compared: its columns but the renumbered ones, as sorted JSON. */
function comparable(table: SalvagedTable, row: SalvageRow): string {
  return JSON.stringify(Object.keys(row).filter((c) => !RENUMBERED.has(`${c}:${table}`) && c !== '_rowid_').sort().map((c) => [c, row[c]]));
}

/**
 * True when `chat` holds exactly the reference rows of its chat, table by table (the salvage of a
 * chat left running settles nothing: its rows are compared as they were).
 */
export function recoveredWhole(chat: SalvagedChat | undefined, reference: Record<SalvagedTable, SalvageRow[]> | undefined): boolean {
  if (!chat || !reference) return false;
  return SALVAGED_TABLES.every((t) => {
    const a = chat.rows[t].map((r) => comparable(t, r)).sort();
    const b = reference[t].map((r) => comparable(t, r)).sort();
    return a.length === b.length && a.every((x, i) => x === b[i]);
  });
}

/** Overwrites page `page` (1-based) of `file` with bytes from a seeded generator (what a bad sector or a stray write leaves). */
export function damagePage(file: string, page: number, pageSize: number, seed = page): void {
  const bytes = Buffer.alloc(pageSize);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < pageSize; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    bytes[i] = x & 0xff;
  }
  const fd = fs.openSync(file, 'r+');
  try {
    fs.writeSync(fd, bytes, 0, pageSize, (page - 1) * pageSize);
  } finally {
    fs.closeSync(fd);
  }
}
