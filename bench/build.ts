/**
 * Builds a benchmark journal of a given size FAST: raw sql.js, the product's schema (MIGRATIONS +
 * `PRAGMA user_version`), realistic chat rows bulk-inserted in a few transactions, exported once to
 * `journal.sqlite`. The file has no `journal_checkpoint` table, i.e. it is a snapshot at generation 1,
 * seq 0, which the engine opens as is. Built files are cached by size (see `ensureJournal`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Database, SqlJsStatic, Statement } from 'sql.js';
import { INDEX_PENDING_EVENTS, MIGRATIONS, SCHEMA_VERSION } from '../src/journal/schema';
import { around, prng, prose, uuid } from './rows';

/** The running session/turn/run every measured write appends to (present in every built journal). */
export const LIVE = {
  sessionId: '00000000-bench-4000-a000-live00session',
  turnId: '00000000-bench-4000-a000-live0000turn',
  runId: '00000000-bench-4000-a000-live00000run',
  instanceId: '00000000-bench-4000-a000-instance0000',
} as const;

/** Bump when the generated rows change, so stale cached journals are rebuilt. */
export const BUILD_VERSION = 4;

/** What a built journal contains. */
export interface BuiltStats {
  readonly sizeMB: number;
  readonly bytes: number;
  readonly sessions: number;
  readonly turns: number;
  readonly runs: number;
  readonly invocations: number;
  readonly boundaryRequests: number;
  readonly events: number;
  /** Average payload length (characters) of `text` and `invocation_output` events. */
  readonly avgTextPayload: number;
  /** Average payload length of all events. */
  readonly avgPayload: number;
  /** Sum of payload lengths, MB (how much of the file is event text). */
  readonly payloadMB: number;
  readonly buildMs: number;
  readonly buildVersion: number;
}

/**
 * Creates the schema on an empty database exactly as the engine's migrations do, up to `version`
 * (default: this build's; an older one builds a journal as an older build left it, e.g. 3: without
 * the search index). On an empty database a migration's backfill has nothing to do.
 */
export function applySchema(db: Database, version = SCHEMA_VERSION): void {
  for (const m of MIGRATIONS.filter((m) => m.version <= version)) {
    db.exec('BEGIN');
    db.exec(m.sql);
    db.exec(`PRAGMA user_version = ${m.version}`);
    db.exec('COMMIT');
  }
  const v = db.exec('PRAGMA user_version')[0]?.values[0]?.[0];
  if (v !== version) throw new Error(`schema version ${String(v)} != ${version}`);
}

/**
 * Moves the events a bulk build inserted (schema 4's triggers leave them pending for the search
 * index) into the index, as `appendEvents` does 32 at a time; nothing on a schema without it.
 */
export function indexPendingEvents(db: Database): void {
  if (db.exec("SELECT 1 FROM sqlite_master WHERE name = 'event_search_pending'").length === 0) return;
  for (const sql of INDEX_PENDING_EVENTS) db.exec(sql);
}

/**
 * Builds an in-memory journal of at least `sizeMB` MB (file size) of realistic chat rows and
 * returns its exported bytes with what it holds.
 */
