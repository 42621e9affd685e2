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
  {
    version: 6,
    description: 'the content store: byte strings kept once by their SHA-256',
    // contents: whole content the journal keeps (attachments sent with a prompt, files before and
    // after an agent changed them), addressed by the SHA-256 of the bytes so identical content is
    // stored once. encoding 'utf8': body is the bytes as text; 'base64': body is their base64 (the
    // redo log carries text and numbers, not blobs). See operations/contents.ts.
    sql: `
      CREATE TABLE contents (
        hash TEXT PRIMARY KEY,
        size INTEGER NOT NULL,
        encoding TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 7,
    description: 'chats recovered from a moved-aside journal, with where they came from',
    // One row per chat a salvage imported (src/journal/salvage/): the moved-aside file's name, when,
    // whether every row of the chat could be read, and what could not. The row stays when the chat
    // is deleted later, so a salvage run again never brings back a chat the user deleted.
    sql: `
      CREATE TABLE recovered_chats (
        session_id TEXT PRIMARY KEY,
        source TEXT NOT NULL,
        recovered_at INTEGER NOT NULL,
        whole INTEGER NOT NULL,
        note TEXT
      );
    `,
  },
  {
    version: 8,
    description: 'rows set aside by Repair Journal, with their original values',
    // Repair Journal moves a row this build cannot read (and that evidence proves damaged, not a
    // newer build's) out of its table into this one, so its chat's fence lifts and nothing is lost.
    // table_name/row_key say where it was (row_key: the row's own key, as its DELETE named it);
    // row_id: its rowid then (events: its id); row_values: a JSON object of every column's value as
    // read; reason: why it could not be read; build/instance_id: which version and window moved it.
    sql: `
      CREATE TABLE quarantined_rows (
        id INTEGER PRIMARY KEY,
        table_name TEXT NOT NULL,
        row_id INTEGER NOT NULL,
        row_key TEXT NOT NULL,
        session_id TEXT NOT NULL,
        row_values TEXT NOT NULL,
        reason TEXT NOT NULL,
        quarantined_at INTEGER NOT NULL,
        build TEXT NOT NULL,
        instance_id TEXT NOT NULL
      );
      CREATE INDEX quarantined_rows_by_session ON quarantined_rows(session_id);
    `,
  },
  {
    version: 9,
    description: 'the model chosen per chat and the model each turn ran with',
    // sessions.model: the model the user picked in the chat's header (NULL: the provider's setting).
    // turns.model: the model the turn was run with, written with the turn (the chat's choice, else
    // the provider's setting in the window that started it; NULL when neither names one, and for
    // turns before this version). Both come last, so the search triggers of migration 4 (on insert,
    // and on updates of `prompt` only) are unchanged.
    sql: `
      ALTER TABLE sessions ADD COLUMN model TEXT;
      ALTER TABLE turns ADD COLUMN model TEXT;
    `,
  },
  {
    version: 10,
    description: 'edit and resend: the turn a resent prompt replaces',
    // turns.replaces_turn_id: the turn whose prompt the user edited and sent again as this one (NULL
    // for every other turn). The replaced turn stays as it was; views show it collapsed as edited,
    // and the history handed to agents leaves it out. The index finds a chat's replaced turns.
    sql: `
      ALTER TABLE turns ADD COLUMN replaces_turn_id TEXT;
      CREATE INDEX turns_by_replaced ON turns(replaces_turn_id) WHERE replaces_turn_id IS NOT NULL;
    `,
  },
  {
    version: 11,
    description: 'checkpoints: the files each tool invocation changed, and the undos and redos of them',
    // file_changes: one row per file an invocation changed, written with the invocation (or its
    // result); before_/after_exists 0 for an absent file, after_exists NULL while the after image is
    // not known; *_hash NULL when absent (a file over the size cap has its hash, its bytes are not
    // in the store: checkpointed 0, reason 'too_large'); state
    // 'pending' | 'applied' | 'not_applied' (core/checkpoints.ts). file_undos: one row per undo
    // (scope 'turn' or 'from_turn', turn_ids the turns it took back as a JSON array, newest first;
    // state 'undone', or 'redone' once redone); file_undo_items: what it did to each file (found: the
    // file before the undo, which a redo puts back; wrote: what the undo left). Content hashes
    // reference the content store (operations/contents.ts, CONTENT_REFERENCES), each column indexed.
    sql: `
      CREATE TABLE file_changes (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        invocation_id TEXT NOT NULL,
        path TEXT NOT NULL,
        before_exists INTEGER NOT NULL,
        before_hash TEXT,
        before_size INTEGER NOT NULL,
        after_exists INTEGER,
        after_hash TEXT,
        after_size INTEGER,
        state TEXT NOT NULL,
        checkpointed INTEGER NOT NULL,
        reason TEXT,
        added INTEGER,
        removed INTEGER,
        created_at INTEGER NOT NULL,
        settled_at INTEGER
      );
      CREATE INDEX file_changes_by_session ON file_changes(session_id, turn_id);
      CREATE UNIQUE INDEX file_changes_by_invocation ON file_changes(invocation_id, path);
      CREATE INDEX file_changes_before ON file_changes(before_hash) WHERE before_hash IS NOT NULL;
      CREATE INDEX file_changes_after ON file_changes(after_hash) WHERE after_hash IS NOT NULL;
      CREATE TABLE file_undos (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL,
        turn_id TEXT NOT NULL,
        scope TEXT NOT NULL,
        turn_ids TEXT NOT NULL,
        instance_id TEXT NOT NULL,
        state TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        redone_at INTEGER
      );
      CREATE INDEX file_undos_by_session ON file_undos(session_id, created_at);
      CREATE TABLE file_undo_items (
        undo_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        path TEXT NOT NULL,
        outcome TEXT NOT NULL,
        found_exists INTEGER NOT NULL,
        found_hash TEXT,
        found_size INTEGER NOT NULL,
        wrote_exists INTEGER NOT NULL,
        wrote_hash TEXT,
        wrote_size INTEGER NOT NULL,
        redo_outcome TEXT,
        PRIMARY KEY (undo_id, path)
      );
      CREATE INDEX file_undo_items_by_session ON file_undo_items(session_id);
      CREATE INDEX file_undo_items_found ON file_undo_items(found_hash) WHERE found_hash IS NOT NULL;
      CREATE INDEX file_undo_items_wrote ON file_undo_items(wrote_hash) WHERE wrote_hash IS NOT NULL;
    `,
  },
  {
    version: 12,
    description: 'attachments: what the user attached to a prompt (a turn or a queued message), its content in the store',
    // attachments: one row per attachment of a turn (turn_id) or of a queued message (client_id; the
    // turn it becomes gets turn_id in the claiming transaction). kind file/folder/selection/problems;
    // path relative to the workspace folder ('/'-separated) or absolute outside it; start_line and
    // end_line (1-based, inclusive) for lines of a file; content_hash: the bytes sent, in `contents`
    // (NULL while state 'pending': a file outside the workspace read only after a boundary request,
    // or once 'denied'); sent_size and original_size in bytes; cut_note when cut (or not sent).
    // Listed in CONTENT_REFERENCES (operations/contents.ts): deleting a chat keeps content other
    // chats' rows reference.
    sql: `
      CREATE TABLE attachments (
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        turn_id TEXT,
        client_id TEXT,
        position INTEGER NOT NULL,
        kind TEXT NOT NULL,
        path TEXT NOT NULL,
        start_line INTEGER,
        end_line INTEGER,
        state TEXT NOT NULL,
        content_hash TEXT,
        sent_size INTEGER NOT NULL,
        original_size INTEGER NOT NULL,
        cut_note TEXT,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX attachments_by_turn ON attachments(turn_id, position) WHERE turn_id IS NOT NULL;
      CREATE INDEX attachments_by_client ON attachments(client_id, position) WHERE client_id IS NOT NULL;
      CREATE INDEX attachments_by_session ON attachments(session_id);
      CREATE INDEX attachments_by_content ON attachments(content_hash) WHERE content_hash IS NOT NULL;
    `,
  },
];

/** The schema version this build writes. */
export const SCHEMA_VERSION: number = MIGRATIONS[MIGRATIONS.length - 1]!.version;
