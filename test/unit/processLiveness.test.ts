// Process liveness, one rule for the journal's lock holders and recovery's instances
// (src/journal/processInfo.ts `isProcessAlive`).
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as os from 'node:os';
import { describe, it } from 'node:test';
import { isHolderDead } from '../../src/journal/lockFile';
import { isProcessAlive, processStartTime } from '../../src/journal/processInfo';
import { isInstanceAlive } from '../../src/runtime/instance';

describe('process liveness', () => {
  const host = os.hostname();
  const start = processStartTime(process.pid);

  it('this process is alive; with another start time its pid was reused, so the process it named is gone', () => {
    assert.equal(isProcessAlive(process.pid, start, host), true);
    assert.equal(isProcessAlive(process.pid, null, host), true, 'an unknown start time is presumed alive');
    assert.equal(isProcessAlive(process.pid, `${start ?? ''}9`, host), start === null, 'a reused pid is dead where start times can be read');
  });

  it('an exited process is dead; one on another host cannot be checked and is presumed alive', () => {
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const pid = Number(child.stdout);
    assert.ok(pid > 0);
    assert.equal(isProcessAlive(pid, null, host), false);
    assert.equal(isProcessAlive(pid, null, `not-${host}`), true);
  });

  it('lock holders and instances are judged by the same rule', () => {
    const reused = `${start ?? ''}9`;
    assert.equal(isHolderDead({ pid: process.pid, start, host }), false);
    assert.equal(isHolderDead({ pid: process.pid, start: reused, host }), start !== null);
    const instance = { id: 'i', pid: process.pid, processStart: reused, hostname: host, startedAt: 0, lastSeenAt: 0 };
    assert.equal(isInstanceAlive(instance), start === null);
    assert.equal(isInstanceAlive({ ...instance, hostname: `not-${host}` }), true);
  });
});
