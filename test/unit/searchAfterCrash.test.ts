/**
 * The search index cannot fall behind its rows across a crash: it is written by triggers in the
 * rows' own transaction (directly, or as a pending row moved in later: migration 4), so the log
 * record that makes a write durable carries both. A writer
 * SIGKILLed among acknowledged writes (and log rotations, compactions) leaves every acknowledged
 * reply findable after reopening, and FTS4's integrity check finds the index equal to its rows.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { editJournalFile, openJournal, runWriter, tempDir } from './helpers';

const TRIALS = 4;

describe('journal: the search index after a crash', () => {
  it(`every acknowledged reply is found after the writer was SIGKILLed (${TRIALS} trials)`, async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const acked: string[] = [];
    let killed = 0;
    for (let trial = 0; trial < TRIALS; trial++) {
      // Small generations, so kills also land in rotations and compactions.
      const run = await runWriter([file, 'texts', '100000', `t${trial}`, '65536'], { killAfterFirstAckMs: 150 + trial * 90, killAfterMs: 60_000 });
      if (run.signal === 'SIGKILL') killed++;
      assert.ok(run.signal === 'SIGKILL' || run.code === 0, `writer failed: ${run.err}`);
      acked.push(...run.acks.map((i) => `t${trial}w${i}z`));
      const journal = await openJournal(file);
      const last = acked[acked.length - 1]!;
      const result = await journal.read('searchChats', last, {});
      await journal.close();
      assert.ok(result.ok);
      assert.deepEqual(result.value.map((r) => [r.turnId, r.snippet]), [['shared-turn', `Acknowledged reply ${last}.`]], `trial ${trial}: the last acknowledged reply`);
    }
    assert.ok(killed >= TRIALS / 2, `only ${killed} of ${TRIALS} writers were killed mid-run`);
    assert.ok(acked.length > TRIALS, 'the writers acknowledged writes');
    await editJournalFile(file, (db) => {
      // In the index, or among the few events waiting for it (moved in batches, migration 4).
      const count = db.prepare(`SELECT (SELECT COUNT(*) FROM event_search WHERE event_search MATCH ?1)
        + (SELECT COUNT(*) FROM event_search_pending p JOIN events e ON e.id = p.id WHERE instr(e.payload, ?2) > 0)`);
      const missing = acked.filter((word) => {
        count.bind([`"${word}"`, word]);
        count.step();
        const n = count.get()[0];
        count.reset();
        return n !== 1;
      });
      count.free();
      assert.deepEqual(missing, [], 'acknowledged replies the index does not hold');
      db.exec("INSERT INTO event_search(event_search) VALUES ('integrity-check')");
    });
  });
});
