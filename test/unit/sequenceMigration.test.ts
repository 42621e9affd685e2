/**
 * Migration 13 on a schema-12 journal (made by this build, then taken back with UNDO_SCHEMA_13): the
 * chats are numbered in the order the list showed them (`sessions.activity`), a chat's turns are
 * indexed by their sequence (`turns_by_session(session_id, search_doc)`) and read in it, not by their
 * times; every later activity numbers its chat above all others, whatever the clock says, and a
 * second open (another window, or a reload) reads the same numbers.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Journal } from '../../src/journal/journal';
import { SCHEMA_VERSION } from '../../src/journal/schema';
import { UNDO_SCHEMA_13, editJournalFile, openJournal, tempDir } from './helpers';

async function ok<T>(p: Promise<{ ok: true; value: T } | { ok: false; message?: string }>): Promise<T> {
  const r = await p;
  assert.ok(r.ok, JSON.stringify(r));
  return r.value;
}

async function turn(journal: Journal, sessionId: string, n: number, at: number): Promise<string> {
  const runId = `${sessionId}-run${n}`;
  await ok(journal.write('startTurn', {
    turn: { id: `${sessionId}-turn${n}`, sessionId, prompt: `${sessionId} prompt ${n}`, origin: 'prompt', parentTurnId: null, createdAt: at },
    run: { id: runId, instanceId: 'owner', provider: 'local' },
  }));
  await ok(journal.write('finishRun', { runId, status: 'completed', turnStatus: 'completed', at }));
  return runId;
}

/** The activity numbers of the journal's chats, by id. */
async function activities(journal: Journal): Promise<Record<string, number>> {
  return Object.fromEntries((await journal.read('listChats')).map((c) => [c.id, c.activity]));
}

describe('journal: migration 13 (order by the journal sequence)', () => {
  it("numbers a schema-12 journal's chats in the list's order, reads turns in their sequence, and numbers later activity above all", async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    let journal = await openJournal(file);
    try {
      for (const id of ['chat-a', 'chat-b', 'chat-c']) {
        await ok(journal.write('createSession', { id, title: id, provider: 'local', createdAt: 1, updatedAt: 1 }));
      }
      // chat-a's clock stepped back between its two turns.
      await turn(journal, 'chat-a', 1, 300);
      await turn(journal, 'chat-a', 2, 200);
    } finally {
      await journal.close();
    }
    // As schema 12 left it: a list ordered by updated_at DESC, then id (chat-a and chat-c tie).
    await editJournalFile(file, (db) => {
      db.exec(UNDO_SCHEMA_13);
      db.exec("UPDATE sessions SET updated_at = CASE id WHEN 'chat-a' THEN 30 WHEN 'chat-b' THEN 10 ELSE 30 END");
    });
    journal = await openJournal(file);
    try {
      assert.equal(journal.report.versionFound, 12);
      assert.equal(journal.report.version, SCHEMA_VERSION);
      assert.deepEqual((await journal.read('listChats')).map((c) => c.id), ['chat-a', 'chat-c', 'chat-b'], 'the order the list had');
      assert.deepEqual((await journal.read('listSessions')).map((s) => s.id), ['chat-a', 'chat-c', 'chat-b']);
      assert.deepEqual(await activities(journal), { 'chat-b': 1, 'chat-c': 2, 'chat-a': 3 });
      assert.deepEqual((await journal.read('listTurns', 'chat-a')).map((t) => [t.prompt, t.seq]), [['chat-a prompt 1', 1], ['chat-a prompt 2', 2]], 'turns in the order written, not by time');
      assert.deepEqual((await journal.read('readTurnPage', 'chat-a', null, 1)).turns.map((t) => t.prompt), ['chat-a prompt 2'], 'the last page is the turn written last');
      // A turn of chat-b at a time older than every other: chat-b is now the most recently active.
      await turn(journal, 'chat-b', 1, 5);
      assert.deepEqual((await journal.read('listChats')).map((c) => c.id), ['chat-b', 'chat-a', 'chat-c']);
      assert.deepEqual((await journal.read('listChats', { newest: 1 })).map((c) => c.id), ['chat-b'], 'the first page of the list too');
      assert.equal((await activities(journal))['chat-b'], 5, 'startTurn and finishRun each numbered it');
      const created = await ok(journal.write('createSession', { id: 'chat-d', title: 'chat-d', provider: 'local', createdAt: 0, updatedAt: 0 }));
      assert.equal(created.id, 'chat-d');
      assert.equal((await journal.read('listChats'))[0]!.id, 'chat-d', 'a new chat is listed first, whatever its time');
    } finally {
      await journal.close();
    }
    // The index a chat's pages are read through is on the sequence.
    await editJournalFile(file, (db) => {
      const columns = db.exec("SELECT name FROM pragma_index_info('turns_by_session')")[0]!.values.map((r) => r[0]);
      assert.deepEqual(columns, ['session_id', 'search_doc']);
    });
    // Opened again, the numbers are the same.
    journal = await openJournal(file);
    try {
      assert.deepEqual(await activities(journal), { 'chat-a': 3, 'chat-b': 5, 'chat-c': 2, 'chat-d': 6 });
    } finally {
      await journal.close();
    }
  });
});
