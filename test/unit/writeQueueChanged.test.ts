/**
 * The worker's queue (src/journal/writeQueue.ts) and the opener's `changed` hint. The opening thread's
 * folder watch (commitWatch.ts) sees this process's own appends too, so under a stream of writes a
 * `changed` lands among the writes queued during the previous group's fdatasync. It must not split
 * them into two groups (two locks, two fdatasyncs): the catch-up it asks for runs once, after the group.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { WriteQueue, type OtherMessage, type WriteMessage } from '../../src/journal/writeQueue';

const write = (id: number): WriteMessage => ({ kind: 'write', id, op: 'createSession', args: [] });

describe('the journal worker queue and the folder watch hint', () => {
  it('a `changed` among queued writes leaves them one group and catches up once after it', async () => {
    const calls: string[] = [];
    const queue = new WriteQueue({
      writeGroup: (group) => calls.push(`group ${group.map((m) => m.id).join(',')}`),
      handle: (m: OtherMessage) => calls.push(m.kind),
      closed: () => false,
      holdsLease: () => false,
      releaseLease: () => undefined,
    });
    queue.push(write(1));
    queue.push({ kind: 'changed' });
    queue.push(write(2));
    queue.push({ kind: 'changed' });
    queue.push(write(3));
    await new Promise((r) => setImmediate(r));
    queue.stop();
    assert.deepEqual(calls, ['group 1,2,3', 'changed']);
  });

  it('a `changed` with no write beside it still catches up, in arrival order', async () => {
    const calls: string[] = [];
    const queue = new WriteQueue({
      writeGroup: (group) => calls.push(`group ${group.map((m) => m.id).join(',')}`),
      handle: (m: OtherMessage) => calls.push(m.kind === 'read' ? `read ${m.id}` : m.kind),
      closed: () => false,
      holdsLease: () => false,
      releaseLease: () => undefined,
    });
    queue.push({ kind: 'changed' });
    queue.push({ kind: 'read', id: 7, op: 'listSessions', args: [] });
    await new Promise((r) => setImmediate(r));
    queue.stop();
    assert.deepEqual(calls, ['changed', 'read 7']);
  });
});
