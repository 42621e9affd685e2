/**
 * A host SIGKILLed after an agent wrote files but before its turn ended (the crash harness: a real
 * runtime in a child process, test/tools/checkpointHost.ts): the next window's recovery keeps the
 * checkpoints, the turn lists the files, and Undo uses them.
 */
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { conflictKey } from '../../src/core/checkpoints';
import { openRuntime } from './harness';
import { CHILD_NODE_FLAGS, trackedTempDir, waitFor } from './helpers';

const HOST = path.resolve(__dirname, '../tools/checkpointHost.js');

describe('checkpoints across a crash', () => {
  it('a host killed mid-turn leaves its checkpoints; recovery keeps them and Undo puts the files back', async () => {
    const file = path.join(trackedTempDir(), 'journal.sqlite');
    const workspace = trackedTempDir('nac-ws-');
    fs.writeFileSync(path.join(workspace, 'a.txt'), 'a before\r\n');
    fs.writeFileSync(path.join(workspace, 'b.txt'), 'b before');
    const host = spawn(process.execPath, [...CHILD_NODE_FLAGS, HOST, file, workspace], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    host.stdout.on('data', (d: Buffer) => (out += d.toString()));
    host.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise((resolve) => host.on('exit', resolve));
    const line = await waitFor('the host to write both files', () => /^written (\S+) (\S+) (\S+)$/m.exec(out) ?? (host.exitCode !== null ? assert.fail(`the host exited: ${err}`) : undefined), 60_000)
      .finally(() => host.kill('SIGKILL'));
    await exited;
    const [sessionId, turnId] = [line[1]!, line[2]!];
    assert.equal(fs.readFileSync(path.join(workspace, 'a.txt'), 'utf8'), 'written by the agent\n');

    // The next window: the dead host's run is recovered (start() runs recovery).
    const h = await openRuntime({ file, workspace, instance: 'next-window', dead: [line[3]!], agentFor: () => undefined });
    try {
      const turn = (await h.journal.read('listTurns', sessionId)).find((t) => t.id === turnId)!;
      assert.equal(turn.status, 'failed', 'recovery ended the turn');
      const [cp] = await h.runtime.files.checkpoints(sessionId);
      assert.deepEqual(cp!.files.map((f) => [f.path, f.kind, f.pending]), [['a.txt', 'modified', false], ['b.txt', 'modified', true]]);
      // b.txt's after image was never journaled: it is a conflict the user decides; here: put it back.
      const undone = await h.runtime.files.undo(sessionId, turnId, 'turn', async (conflicts) => {
        assert.deepEqual(conflicts.map((c) => c.path), ['b.txt']);
        return new Map([[conflictKey(turnId, 'b.txt'), 'restore']]);
      });
      assert.ok(undone.ok && undone.value.kind === 'applied');
      assert.deepEqual(undone.value.files.map((f) => [f.path, f.outcome]), [['a.txt', 'restored'], ['b.txt', 'conflict_restored']]);
      assert.deepEqual(fs.readFileSync(path.join(workspace, 'a.txt')), Buffer.from('a before\r\n'));
      assert.deepEqual(fs.readFileSync(path.join(workspace, 'b.txt')), Buffer.from('b before'));
    } finally {
      await h.close();
    }
  });
});
