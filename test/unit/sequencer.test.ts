/**
 * `Sequencer` (src/core/sequencer.ts), the one "one at a time, in order" queue: tasks start in call
 * order, never overlap, a failing task (rejected or thrown synchronously) fails only its caller, and
 * `idle` waits for what was handed in before it. Each task is held by a promise the test settles, so
 * every assertion is about order, never about time.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { Sequencer } from '../../src/core/sequencer';
import { gate, settle } from './helpers';

/** Marks when a promise settled, without handling its outcome for the test. */
function track(promise: Promise<unknown>): { settled: boolean } {
  const state = { settled: false };
  promise.then(() => (state.settled = true), () => (state.settled = true));
  return state;
}

describe('Sequencer', () => {
  it('starts tasks in call order, each only after the one before it has settled', async () => {
    const seq = new Sequencer();
    const log: string[] = [];
    const gates = [gate(), gate(), gate()] as const;
    const results = gates.map((held, i) =>
      seq.run(async () => {
        log.push(`start ${i}`);
        await held.promise;
        log.push(`end ${i}`);
        return i;
      }),
    );
    await settle();
    assert.deepEqual(log, ['start 0']);
    // Ending a later task first does not let it, or anything after it, start early.
    gates[2].resolve();
    await settle();
    assert.deepEqual(log, ['start 0']);
    gates[0].resolve();
    await settle();
    assert.deepEqual(log, ['start 0', 'end 0', 'start 1']);
    gates[1].resolve();
    await settle();
    assert.deepEqual(log, ['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
    assert.deepEqual(await Promise.all(results), [0, 1, 2]);
  });

  it('never calls the task inside run: the caller\'s code after run goes first', async () => {
    const seq = new Sequencer();
    const log: string[] = [];
    const done = seq.run(() => log.push('task'));
    log.push('after run');
    await done;
    assert.deepEqual(log, ['after run', 'task']);
  });

  it('gives the caller what the task returned, from a plain value or a promise', async () => {
    const seq = new Sequencer();
    const plain = seq.run(() => 'plain');
    const later = seq.run(async () => ({ n: 42 }));
    const nothing = seq.run(() => undefined);
    assert.equal(await plain, 'plain');
    assert.deepEqual(await later, { n: 42 });
    assert.equal(await nothing, undefined);
  });

  it('gives a rejection to its caller only; the next task still runs', async () => {
    const seq = new Sequencer();
    const log: string[] = [];
    const failure = new Error('write refused');
    const held = gate();
    const failing = seq.run(async () => {
      log.push('failing');
      await held.promise;
      throw failure;
    });
    const next = seq.run(() => {
      log.push('next');
      return 'next ran';
    });
    await settle();
    assert.deepEqual(log, ['failing'], 'the next task waits for the failing one to settle');
    held.resolve();
    await assert.rejects(failing, (error) => error === failure);
    assert.equal(await next, 'next ran');
    assert.deepEqual(log, ['failing', 'next']);
  });

  it('turns a synchronous throw into its caller\'s rejection; run itself does not throw and the next task runs', async () => {
    const seq = new Sequencer();
    const failure = new Error('thrown at once');
    let failing!: Promise<never>;
    assert.doesNotThrow(() => {
      failing = seq.run(() => {
        throw failure;
      });
    });
    const next = seq.run(() => 'after the throw');
    await assert.rejects(failing, (error) => error === failure);
    assert.equal(await next, 'after the throw');
  });

  it('runs a task handed in by a running task after it and after everything queued before', async () => {
    const seq = new Sequencer();
    const log: string[] = [];
    let inner: Promise<void> | undefined;
    const outer = seq.run(async () => {
      log.push('outer start');
      inner = seq.run(() => void log.push('inner'));
      await settle();
      log.push('outer end');
    });
    const queuedBefore = seq.run(() => void log.push('queued before inner'));
    await outer;
    await inner;
    await queuedBefore;
    assert.deepEqual(log, ['outer start', 'outer end', 'queued before inner', 'inner']);
  });

  it('idle resolves at once when nothing was handed in', async () => {
    const seq = new Sequencer();
    const idle = track(seq.idle());
    await settle();
    assert.equal(idle.settled, true);
  });

  it('idle waits for every task handed in before it, failed ones included, and never rejects', async () => {
    const seq = new Sequencer();
    const first = gate();
    const second = gate();
    const a = seq.run(() => first.promise);
    const b = seq.run(() => second.promise);
    const idle = seq.idle();
    const idleState = track(idle);
    first.reject(new Error('first failed'));
    await assert.rejects(a, /first failed/);
    await settle();
    assert.equal(idleState.settled, false, 'the second task has not settled yet');
    second.reject(new Error('second failed'));
    await assert.rejects(b, /second failed/);
    assert.equal(await idle, undefined, 'idle resolves (with nothing) after failures');
  });

  it('idle does not wait for tasks handed in after it', async () => {
    const seq = new Sequencer();
    const early = gate();
    const late = gate();
    const first = seq.run(() => early.promise);
    const idle = track(seq.idle());
    const second = seq.run(() => late.promise);
    early.resolve();
    await first;
    await settle();
    assert.equal(idle.settled, true, 'idle resolved while the later task still runs');
    const idleAfterSecond = track(seq.idle());
    await settle();
    assert.equal(idleAfterSecond.settled, false, 'a later idle waits for the later task');
    late.resolve();
    await second;
    await settle();
    assert.equal(idleAfterSecond.settled, true);
  });
});