export function buildJournal(SQL: SqlJsStatic, sizeMB: number, schemaVersion = SCHEMA_VERSION): { image: Uint8Array; stats: Omit<BuiltStats, 'buildMs' | 'buildVersion'> } {
  const target = sizeMB * 1024 * 1024;
  const db = new SQL.Database();
  try {
    applySchema(db, schemaVersion);
    const rand = prng(0xc0ffee + sizeMB);
    const ins = {
      session: db.prepare('INSERT INTO sessions (id, title, provider, provider_state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)'),
      turn: db.prepare('INSERT INTO turns (id, session_id, prompt, origin, parent_turn_id, status, error_class, created_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)'),
      run: db.prepare('INSERT INTO runs (id, turn_id, session_id, instance_id, provider, status, error_class, started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)'),
      inv: db.prepare('INSERT INTO invocations (id, run_id, turn_id, session_id, tool, input, status, failure_class, started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'),
      boundary: db.prepare(`INSERT INTO boundary_requests (id, session_id, turn_id, run_id, invocation_id, kind, subject, why, detail, scope_key, status, decision, closure_reason, created_at, decided_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      event: db.prepare('INSERT INTO events (run_id, seq, session_id, turn_id, kind, payload, at) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      tab: db.prepare('INSERT INTO tabs (session_id, opened_at) VALUES (?, ?)'),
      instance: db.prepare('INSERT INTO instances (id, pid, process_start, hostname, started_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?)'),
    } satisfies Record<string, Statement>;
    const put = (s: Statement, params: (string | number | null)[]) => {
      s.run(params);
    };
    const pageSize = Number(db.exec('PRAGMA page_size')[0]!.values[0]![0]);
    const fileBytes = () => Number(db.exec('PRAGMA page_count')[0]!.values[0]![0]) * pageSize;
    const counts = { sessions: 0, turns: 0, runs: 0, invocations: 0, boundaryRequests: 0, events: 0 };
    const instances = [uuid(rand), uuid(rand), LIVE.instanceId];
    let t = 1_700_000_000_000;
    db.exec('BEGIN');
    instances.forEach((id, i) => put(ins.instance, [id, 40_000 + i, 'boot-' + i, 'bench-host', t, t]));
    let sinceCommit = 0;
    while (fileBytes() < target) {
      const sessionId = uuid(rand);
      const provider = rand() < 0.7 ? 'local' : 'claude';
      const created = t;
      const turns = 3 + Math.floor(rand() * 12);
      counts.sessions++;
      put(ins.session, [sessionId, prose(rand, around(rand, 12, 60)), provider, rand() < 0.3 ? JSON.stringify({ thread: uuid(rand) }) : null, created, created]);
      let parent: string | null = null;
      for (let ti = 0; ti < turns; ti++) {
        const turnId = uuid(rand);
        const runId = uuid(rand);
        const instanceId = instances[Math.floor(rand() * 2)]!;
        const failed = rand() < 0.08;
        const origin = parent && rand() < 0.5 ? 'retry' : 'prompt';
        t += 1000 + Math.floor(rand() * 60_000);
        const start = t;
        put(ins.turn, [turnId, sessionId, prose(rand, around(rand, 30, 500)), origin, origin === 'retry' ? parent : null, failed ? 'failed' : 'completed', failed ? 'agent_error' : null, start, start + 30_000]);
        put(ins.run, [runId, turnId, sessionId, instanceId, provider, failed ? 'failed' : 'completed', failed ? 'agent_error' : null, start, start + 30_000]);
        counts.turns++;
        counts.runs++;
        parent = failed ? turnId : null;
        let seq = 0;
        const event = (kind: string, payload: object) => {
          put(ins.event, [runId, ++seq, sessionId, turnId, kind, JSON.stringify(payload), start + seq * 40]);
          counts.events++;
        };
        const texts = 2 + Math.floor(rand() * 6);
        const tools = Math.floor(rand() * 4);
        for (let k = 0; k < texts + tools; k++) {
          if (k % 2 === 1 && k / 2 < tools) {
            const invId = uuid(rand);
            const tool = ['run', 'read', 'write', 'search'][Math.floor(rand() * 4)]!;
            const summary = prose(rand, around(rand, 20, 120));
            const denied = rand() < 0.1;
            put(ins.inv, [invId, runId, turnId, sessionId, tool, JSON.stringify({ command: summary, cwd: '/workspace' }), denied ? 'denied' : 'completed', null, start + seq * 40, start + seq * 40 + 900]);
            counts.invocations++;
            event('invocation_started', { invocationId: invId, tool, summary });
            if (rand() < 0.3) {
              const reqId = uuid(rand);
              const kind = ['command', 'network', 'file_change', 'write_outside_workspace'][Math.floor(rand() * 4)]!;
              const decision = denied ? 'deny' : rand() < 0.5 ? 'allow_once' : 'allow_session';
              put(ins.boundary, [reqId, sessionId, turnId, runId, invId, kind, summary, prose(rand, around(rand, 40, 200)), rand() < 0.4 ? prose(rand, around(rand, 200, 1500)) : null,
                `${kind}:${summary.slice(0, 16)}`, denied ? 'denied' : 'approved', decision, 'user_decision', start + seq * 40, start + seq * 40 + 5000]);
              counts.boundaryRequests++;
              event('boundary_requested', { requestId: reqId, invocationId: invId, kind, subject: summary, why: 'needs access outside the sandbox' });
              event('boundary_decided', { requestId: reqId, status: denied ? 'denied' : 'approved', decision, closureReason: 'user_decision' });
            }
            if (!denied) {
              const chunks = 1 + Math.floor(rand() * 2);
              for (let c = 0; c < chunks; c++) event('invocation_output', { invocationId: invId, chunk: prose(rand, around(rand, 600, 2000)) });
            }
            event('invocation_finished', { invocationId: invId, status: denied ? 'denied' : 'completed', exitCode: denied ? null : 0 });
          } else {
            event('text', { text: prose(rand, around(rand, 700, 2000)) });
          }
        }
        event('run_finished', failed ? { status: 'failed', turnStatus: 'failed', errorClass: 'agent_error', message: 'model server error' } : { status: 'completed', turnStatus: 'completed' });
      }
      if (rand() < 0.1) put(ins.tab, [sessionId, t]);
      db.run('UPDATE sessions SET updated_at = ? WHERE id = ?', [t, sessionId]);
      sinceCommit++;
      if (sinceCommit >= 400) {
        db.exec('COMMIT; BEGIN');
        sinceCommit = 0;
      }
    }
    // The live chat every measured write appends to: a running turn and run, with a few events.
    t += 1000;
    put(ins.session, [LIVE.sessionId, 'Benchmark chat', 'local', null, t, t]);
    put(ins.turn, [LIVE.turnId, LIVE.sessionId, 'Stream a long answer', 'prompt', null, 'running', null, t, null]);
    put(ins.run, [LIVE.runId, LIVE.turnId, LIVE.sessionId, LIVE.instanceId, 'local', 'running', null, t, null]);
    put(ins.event, [LIVE.runId, 1, LIVE.sessionId, LIVE.turnId, 'text', JSON.stringify({ text: 'Starting.' }), t]);
    put(ins.tab, [LIVE.sessionId, t]);
    counts.sessions++;
    counts.turns++;
    counts.runs++;
    counts.events++;
    indexPendingEvents(db);
    db.exec('COMMIT');
    for (const s of Object.values(ins)) s.free();
    const agg = db.exec(`SELECT
        AVG(CASE WHEN kind IN ('text', 'invocation_output') THEN length(payload) END),
        AVG(length(payload)), SUM(length(payload)) FROM events`)[0]!.values[0]!;
    const image = db.export();
    return {
      image,
      stats: {
        sizeMB, bytes: image.length, ...counts,
        avgTextPayload: Math.round(Number(agg[0])), avgPayload: Math.round(Number(agg[1])), payloadMB: Number(agg[2]) / 1048576,
      },
    };
  } finally {
    db.close();
  }
}

/** The cached journal's file name for a size (MB) and schema version. */
export function builtJournalName(sizeMB: number, schemaVersion = SCHEMA_VERSION): string {
  return `journal-${sizeMB}mb-v${BUILD_VERSION}-s${schemaVersion}.sqlite`;
}

/**
 * Cache folder for built journals: `.bench-cache/` at the repo root (or $NAC_BENCH_CACHE). It holds
 * a `.gitignore` of `*` (as pytest's cache does), so the journals are never committed even before
 * the root .gitignore lists the folder. Not under node_modules: `npm ci` would wipe it.
 */
export function cacheDir(root: string): string {
  return process.env.NAC_BENCH_CACHE ?? path.join(root, '.bench-cache');
}

/**
 * Returns the cached journal of `sizeMB` MB under `dir` at schema `schemaVersion` (default this
 * build's), building and caching it first if missing or built by another BUILD_VERSION. The file
 * must be copied before a journal writes to it.
 */
export async function ensureJournal(
  SQL: SqlJsStatic | (() => Promise<SqlJsStatic>), dir: string, sizeMB: number, schemaVersion = SCHEMA_VERSION,
): Promise<{ file: string; stats: BuiltStats; cached: boolean }> {
  const file = path.join(dir, builtJournalName(sizeMB, schemaVersion));
  const meta = `${file}.json`;
  if (fs.existsSync(file) && fs.existsSync(meta)) {
    const stats = JSON.parse(fs.readFileSync(meta, 'utf8')) as BuiltStats;
    if (stats.buildVersion === BUILD_VERSION && fs.statSync(file).size === stats.bytes) return { file, stats, cached: true };
  }
  fs.mkdirSync(dir, { recursive: true });
  const ignore = path.join(dir, '.gitignore');
  if (!fs.existsSync(ignore)) fs.writeFileSync(ignore, '# Benchmark journals (bench/build.ts): never commit.\n*\n');
  const sql = typeof SQL === 'function' ? await SQL() : SQL;
  const started = performance.now();
  const { image, stats } = buildJournal(sql, sizeMB, schemaVersion);
  const tmp = `${file}.tmp-${process.pid}`;
  fs.writeFileSync(tmp, image);
  fs.renameSync(tmp, file);
  const full: BuiltStats = { ...stats, buildMs: Math.round(performance.now() - started), buildVersion: BUILD_VERSION };
  fs.writeFileSync(meta, JSON.stringify(full, null, 2));
  return { file, stats: full, cached: false };
}
