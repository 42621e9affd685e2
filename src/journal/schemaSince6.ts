/**
 * The journal's migrations from 6 on (schema.ts holds 1-5, the types and the rules every migration
 * follows): the content store (6), the salvage's provenance (7), Repair Journal's set-aside rows
 * (8), the model per chat (9), edit and resend (10), checkpoints (11), attachments (12), order by the
 * journal's sequence instead of the clock (13). Append-only,
 * like every migration: a shipped one is never edited.
 */
import type { Migration } from './schema';

/** Migrations 6 and later, in order (appended to `MIGRATIONS` by schema.ts). */
export const MIGRATIONS_SINCE_6: readonly Migration[] = [
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
  {
    version: 13,
    description: "order by the journal's sequence, not the clock: turns by their search docid, chats by an activity counter",
    // The host's clock may step back (an NTP correction, a resumed VM): ordering by created_at put
    // prompts sent after the step above older ones, and a chat used after it below chats used before.
    // turns_by_session is rebuilt on (session_id, search_doc): search_doc is numbered by the insert
    // trigger of migration 4 in the order turns are written (older turns in the order they were
    // shown), so a chat's pages read its turns in that order through the index. sessions.activity:
    // 1, 2, 3… in the order of the chats' last activity, set to MAX + 1 by every write that sets
    // updated_at (deterministic, so every window replays the same numbers; a real column, so VACUUM
    // never renumbers it); the chats already there are numbered in the order the list showed them
    // (updated_at, then id descending: the list read newest first, ties by id).
    sql: `
      DROP INDEX turns_by_session;
      CREATE INDEX turns_by_session ON turns(session_id, search_doc);
      ALTER TABLE sessions ADD COLUMN activity INTEGER;
      UPDATE sessions SET activity = numbered.n
        FROM (SELECT id, row_number() OVER (ORDER BY updated_at, id DESC) AS n FROM sessions) AS numbered
        WHERE numbered.id = sessions.id;
      CREATE INDEX sessions_by_activity ON sessions(activity);
    `,
  },
];
