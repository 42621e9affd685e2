/**
 * `Journal.close` never hangs its caller on a worker thread that does not exit. Node's worker
 * teardown can deadlock (docs/ARCHITECTURE.md: the thread waits for V8's background compile jobs while
 * one of them waits for a garbage collection only that thread can run); `terminate()` does not reach
 * it. This suite hung for 120 s in CI on exactly that. The stand-in worker (test/tools/stuckWorker.ts)
 * blocks in a system call after answering `close`, which `terminate()` cannot interrupt either.
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { Journal } from '../../src/journal/journal';
import { trackedTempDir, WASM_PATH } from './helpers';

const STUCK_WORKER = path.resolve(__dirname, '../tools/stuckWorker.js');

describe('closing the journal', () => {
  it('resolves, says why and lets the process exit when the worker thread never exits', { timeout: 10_000 }, async () => {
    const file = path.join(trackedTempDir(), 'journal.sqlite');
    execFileSync('mkfifo', [`${file}.fifo`]);
    const journal = await Journal.open({ file, wasmPath: WASM_PATH, workerPath: STUCK_WORKER, closeGraceMs: 100 });
    const lines: string[] = [];
    journal.onLog((l) => lines.push(l));
    const started = performance.now();
    await journal.close();
    const took = performance.now() - started;
    try {
      assert.ok(took >= 200, `close gave up after ${took.toFixed(0)} ms, before terminate() had its grace`);
      assert.equal(lines.length, 1);
      assert.match(lines[0]!, /did not exit within 0\.2 s of closing .*nodejs\/node#54918/);
      assert.equal((await journal.write('createSession', { id: 's', title: 's', provider: 'local', createdAt: 1, updatedAt: 1 })).ok, false);
    } finally {
      // Lets the stand-in's blocked open return, so its thread ends (terminate() is still pending).
      fs.closeSync(fs.openSync(`${file}.fifo`, 'w'));
    }
  });
});
