/**
 * Notifications carry an error's message, never a stack trace: a journal that cannot open, and a
 * journal operation that fails inside the worker (whose reply carries the worker's stack).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { Journal, JournalOpenError } from '../../src/journal/journal';
import { logText, noticeText } from '../../src/host/notices';
import { WASM_PATH, WORKER_PATH, openJournal, tempDir } from './helpers';

const STACK = /^\s+at\s/m;

describe('notification texts', () => {
  it('a journal that cannot open: one plain line for the notification, the worker stack for the log', async () => {
    // Its folder cannot be made: a file stands where a folder of the path should be.
    const blocker = path.join(tempDir(), 'not-a-folder');
    fs.writeFileSync(blocker, '');
    const error = await Journal.open({ file: path.join(blocker, 'journal.sqlite'), wasmPath: WASM_PATH, workerPath: WORKER_PATH }).then(
      () => assert.fail('opened without sql.js'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof JournalOpenError, String(error));
    assert.doesNotMatch(error.message, STACK, 'the message itself has no stack');
    assert.doesNotMatch(noticeText(error), STACK);
    assert.match(noticeText(error), /could not be opened/);
    assert.match(logText(error), STACK, 'the log gets the worker stack');
  });

  it('an operation that fails inside the worker: the notification text drops its stack', async () => {
    const j = await openJournal(path.join(tempDir(), 'journal.sqlite'));
    let error: unknown;
    try {
      // A wrong argument (a programming error): a TypeError thrown inside the worker.
      await j.write('createSession', null as never);
    } catch (e) {
      error = e;
    } finally {
      await j.close();
    }
    assert.ok(error instanceof Error, 'the read failed');
    assert.match(error.message, STACK, 'precondition: the worker sent its stack');
    const text = noticeText(error);
    assert.doesNotMatch(text, STACK);
    assert.doesNotMatch(text, /\n/);
    assert.ok(text.length > 0);
  });
});
