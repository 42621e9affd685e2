/**
 * Journals for the search benchmark (bench/search.ts): a schema-3 journal taken to schema 4 by the
 * product's own migration (its index backfilled, timed), the same journal without the index's
 * triggers (the "without index" side of the write comparison), and a journal of 10,000 small chats.
 */
import * as fs from 'node:fs';
import type { SqlJsStatic } from 'sql.js';
import { JournalCore } from '../src/journal/core';
import { MIGRATIONS, SCHEMA_VERSION } from '../src/journal/schema';
import { LIVE, applySchema, ensureJournal, indexPendingEvents, type BuiltStats } from './build';
import { around, prng, prose, uuid } from './rows';

/** What migrating a schema-3 journal to schema 4 took, and the sizes before and after. */
export interface Migrated {
  readonly bytesBefore: number;
  readonly bytesAfter: number;
  /** Free pages in the migrated file (space the backfill's merges left, reused by later writes). */
  readonly freeBytesAfter: number;
  /** Time of migration 4 (its SQL and the backfill of the index), ms, in this process's sql.js. */
  readonly migrateMs: number;
}

/** Migrates the schema-3 journal `from` with the product's migrations and writes it to `to`. */
export function migrateCopy(SQL: SqlJsStatic, from: string, to: string): Migrated {
  const bytes = fs.readFileSync(from);
  const db = new SQL.Database(bytes);
  try {
    const core = new JournalCore(db);
    const t0 = performance.now();
    db.exec('BEGIN');
    while (core.migrateOne(MIGRATIONS) !== undefined) { /* next migration */ }
    db.exec('COMMIT');
    const migrateMs = performance.now() - t0;
    if (core.userVersion() !== SCHEMA_VERSION) throw new Error(`migrated to ${core.userVersion()}, not ${SCHEMA_VERSION}`);
    const pageSize = Number(db.exec('PRAGMA page_size')[0]!.values[0]![0]);
    const free = Number(db.exec('PRAGMA freelist_count')[0]!.values[0]![0]) * pageSize;
    const image = db.export();
    fs.writeFileSync(to, image);
    return { bytesBefore: bytes.length, bytesAfter: image.length, freeBytesAfter: free, migrateMs };
  } finally {
    db.close();
  }
}

/** Copies the schema-4 journal `from` to `to` without the triggers that keep the search index (nothing else differs). */
export function withoutIndexTriggers(SQL: SqlJsStatic, from: string, to: string): void {
  const db = new SQL.Database(fs.readFileSync(from));
  try {
    for (const t of ['events_search_insert', 'events_search_delete', 'events_search_update_before', 'events_search_update_after', 'turns_search_insert']) db.exec(`DROP TRIGGER ${t}`);
    fs.writeFileSync(to, db.export());
  } finally {
    db.close();
  }
}

/** What the many-chats journal holds. */
export interface ManyChats {
  readonly chats: number;
  readonly turns: number;
  readonly events: number;
  readonly bytes: number;
  readonly buildMs: number;
}

/**
 * Writes a schema-4 journal of `chats` small chats (1-3 turns, each a prompt, 1-3 replies and some
 * with a command's output), in a few workspaces, with a running chat and a pending boundary
 * request, to `file`.
 */
