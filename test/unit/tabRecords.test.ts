/**
 * Tab records carry the workspace folder of the window that showed them (schema 3), so a window
 * reopens only its own folder's tabs after a restart (src/host/tabRepair.ts).
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { isTabOfWindow } from '../../src/core/tabMatch';
import { SCHEMA_VERSION } from '../../src/journal/schema';
import { closeWindows, openWindow } from './harness';
import { UNDO_SCHEMA_13, UNDO_SCHEMA_4, UNDO_SCHEMA_5, UNDO_SCHEMA_6, UNDO_SCHEMA_7, UNDO_SCHEMA_8, UNDO_SCHEMA_9, UNDO_SCHEMA_10, UNDO_SCHEMA_11, UNDO_SCHEMA_12, editJournalFile, openJournal, tempDir } from './helpers';

const session = (id: string) => ({ id, title: `Chat ${id}`, provider: 'local', createdAt: 1, updatedAt: 1 });

/** Workspace folder keys of two windows (any absolute paths do; none is read). */
const FOLDER_A = path.resolve('folder-a');
const FOLDER_B = path.resolve('folder-b');

describe('journal: tab records', () => {
  it('record the folder of the window that showed the tab last; a tab of a deleted chat is not recorded', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const journal = await openJournal(file);
    await journal.write('createSession', session('s1'));
    await journal.write('createSession', session('s2'));
    await journal.write('recordTab', 's1', 10, FOLDER_A);
    await journal.write('recordTab', 's2', 11, null);
    await journal.write('recordTab', 'gone', 12, FOLDER_A);
    assert.deepEqual(await journal.read('listTabs'), [
      { sessionId: 's1', openedAt: 10, workspace: FOLDER_A },
      { sessionId: 's2', openedAt: 11, workspace: null },
    ]);
    // Opened in a window on another folder: the record moves there, and keeps when it was opened.
    await journal.write('recordTab', 's1', 20, FOLDER_B);
    assert.deepEqual((await journal.read('listTabs'))[0], { sessionId: 's1', openedAt: 10, workspace: FOLDER_B });
    await journal.close();
  });

  it('a schema-2 journal keeps its tab records, of no known folder, when upgraded', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const journal = await openJournal(file);
    await journal.write('createSession', session('s1'));
    await journal.write('recordTab', 's1', 10, FOLDER_A);
    await journal.close();
    await editJournalFile(file, (db) => db.exec(`${UNDO_SCHEMA_13} ${UNDO_SCHEMA_12} ${UNDO_SCHEMA_11} ${UNDO_SCHEMA_10} ${UNDO_SCHEMA_9} ${UNDO_SCHEMA_8} ${UNDO_SCHEMA_7} ${UNDO_SCHEMA_6} ${UNDO_SCHEMA_5} ${UNDO_SCHEMA_4} ALTER TABLE tabs DROP COLUMN workspace; PRAGMA user_version = 2;`));
    const upgraded = await openJournal(file);
    assert.equal(upgraded.report.versionFound, 2);
    assert.equal(upgraded.report.version, SCHEMA_VERSION);
    assert.deepEqual(await upgraded.read('listTabs'), [{ sessionId: 's1', openedAt: 10, workspace: null }]);
    await upgraded.close();
  });

  it('a tab shown by a window with no folder is not reopened by a folder\'s window; a tab of an older build is', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const noFolder = await openWindow(file, undefined, 'w-none');
    try {
      const a = await noFolder.runtime.createSession('local');
      const b = await noFolder.runtime.createSession('local');
      assert.ok(a.ok && b.ok);
      await noFolder.runtime.recordTab(a.value.id);
      await noFolder.journal.write('recordTab', b.value.id, 1); // as a schema-2 build records it: no folder known
      const records = await noFolder.journal.read('listTabs');
      const takenBy = (windowKey: string | null) => records.filter((r) => isTabOfWindow(r.workspace, windowKey)).map((r) => r.sessionId).sort();
      assert.deepEqual(takenBy(FOLDER_A), [b.value.id]);
      assert.deepEqual(takenBy(noFolder.runtime.workspaceKey), [a.value.id, b.value.id].sort());
    } finally {
      await closeWindows(noFolder);
    }
  });
});
