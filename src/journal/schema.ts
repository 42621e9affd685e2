/**
 * The journal's schema and its migrations.
 *
 * The schema version is a fact of the database (`PRAGMA user_version`), never a flag kept elsewhere.
 * Migration N takes a database at version N-1 to N inside one transaction that also sets
 * `user_version = N`, so a crash leaves either the old version or the new one. A database at a
 * version above `SCHEMA_VERSION` was written by a newer build: it is opened read-only and never
 * migrated down.
 *
 * All SQL here is deterministic (no `random()`, no `now()`): ids and times come in as parameters,
 * so a logged transaction replays to the same state (see docs/ARCHITECTURE.md).
 */

import { MIGRATIONS_SINCE_6 } from './schemaSince6';

/**
 * Work a migration does after its `sql`, in the same transaction, in bounded statements so the
 * worker can report progress between them: `chunk` runs once per range of at most `BACKFILL_CHUNK`
 * integer keys between `range`'s `lo` and `hi` (inclusive), with `?1` = first key, `?2` = last key.
 * Each statement is recorded like any other, so other windows replay the same work.
 */
export interface Backfill {
  /** SQL returning one row `{lo, hi}`: the keys to cover (NULLs: nothing to do). */
  readonly range: string;
  /** SQL run per chunk of keys, `?1` to `?2` inclusive. */
  readonly chunk: string;
}

/** One migration: the statements that take `user_version` from `version - 1` to `version`. */
export interface Migration {
  readonly version: number;
  readonly description: string;
  readonly sql: string;
  /** Work over existing rows after `sql` (see Backfill), with progress. */
  readonly backfill?: readonly Backfill[];
}

/** Pending events moved into the search index at once (see migration 4): one FTS4 segment per this many events. */
export const SEARCH_BATCH = 32;

/** The statements that move every pending event into the search index (migration 4), in order. */
export const INDEX_PENDING_EVENTS: readonly string[] = [
  'INSERT INTO event_search (docid, body) SELECT rowid, body FROM event_search_body WHERE rowid IN (SELECT id FROM event_search_pending) AND body IS NOT NULL',
  'DELETE FROM event_search_pending',
];

/** Keys per backfill statement: small enough for frequent progress, large enough to amortize a statement. */
export const BACKFILL_CHUNK = 2000;

/**
 * The event kinds whose text the full-text index holds, and where the text is in the payload (a
 * `text` event's reply, a command's output, a tool call's one-line summary, a notice). The index's
 * content view and triggers are built from this list by migration 4: changing it needs a new
 * migration, never an edit.
 */
