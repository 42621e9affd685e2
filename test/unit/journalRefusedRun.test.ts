/**
 * A run whose write the journal refuses mid-run (full disk, through the journal's real fault
 * injection) ends as `journal_refused` with the journal's reason on screen, not as a user's Stop.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { TranscriptItem } from '../../src/core/transcript';
import { openRuntime } from './harness';
import { tempDir, waitFor } from './helpers';

describe('chat runtime: a write the journal refuses mid-run', () => {
  it('ends the turn with journal_refused and the reason shown, once the end can be written', async () => {
    // Found by review: the refusal aborted the run and the run's end checked "aborted" first, so the
    // turn read "Stopped." with no error class, against what docs/ARCHITECTURE.md promises.
    const file = path.join(tempDir(), 'journal.sqlite');
    let speak: (() => void) | undefined;
    const { journal, runtime } = await openRuntime({
      file,
      journal: { faultInjection: true },
      instance: 'host',
      agentFor: () => ({
        provider: 'local',
        label: 'speaks when told, then waits for its abort',
        runTurn: (_request, ctx) =>
          new Promise((resolve) => {
            speak = () => ctx.text('part of an answer');
            ctx.signal.addEventListener('abort', () => resolve({ status: 'completed' }));
          }),
      }),
    });
    try {
      const s = await runtime.createSession('local');
      assert.ok(s.ok);
      assert.ok((await runtime.send(s.value.id, 'write something')).ok);
      await waitFor('the agent to start', () => Promise.resolve(speak !== undefined));
      fs.writeFileSync(`${file}.fault-enospc`, ''); // the disk fills up
      speak!(); // its text is refused, which ends the run
      await runtime.whenIdle(s.value.id);
      fs.rmSync(`${file}.fault-enospc`); // room again: the end is written at the next check
      await runtime.recoverOrphans();
      assert.deepEqual(await journal.read('listRunsInFlight'), []);
      const turn = (await runtime.transcript(s.value.id)).turns[0]!;
      assert.equal(turn.status, 'failed');
      assert.equal(turn.errorClass, 'journal_refused');
      const notices = turn.items.filter((i): i is Extract<TranscriptItem, { type: 'notice' }> => i.type === 'notice');
      assert.equal(notices.length, 1);
      assert.equal(notices[0]!.level, 'error');
      assert.match(notices[0]!.message, /disk is full/);
    } finally {
      fs.rmSync(`${file}.fault-enospc`, { force: true });
      runtime.dispose();
      await journal.close();
    }
  });
});
