/**
 * A host that is shutting down writes nothing more: a command it was running is left open in the
 * journal, so the next host's recovery attributes it to the restart (`app_restarted`), not to the user.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { openLocal } from './harness';
import { trackedTempDir as tempDir, waitFor } from './helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('restart attribution: a disposed host writes nothing', () => {
  /**
   * BUG (wrong attribution; "a host that is shutting down writes nothing more"): `dispose()` aborts
   * the runs, and the tool runtime answers the abort of a running command by journaling
   * `invocation_finished {status: failed, message: "Stopped"}` — after dispose. The next host's
   * recovery then finds no open invocation, so the command reads as stopped by the user instead of
   * interrupted by the restart (no `app_restarted` failure class on it).
   */
  it('a disposed host writes nothing, so recovery attributes its running command to the restart', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const workspace = tempDir('nac-ws-');
    fs.writeFileSync(path.join(workspace, 'x.txt'), 'x\n');
    const old = await openLocal({ file, workspace, instance: 'old-host' });
    const s = await old.runtime.createSession('local');
    assert.ok(s.ok);
    assert.ok((await old.runtime.send(s.value.id, 'run tail -f x.txt')).ok); // allowlisted, runs until killed
    await waitFor('the command output', async () => (await old.journal.read('listEvents', s.value.id)).some((e) => e.kind === 'invocation_output' && e.payload.chunk !== ''));
    const before = (await old.journal.read('listEvents', s.value.id)).length;
    old.runtime.dispose(); // the window reloads
    await sleep(500);
    const written = (await old.journal.read('listEvents', s.value.id)).slice(before).map((e) => `${e.kind} ${JSON.stringify(e.payload)}`);
    await old.journal.close();
    const next = await openLocal({ file, workspace, instance: 'new-host', dead: ['old-host'] });
    try {
      assert.deepEqual(written, [], 'events written by the disposed host');
      const inv = (await next.journal.read('listEvents', s.value.id)).find((e) => e.kind === 'invocation_finished');
      assert.equal(inv?.kind === 'invocation_finished' && inv.payload.failureClass, 'app_restarted');
    } finally {
      await next.close();
    }
  });
});