export const INDEXED_EVENT_TEXT = { text: '$.text', invocation_output: '$.chunk', invocation_started: '$.summary', notice: '$.message' } as const;
const INDEXED_KINDS = Object.keys(INDEXED_EVENT_TEXT).map((k) => `'${k}'`).join(', ');
// json_valid first: a damaged payload (kept, and fencing its chat) must not make an insert, the
// backfill or a delete fail; it is simply not indexed.
const EVENT_BODY = `CASE WHEN kind IN (${INDEXED_KINDS}) AND json_valid(payload) THEN CASE kind ${Object.entries(INDEXED_EVENT_TEXT)
  .map(([kind, at]) => `WHEN '${kind}' THEN json_extract(payload, '${at}')`)
  .join(' ')} END END`;

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
  {
    version: 4,
    description: "a chat's workspace folder; full-text search over prompts, replies, tool output and notices",
    // sessions.workspace: the folder key of the window that created the chat (as tabs.workspace:
    // the window's first folder's path; '' = a window with no folder; NULL = unknown, created before
    // this version). Full-text search (FTS4: sql.js ships FTS3/4, not FTS5) in two external-content
    // tables, so the text is stored once, in its row: an index holds only terms and positions, and
    // its "content" is a view that reads the text out of the row. FTS4 removes a document's terms
    // by reading its old text from that view, so the delete triggers run BEFORE the row goes. Docids
    // are stable integer keys (events.id; turns.search_doc, assigned in insert order), never an
    // implicit rowid, which VACUUM may renumber. order=DESC: doclists newest first, so a newest-first
    // query stops early instead of reading a common word's whole doclist.
    // Events reach the index through event_search_pending, in the same transaction as the row: FTS4
    // writes a new segment (and merges segments) per transaction, which cost more than the row's
    // insert; `appendEvents` moves the pending rows into the index SEARCH_BATCH at a time (logged
    // like any statement), and search matches the few pending rows itself. The content view leaves
    // pending rows out, so the index and its view always agree.
    sql: `
      ALTER TABLE sessions ADD COLUMN workspace TEXT;
      ALTER TABLE turns ADD COLUMN search_doc INTEGER;
      UPDATE turns SET search_doc = numbered.n
        FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM turns) AS numbered
        WHERE numbered.id = turns.id;
      CREATE UNIQUE INDEX turns_by_search_doc ON turns(search_doc);
      CREATE TABLE event_search_pending (id INTEGER PRIMARY KEY);
      CREATE VIEW event_search_body AS SELECT id AS rowid, ${EVENT_BODY} AS body FROM events;
      CREATE VIEW event_search_text AS SELECT rowid, body FROM event_search_body WHERE rowid NOT IN (SELECT id FROM event_search_pending);
      CREATE VIEW prompt_search_text AS SELECT search_doc AS rowid, prompt AS body FROM turns;
      CREATE VIRTUAL TABLE event_search USING fts4(content="event_search_text", body, tokenize=unicode61, matchinfo=fts3, order=DESC);
      CREATE VIRTUAL TABLE prompt_search USING fts4(content="prompt_search_text", body, tokenize=unicode61, matchinfo=fts3, order=DESC);
      CREATE TRIGGER events_search_insert AFTER INSERT ON events WHEN new.kind IN (${INDEXED_KINDS}) BEGIN
        INSERT INTO event_search_pending (id) VALUES (new.id);
      END;
      CREATE TRIGGER events_search_delete BEFORE DELETE ON events WHEN old.kind IN (${INDEXED_KINDS}) BEGIN
        DELETE FROM event_search WHERE docid = old.id;
        DELETE FROM event_search_pending WHERE id = old.id;
      END;
      CREATE TRIGGER events_search_update_before BEFORE UPDATE OF kind, payload ON events WHEN old.kind IN (${INDEXED_KINDS}) BEGIN
        DELETE FROM event_search WHERE docid = old.id;
        DELETE FROM event_search_pending WHERE id = old.id;
      END;
      CREATE TRIGGER events_search_update_after AFTER UPDATE OF kind, payload ON events WHEN new.kind IN (${INDEXED_KINDS}) BEGIN
        INSERT INTO event_search_pending (id) VALUES (new.id);
      END;
      CREATE TRIGGER turns_search_insert AFTER INSERT ON turns BEGIN
        UPDATE turns SET search_doc = (SELECT COALESCE(MAX(search_doc), 0) + 1 FROM turns) WHERE rowid = new.rowid;
        INSERT INTO prompt_search (docid, body) SELECT search_doc, prompt FROM turns WHERE rowid = new.rowid;
      END;
      CREATE TRIGGER turns_search_delete BEFORE DELETE ON turns WHEN old.search_doc IS NOT NULL BEGIN
        DELETE FROM prompt_search WHERE docid = old.search_doc;
      END;
      CREATE TRIGGER turns_search_update_before BEFORE UPDATE OF prompt ON turns WHEN old.search_doc IS NOT NULL BEGIN
        DELETE FROM prompt_search WHERE docid = old.search_doc;
      END;
      CREATE TRIGGER turns_search_update_after AFTER UPDATE OF prompt ON turns WHEN new.search_doc IS NOT NULL BEGIN
        INSERT INTO prompt_search (docid, body) VALUES (new.search_doc, new.prompt);
      END;
    `,
    // The index of the rows already there, a chunk of keys per statement (progress between them).
    backfill: [
      {
        range: 'SELECT MIN(search_doc) AS lo, MAX(search_doc) AS hi FROM turns',
        chunk: 'INSERT INTO prompt_search (docid, body) SELECT rowid, body FROM prompt_search_text WHERE rowid BETWEEN ?1 AND ?2',
      },
      {
        range: 'SELECT MIN(id) AS lo, MAX(id) AS hi FROM events',
        chunk: 'INSERT INTO event_search (docid, body) SELECT rowid, body FROM event_search_body WHERE rowid BETWEEN ?1 AND ?2 AND body IS NOT NULL',
      },
    ],
  },
  {
    version: 5,
    description: "prompts' client ids and delivery states; a chat's queue of messages (the outbox)",
    // turns.client_id: the id the view gave the message (unique, so a message posted again never
    // makes a second turn; NULL for Retry, Continue and older turns). turns.delivery: 'sending' until
    // the agent acknowledged the prompt, then 'delivered' (NULL: written before this version, counted
    // as delivered). turns.sent_from: 'composer', 'queue' or 'send_now' (NULL as client_id).
    // queued_prompts: messages that wait for a reply to end; rows are kept once 'sent' or
    // 'discarded', so a client id posted again is recognized. The columns come last in `turns`, so
    // the search triggers of migration 4 (on insert, and on updates of `prompt` only) are unchanged.
    sql: `
      ALTER TABLE turns ADD COLUMN client_id TEXT;
      ALTER TABLE turns ADD COLUMN delivery TEXT;
      ALTER TABLE turns ADD COLUMN sent_from TEXT;
      CREATE UNIQUE INDEX turns_by_client_id ON turns(client_id) WHERE client_id IS NOT NULL;
      CREATE TABLE queued_prompts (
        client_id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL,
        text TEXT NOT NULL,
        state TEXT NOT NULL,
        position INTEGER NOT NULL,
        hold TEXT,
        send_now INTEGER NOT NULL DEFAULT 0,
        turn_id TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX queued_prompts_by_session ON queued_prompts(session_id, state, position);
    `,
  },
  ...MIGRATIONS_SINCE_6,
];

/** The schema version this build writes. */
export const SCHEMA_VERSION: number = MIGRATIONS[MIGRATIONS.length - 1]!.version;