export function buildManyChats(SQL: SqlJsStatic, file: string, chats: number): ManyChats {
  const t0 = performance.now();
  const db = new SQL.Database();
  try {
    applySchema(db);
    const rand = prng(0x5eed);
    const session = db.prepare('INSERT INTO sessions (id, title, provider, workspace, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
    const turn = db.prepare("INSERT INTO turns (id, session_id, prompt, origin, status, error_class, created_at, finished_at) VALUES (?, ?, ?, 'prompt', ?, ?, ?, ?)");
    const run = db.prepare('INSERT INTO runs (id, turn_id, session_id, instance_id, provider, status, error_class, started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const event = db.prepare('INSERT INTO events (run_id, seq, session_id, turn_id, kind, payload, at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    let t = 1_700_000_000_000;
    let turns = 0;
    let events = 0;
    db.exec('BEGIN');
    for (let c = 0; c < chats; c++) {
      const sessionId = uuid(rand);
      const workspace = c % 10 === 0 ? null : `/home/user/project-${c % 7}`;
      session.run([sessionId, prose(rand, around(rand, 12, 60)), 'local', workspace, t, t]);
      const n = 1 + Math.floor(rand() * 3);
      for (let k = 0; k < n; k++) {
        const turnId = uuid(rand);
        const runId = uuid(rand);
        const failed = rand() < 0.08;
        t += 1000 + Math.floor(rand() * 60_000);
        turn.run([turnId, sessionId, prose(rand, around(rand, 30, 300)), failed ? 'failed' : 'completed', failed ? 'agent_error' : null, t, t + 30_000]);
        run.run([runId, turnId, sessionId, LIVE.instanceId, 'local', failed ? 'failed' : 'completed', failed ? 'agent_error' : null, t, t + 30_000]);
        turns++;
        const replies = 1 + Math.floor(rand() * 3);
        for (let e = 1; e <= replies; e++) event.run([runId, e, sessionId, turnId, 'text', JSON.stringify({ text: prose(rand, around(rand, 200, 1200)) }), t + e * 40]);
        events += replies;
        if (rand() < 0.3) {
          event.run([runId, replies + 1, sessionId, turnId, 'invocation_output', JSON.stringify({ invocationId: uuid(rand), chunk: prose(rand, around(rand, 200, 1200)) }), t + 400]);
          events++;
        }
      }
      db.run('UPDATE sessions SET updated_at = ? WHERE id = ?', [t, sessionId]);
      if (c % 500 === 499) db.exec('COMMIT; BEGIN');
    }
    // The chat every measured write appends to, running, with a pending boundary request.
    session.run([LIVE.sessionId, 'Benchmark chat', 'local', '/home/user/project-1', t, t]);
    turn.run([LIVE.turnId, LIVE.sessionId, 'Stream a long answer', 'running', null, t, null]);
    run.run([LIVE.runId, LIVE.turnId, LIVE.sessionId, LIVE.instanceId, 'local', 'running', null, t, null]);
    db.run(`INSERT INTO boundary_requests (id, session_id, turn_id, run_id, kind, subject, why, scope_key, status, created_at)
      VALUES ('bench-request', ?, ?, ?, 'command', 'rm -rf build', 'outside the sandbox', 'command:rm', 'pending', ?)`, [LIVE.sessionId, LIVE.turnId, LIVE.runId, t]);
    indexPendingEvents(db);
    db.exec('COMMIT');
    for (const s of [session, turn, run, event]) s.free();
    const image = db.export();
    fs.writeFileSync(file, image);
    return { chats: chats + 1, turns: turns + 1, events, bytes: image.length, buildMs: performance.now() - t0 };
  } finally {
    db.close();
  }
}

/** Arguments of the `searchPrepare` bench task. */
export interface SearchPrepareArgs {
  readonly cache: string;
  /** `sizeMB` set: the schema-3 journal of that size migrated to `withFile`, and a copy without the index's triggers at `withoutFile`. */
  readonly sizeMB?: number;
  readonly withFile?: string;
  readonly withoutFile?: string;
  /** `chats` set: the many-chats journal written to `manyFile`. */
  readonly chats?: number;
  readonly manyFile?: string;
}

/**
 * The search bench's journals, made in a bench task (a child process), so that no sql.js database
 * ever lives in the process whose event loop the bench watches.
 */
export async function prepareSearchJournals(SQL: SqlJsStatic, args: SearchPrepareArgs): Promise<{ built?: BuiltStats & { cached: boolean }; migrated?: Migrated; many?: ManyChats }> {
  if (args.chats !== undefined) return { many: buildManyChats(SQL, args.manyFile!, args.chats) };
  const built = await ensureJournal(SQL, args.cache, args.sizeMB!, 3);
  const migrated = migrateCopy(SQL, built.file, args.withFile!);
  withoutIndexTriggers(SQL, args.withFile!, args.withoutFile!);
  return { built: { ...built.stats, cached: built.cached }, migrated };
}
