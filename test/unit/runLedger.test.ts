import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { LedgerEvent, NewLedgerEvent } from '../../src/core/events';
import type { Journal } from '../../src/journal/journal';
import { RunLedger } from '../../src/runtime/runLedger';
import { openJournal, tempDir } from './helpers';

describe('run ledger batching', () => {
  it('writes the first chunk at once, coalesces chunks that arrive during a write, and keeps order', async () => {
    const journal = await openJournal(path.join(tempDir(), 'journal.sqlite'));
    await journal.write('createSession', { id: 's', title: 's', provider: 'local', createdAt: 1, updatedAt: 1 });
    await journal.write('startTurn', { turn: { id: 't', sessionId: 's', prompt: 'p', origin: 'prompt', parentTurnId: null, createdAt: 2 }, run: { id: 'r', instanceId: 'i', provider: 'local' } });
    const stored: LedgerEvent[] = [];
    const ledger = new RunLedger(journal, 'r', Date.now, (e) => stored.push(...e), (m) => assert.fail(m));
    const words = Array.from({ length: 200 }, (_, i) => `w${i} `);
    ledger.text(words[0]!);
    await new Promise((r) => setTimeout(r, 5)); // the first chunk is being written
    for (const w of words.slice(1, 150)) ledger.text(w);
    ledger.output('inv', 'out-1 ');
    ledger.output('inv', 'out-2 ');
    for (const w of words.slice(150)) ledger.text(w);
    await ledger.flush();
    const events = await journal.read('listEvents', 's');
    assert.deepEqual(events.map((e) => e.seq), stored.map((e) => e.seq));
    const text = events.filter((e) => e.kind === 'text').map((e) => (e.kind === 'text' ? e.payload.text : '')).join('');
    assert.equal(text, words.join(''));
    const outputs = events.filter((e) => e.kind === 'invocation_output');
    assert.deepEqual(outputs.map((e) => (e.kind === 'invocation_output' ? e.payload.chunk : '')), ['out-1 out-2 ']);
    // Order: text before the output, the rest of the text after it.
    // The first chunk alone, then everything pushed while it was written, coalesced in order.
    assert.deepEqual(events.map((e) => e.kind), ['text', 'text', 'invocation_output', 'text']);
    await journal.close();
  });

  it('keeps a command\'s process group when output is coalesced into its event', async () => {
    const journal = await openJournal(path.join(tempDir(), 'journal.sqlite'));
    await journal.write('createSession', { id: 's', title: 's', provider: 'local', createdAt: 1, updatedAt: 1 });
    await journal.write('startTurn', { turn: { id: 't', sessionId: 's', prompt: 'p', origin: 'prompt', parentTurnId: null, createdAt: 2 }, run: { id: 'r', instanceId: 'i', provider: 'local' } });
    await journal.write('startInvocation', { id: 'inv', runId: 'r', tool: 'run', input: '{}', summary: 'make', at: 3 });
    const ledger = new RunLedger(journal, 'r', Date.now, () => undefined, (m) => assert.fail(m));
    const group = { pid: 4242, startTime: '123', hostname: 'here' };
    ledger.processGroup('inv', group);
    ledger.output('inv', 'first line\n');
    await ledger.flush();
    const outputs = (await journal.read('listEvents', 's')).filter((e) => e.kind === 'invocation_output');
    assert.deepEqual(outputs.map((e) => e.payload), [{ invocationId: 'inv', chunk: 'first line\n', processGroup: group }]);
    assert.deepEqual(await journal.read('listProcessGroups', 'r'), [{ invocationId: 'inv', group }]);
    await journal.close();
  });

  it('fails only the flush whose write threw: the next batch is still written', async () => {
    const { journal, batches } = journalThrowingOnce();
    const stored: number[] = [];
    const ledger = new RunLedger(journal, 'r', Date.now, (e) => stored.push(e.length), (m) => assert.fail(m));
    ledger.text('lost');
    await assert.rejects(ledger.flush(), /the write threw/);
    ledger.text('kept');
    assert.deepEqual(await ledger.flush(), { ok: true });
    assert.deepEqual(batches, [['kept']]);
    assert.deepEqual(stored, [0], 'onStored heard the second write (the fake stores no rows)');
  });

  it('reports a write that threw in a flush of its own timer as refused: that batch is not lost without a word', async () => {
    const { journal, batches } = journalThrowingOnce();
    const refused: string[] = [];
    const ledger = new RunLedger(journal, 'r', Date.now, () => undefined, (m) => refused.push(m));
    ledger.text('lost'); // flushed by the ledger's 0 ms timer, which nobody awaits
    await new Promise((r) => setTimeout(r, 0)); // a timer made after it fires after it
    ledger.text('kept');
    assert.deepEqual(await ledger.flush(), { ok: true }, 'the flush after it still writes');
    assert.deepEqual(refused, ['the write threw']);
    assert.deepEqual(batches, [['kept']]);
  });
});

/**
 * A journal whose first write throws (an error reply, not a refusal), then stores each batch:
 * `batches` holds each stored batch's texts (an event of another kind by its kind).
 */
function journalThrowingOnce(): { journal: Pick<Journal, 'write'>; batches: string[][] } {
  const batches: string[][] = [];
  let writes = 0;
  const journal = {
    write: async (_op: string, _runId: string, batch: NewLedgerEvent[]) => {
      if (++writes === 1) throw new Error('the write threw');
      batches.push(batch.map((e) => (e.kind === 'text' ? e.payload.text : e.kind)));
      return { ok: true, value: [] };
    },
  } as unknown as Pick<Journal, 'write'>;
  return { journal, batches };
}
