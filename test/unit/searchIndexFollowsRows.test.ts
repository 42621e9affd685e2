/**
 * The full-text index (schema 4) follows its rows in their own transaction: a word is found right
 * after the write that stored it was acknowledged, a rolled-back write leaves nothing in the index,
 * a changed row is found by its new words only, and a deleted chat is never found again — not even
 * through a later row that reuses its ids. Another window's chat is found once this window caught up
 * (the log replays the rows; the triggers index them there too).
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Database } from 'sql.js';
import type { Journal } from '../../src/journal/journal';
import { SEARCH_BATCH } from '../../src/journal/schema';
import { editJournalFile, openJournal, openStore, tempDir } from './helpers';

const session = (id: string) => ({ id, title: `Chat ${id}`, provider: 'local', createdAt: 1, updatedAt: 1 });

/** A chat `id` with one turn (prompt `prompt`) and its run `<id>-run`. */
async function chatWithTurn(journal: Journal, id: string, prompt: string): Promise<void> {
  assert.equal((await journal.write('createSession', session(id))).ok, true);
  const started = await journal.write('startTurn', {
    turn: { id: `${id}-turn`, sessionId: id, prompt, origin: 'prompt', parentTurnId: null, createdAt: 10 },
    run: { id: `${id}-run`, instanceId: 'i1', provider: 'local' },
  });
  assert.equal(started.ok, true);
}

/** The turn ids search finds for `query` (throws on a refusal). */
async function found(journal: Journal, query: string): Promise<string[]> {
  const result = await journal.read('searchChats', query, {});
  assert.ok(result.ok, `search for ${query} refused`);
  return result.value.map((r) => r.turnId);
}

/** FTS4's own check that both indexes hold exactly their content views' text (throws if not). */
function checkIndexes(db: Database): void {
  db.exec("INSERT INTO event_search(event_search) VALUES ('integrity-check')");
  db.exec("INSERT INTO prompt_search(prompt_search) VALUES ('integrity-check')");
}

