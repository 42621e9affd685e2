/**
 * A journal migrated by a newer build: an older build never writes to it, reports read-only once it
 * has replayed the newer migration, and opens read-only when it cannot replay it at all.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { SCHEMA_VERSION } from '../../src/journal/schema';
import { logAsNewerBuild, openJournal, trackedTempDir as tempDir } from './helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const session = (id: string, titleBytes = 10) => ({ id, title: 'x'.repeat(titleBytes), provider: 'local', createdAt: 1, updatedAt: 1 });

describe("a newer build's schema: an older build turns read-only", () => {
  /**
   * BUG (schema promise): the worker checks `user_version` before `writeGroup`, but `writeGroup`'s
   * catch-up is what applies another process's newer migration — so the first write after a newer
   * build migrated (within the 50 ms poll interval) runs against schema 2 and is committed by this
   * schema-1 build. ("An older build that replays a newer build's migration turns read-only at that
   * moment.") The poll is slowed (and the folder not watched) only to make the race deterministic.
   */
  it('an older build never writes after replaying a newer migration', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const old = await openJournal(file, { pollIntervalMs: 60_000, watchFolder: false });
    try {
      await logAsNewerBuild(file, ['ALTER TABLE sessions ADD COLUMN archived INTEGER NOT NULL DEFAULT 0', `PRAGMA user_version = ${SCHEMA_VERSION + 1}`]);
      const w = await old.write('createSession', session('written-by-old-build'));
      assert.equal(!w.ok && w.reason, 'read_only');
    } finally {
      await old.close();
    }
  });

  /**
   * BUG (UX): when the poll replays a newer build's migration, the worker turns read-only, but the
   * migration record touches no session, so no `external` message is posted and `Journal.readOnly`
   * (what recovery, `liveState` and the UI banner use) stays false.
   */
  it('the journal door reports read-only once the poll replayed a newer migration', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const old = await openJournal(file, { pollIntervalMs: 20 });
    try {
      await logAsNewerBuild(file, ['ALTER TABLE sessions ADD COLUMN archived INTEGER NOT NULL DEFAULT 0', `PRAGMA user_version = ${SCHEMA_VERSION + 1}`]);
      await sleep(400);
      assert.equal(old.readOnly, true);
    } finally {
      await old.close();
    }
  });

  /**
   * BUG (journal unusable after a downgrade): a newer build's logged migration that this build's
   * SQLite cannot execute (here FTS5, absent from this sql.js build) makes replay throw: the journal
   * cannot be opened at all, and an already-open window's reads and writes reject with exceptions
   * instead of turning read-only with history readable.
   */
  it('an older build opens read-only when it cannot replay a newer build\'s migration', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const j = await openJournal(file);
    assert.ok((await j.write('createSession', session('old'))).ok);
    await j.close();
    await logAsNewerBuild(file, [`CREATE VIRTUAL TABLE search USING fts5(text); PRAGMA user_version = ${SCHEMA_VERSION + 1}`], false);
    const k = await openJournal(file);
    try {
      assert.equal(k.readOnly, true);
      assert.deepEqual((await k.read('listSessions')).map((s) => s.id), ['old']);
    } finally {
      await k.close();
    }
  });
});
