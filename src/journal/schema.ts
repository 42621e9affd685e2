/**
 * The journal's schema and its migrations.
 *
 * The schema version is a fact of the database (`PRAGMA user_version`), never a flag kept elsewhere.
 * Migration N takes a database at version N-1 to N inside one transaction that also sets
 * `user_version = N`, so a crash leaves either the old version or the new one (the rule of
 * stablyai/orca's journal). A database at a version above `SCHEMA_VERSION` was written by a newer
 * build: it is opened read-only and never migrated down.
 *
 * All SQL here is deterministic (no `random()`, no `now()`): ids and times come in as parameters,
 * so a logged transaction replays to the same state (see docs/ARCHITECTURE.md).
 */

/** One migration: the statements that take `user_version` from `version - 1` to `version`. */
export interface Migration {
  readonly version: number;
  readonly description: string;
  readonly sql: string;
}

/** Every migration, in order. Append only; never edit a shipped one. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'sessions, turns, runs, invocations, runtime events, boundary requests, tabs, instances',
    sql: `
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        provider TEXT NOT NULL,
        provider_state TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE turns (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id),
        prompt TEXT NOT NULL,
        origin TEXT NOT NULL,
        parent_turn_id TEXT,
        status TEXT NOT NULL,
        error_class TEXT,
        created_at INTEGER NOT NULL,
        finished_at INTEGER
      );
      CREATE INDEX turns_by_session ON turns(session_id, created_at);
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        turn_id TEXT NOT NULL REFERENCES turns(id),
        session_id TEXT NOT NULL,
        instance_id TEXT NOT NULL,
        provider TEXT NOT NULL,
        status TEXT NOT NULL,
        error_class TEXT,
        started_at INTEGER NOT NULL,
        finished_at INTEGER
      );
      CREATE INDEX runs_in_flight ON runs(status) WHERE status = 'running';
      CREATE INDEX runs_by_session ON runs(session_id, started_at);
      CREATE TABLE invocations (
        id TEXT PRIMARY KEY,
        run_id TEXT NOT NULL REFERENCES runs(id),
        turn_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        input TEXT NOT NULL,
        status TEXT NOT NULL,
        failure_class TEXT,
        started_at INTEGER NOT NULL,
        finished_at INTEGER
      );
      CREATE INDEX invocations_by_run ON invocations(run_id);
      CREATE TABLE events (
        run_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        session_id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        at INTEGER NOT NULL,
        PRIMARY KEY (run_id, seq)
      ) WITHOUT ROWID;
      CREATE INDEX events_by_session ON events(session_id);
      CREATE TABLE boundary_requests (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        run_id TEXT,
        invocation_id TEXT,
        kind TEXT NOT NULL,
        subject TEXT NOT NULL,
        why TEXT NOT NULL,
        detail TEXT,
        scope_key TEXT NOT NULL,
        status TEXT NOT NULL,
        decision TEXT,
        closure_reason TEXT,
        created_at INTEGER NOT NULL,
        decided_at INTEGER
      );
      CREATE INDEX boundary_pending_by_run ON boundary_requests(run_id) WHERE status = 'pending';
      CREATE INDEX boundary_restart_closures ON boundary_requests(session_id)
        WHERE status = 'denied' AND closure_reason = 'host_restarted';
      CREATE INDEX boundary_session_grants ON boundary_requests(session_id, scope_key)
        WHERE decision = 'allow_session';
      CREATE TABLE tabs (
        session_id TEXT PRIMARY KEY,
        opened_at INTEGER NOT NULL
      );
      CREATE TABLE instances (
        id TEXT PRIMARY KEY,
        pid INTEGER NOT NULL,
        process_start TEXT,
        hostname TEXT NOT NULL,
        started_at INTEGER NOT NULL,
        last_seen_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 2,
    description: 'events as a rowid table: rows of ~1.4 KB no longer spill into overflow pages',
    // Version 1 clustered events by (run_id, seq) WITHOUT ROWID. Such a table keeps at most ~1 KB of a
    // row in its b-tree page (SQLite's index payload limit), so a typical 1.4 KB text event took an
    // overflow page too: files were ~2.1x larger and every insert and replay slower
    // (docs/BENCHMARKS.md). A rowid table keeps rows up to ~4 KB in the page; UNIQUE(run_id, seq)
    // keeps the (run, seq) lookup. Rows are copied in (run_id, seq) order, so rowids are
    // deterministic and the statement replays identically in every window.
    sql: `
      CREATE TABLE events_v2 (
        id INTEGER PRIMARY KEY,
        run_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        session_id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        payload TEXT NOT NULL,
        at INTEGER NOT NULL,
        UNIQUE (run_id, seq)
      );
      INSERT INTO events_v2 (run_id, seq, session_id, turn_id, kind, payload, at)
        SELECT run_id, seq, session_id, turn_id, kind, payload, at FROM events ORDER BY run_id, seq;
      DROP TABLE events;
      ALTER TABLE events_v2 RENAME TO events;
      CREATE INDEX events_by_session ON events(session_id);
    `,
  },
  {
    version: 3,
    description: 'tabs record the workspace folder of the window that showed them',
    // A window reopens only the journaled tabs of its own folder (src/host/tabRepair.ts). NULL: a
    // tab recorded before this version, of any folder.
    sql: `
      ALTER TABLE tabs ADD COLUMN workspace TEXT;
    `,
  },
];

/** The schema version this build writes. */
export const SCHEMA_VERSION: number = MIGRATIONS[MIGRATIONS.length - 1]!.version;