describe('journal: the search index follows its rows', () => {
  it('finds a prompt, a reply, command output, a tool summary and a notice right after their writes were acknowledged', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const journal = await openJournal(file);
    try {
      await chatWithTurn(journal, 'a', 'Please look for the albatross');
      assert.deepEqual(await found(journal, 'albatross'), ['a-turn']);
      const written = await journal.write('appendEvents', 'a-run', [
        { kind: 'text', payload: { text: 'The bittern nests here.' } },
        { kind: 'invocation_started', payload: { invocationId: 'inv', tool: 'run', summary: 'grep cormorant' } },
        { kind: 'invocation_output', payload: { invocationId: 'inv', chunk: 'dipper.txt\n' } },
        { kind: 'notice', payload: { level: 'info', message: 'The egret stopped.' } },
        { kind: 'invocation_finished', payload: { invocationId: 'inv', status: 'completed', exitCode: 0, message: 'flamingo' } },
      ], 20);
      assert.equal(written.ok, true);
      const kinds: Record<string, string> = {};
      for (const word of ['bittern', 'cormorant', 'dipper', 'egret']) {
        const result = await journal.read('searchChats', word, {});
        assert.ok(result.ok);
        assert.equal(result.value.length, 1, word);
        kinds[word] = result.value[0]!.kind;
      }
      assert.deepEqual(kinds, { bittern: 'reply', cormorant: 'tool', dipper: 'output', egret: 'notice' });
      assert.deepEqual(await found(journal, 'flamingo'), [], 'an event kind that is not indexed is not found');
    } finally {
      await journal.close();
    }
    await editJournalFile(file, checkIndexes);
  });

  it('events wait in their own transaction and move into the index in batches; found before and after', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const s = await openStore(file);
    try {
      s.write((core) => {
        core.createSession(session('a'));
        core.startTurn({ turn: { id: 'a-turn', sessionId: 'a', prompt: 'p', origin: 'prompt', parentTurnId: null, createdAt: 10 }, run: { id: 'a-run', instanceId: 'i1', provider: 'local' } });
      });
      const count = (sql: string) => Number(s.store.db.exec(sql)[0]!.values[0]![0]);
      for (let i = 0; i < SEARCH_BATCH - 1; i++) s.write((core) => core.appendEvents('a-run', [{ kind: 'text', payload: { text: `robin${i}x` } }], 20 + i));
      assert.equal(count('SELECT COUNT(*) FROM event_search_pending'), SEARCH_BATCH - 1);
      assert.deepEqual(s.core.searchChats('robin0x'), { ok: true, value: [{ sessionId: 'a', title: 'Chat a', turnId: 'a-turn', createdAt: 20, kind: 'reply', eventId: 1, snippet: 'robin0x', matchRanges: [[0, 7]] }] });
      s.write((core) => core.appendEvents('a-run', [{ kind: 'text', payload: { text: 'the last robin' } }], 99));
      assert.equal(count('SELECT COUNT(*) FROM event_search_pending'), 0, 'the batch moved into the index in that write');
      assert.equal(count("SELECT COUNT(*) FROM event_search WHERE event_search MATCH 'robin0x OR robin30x OR robin'"), 3);
      const found = s.core.searchChats('robin0x');
      assert.ok(found.ok && found.value.length === 1 && found.value[0]!.eventId === 1);
      checkIndexes(s.store.db);
    } finally {
      s.done();
    }
  });

  it('a write rolled back leaves nothing in the index; a changed row is found by its new words only', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const s = await openStore(file);
    try {
      s.write((core) => {
        core.createSession(session('a'));
        core.startTurn({ turn: { id: 'a-turn', sessionId: 'a', prompt: 'p', origin: 'prompt', parentTurnId: null, createdAt: 10 }, run: { id: 'a-run', instanceId: 'i1', provider: 'local' } });
      });
      assert.throws(() => s.write((core) => {
        core.appendEvents('a-run', [{ kind: 'text', payload: { text: 'gannet' } }], 20);
        throw new Error('the transaction fails after its insert');
      }), /fails after its insert/);
      assert.deepEqual(s.core.searchChats('gannet'), { ok: true, value: [] });
      const [event] = s.write((core) => core.appendEvents('a-run', [{ kind: 'text', payload: { text: 'heron' } }], 30));
      s.write(() => {
        s.store.db.run("UPDATE events SET payload = '{\"text\":\"ibis\"}' WHERE run_id = ? AND seq = ?", [event!.runId, event!.seq]);
        s.store.record("UPDATE events SET payload = '{\"text\":\"ibis\"}' WHERE run_id = ? AND seq = ?", [event!.runId, event!.seq]);
      });
      assert.deepEqual(s.core.searchChats('heron'), { ok: true, value: [] });
      const ibis = s.core.searchChats('ibis');
      assert.ok(ibis.ok);
      assert.deepEqual(ibis.value.map((r) => r.snippet), ['ibis']);
      checkIndexes(s.store.db);
    } finally {
      s.done();
    }
  });

  it('a deleted chat is never found, not even through a later event that reuses its ids', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const journal = await openJournal(file);
    try {
      await chatWithTurn(journal, 'kept', 'keep this jackdaw');
      await journal.write('appendEvents', 'kept-run', [{ kind: 'text', payload: { text: 'a jackdaw reply' } }], 20);
      // The deleted chat holds the highest event ids: SQLite hands them out again after the delete.
      await chatWithTurn(journal, 'gone', 'a private kestrel');
      // Enough events that the chat's words reach the FTS index itself, not only its pending rows.
      await journal.write('appendEvents', 'gone-run', [
        { kind: 'text', payload: { text: 'kestrel lapwing' } },
        { kind: 'invocation_output', payload: { invocationId: 'x', chunk: 'lapwing magpie' } },
        ...Array.from({ length: SEARCH_BATCH }, (_, i) => ({ kind: 'text' as const, payload: { text: `more kestrel ${i}` } })),
      ], 30);
      await journal.write('finishRun', { runId: 'gone-run', status: 'completed', turnStatus: 'completed', at: 40 });
      assert.deepEqual(await found(journal, 'kestrel'), ['gone-turn']);
      const deleted = await journal.write('deleteSession', 'gone');
      assert.ok(deleted.ok && deleted.value.deleted);
      for (const word of ['kestrel', 'lapwing', 'magpie', 'private']) assert.deepEqual(await found(journal, word), [], word);
      // New rows of the kept chat take the ids the deleted ones had.
      await journal.write('appendEvents', 'kept-run', [
        { kind: 'text', payload: { text: 'nightjar' } },
        { kind: 'text', payload: { text: 'nightjar again' } },
      ], 50);
      await chatWithTurn(journal, 'later', 'an osprey prompt');
      for (const word of ['kestrel', 'lapwing', 'magpie', 'private']) assert.deepEqual(await found(journal, word), [], `${word} after ids were reused`);
      assert.deepEqual(await found(journal, 'jackdaw'), ['kept-turn']);
      assert.deepEqual(await found(journal, 'osprey'), ['later-turn']);
    } finally {
      await journal.close();
    }
    await editJournalFile(file, checkIndexes);
  });

  it("another window's chat is found after this window caught up, and its deletion reaches this window's index", async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const a = await openJournal(file);
    const b = await openJournal(file);
    try {
      await chatWithTurn(a, 'from-a', 'written in window a: pelican');
      await a.write('appendEvents', 'from-a-run', [{ kind: 'text', payload: { text: 'a quail reply' } }], 20);
      // A read catches up on other windows' commits first.
      assert.deepEqual(await found(b, 'pelican'), ['from-a-turn']);
      assert.deepEqual(await found(b, 'quail'), ['from-a-turn']);
      await a.write('finishRun', { runId: 'from-a-run', status: 'completed', turnStatus: 'completed', at: 30 });
      const deleted = await b.write('deleteSession', 'from-a');
      assert.ok(deleted.ok && deleted.value.deleted);
      assert.deepEqual(await found(a, 'quail'), []);
      assert.deepEqual(await found(a, 'pelican'), []);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
