/**
 * The journal's door is typed by kind (`src/journal/ops.ts`): the compiler keeps writes out of
 * `read` and reads out of `write`, and the worker refuses the other kind at run time. These tests
 * bypass the types with a cast and go through the real worker.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Journal } from '../../src/journal/journal';
import { READ_OPS, WRITE_OPS, refusalOf } from '../../src/journal/ops';
import { openJournal, tempDir } from './helpers';

const session = (id: string, at = 1) => ({ id, title: `Chat ${id}`, provider: 'local', createdAt: at, updatedAt: at });

/** The door with its types taken off, as a caller casting past the compiler would have it. */
const untyped = (journal: Journal) => ({
  read: journal.read.bind(journal) as unknown as (op: string, ...args: unknown[]) => Promise<unknown>,
  write: journal.write.bind(journal) as unknown as (op: string, ...args: unknown[]) => Promise<unknown>,
});

describe('journal door: reads and writes by kind', () => {
  it('refuses a write operation sent as a read, and the database is unchanged (here and in the log)', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const journal = await openJournal(file);
    try {
      assert.equal((await journal.write('createSession', session('s1'))).ok, true);
      await assert.rejects(untyped(journal).read('recordTab', 's1', 5), /recordTab is not a read operation of the journal/);
      await assert.rejects(untyped(journal).read('deleteSession', 's1'), /deleteSession is not a read operation/);
      await assert.rejects(untyped(journal).read('migrateOne', []), /migrateOne is not a read operation/);
      assert.deepEqual(await journal.read('listTabs'), [], 'no tab recorded in this window');
      assert.deepEqual((await journal.read('listSessions')).map((s) => s.id), ['s1'], 'the chat is still there');
    } finally {
      await journal.close();
    }
    const reopened = await openJournal(file);
    assert.deepEqual(await reopened.read('listTabs'), []);
    await reopened.close();
  });

  it('refuses a read or a worker-internal method sent as a write, and an unknown operation', async () => {
    const journal = await openJournal(path.join(tempDir(), 'journal.sqlite'));
    try {
      await assert.rejects(untyped(journal).write('listSessions'), /listSessions is not a write operation of the journal/);
      await assert.rejects(untyped(journal).write('takeTouched'), /takeTouched is not a write operation/);
      await assert.rejects(untyped(journal).read('constructor'), /unknown journal operation constructor/);
      assert.equal((await journal.write('createSession', session('s2'))).ok, true, 'the journal still works');
    } finally {
      await journal.close();
    }
  });

  it('lists every operation as exactly one kind', () => {
    for (const op of READ_OPS) assert.equal(refusalOf('read', op), null, op);
    for (const op of WRITE_OPS) assert.equal(refusalOf('write', op), null, op);
    for (const op of READ_OPS) assert.match(refusalOf('write', op) ?? '', /is not a write operation/, op);
    for (const op of WRITE_OPS) assert.match(refusalOf('read', op) ?? '', /is not a read operation/, op);
  });
});
