/**
 * Damaged storage (a generation that cannot be read to the end, a damaged length field or header, a
 * missing generation, damaged snapshot pages) leaves the journal openable, read-only or quarantined,
 * and never deletes or overwrites what survived. Real files and worker threads.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { LOG_HEADER_BYTES, encodeHeader } from '../../src/journal/logFormat';
import { listGenerations, logPath } from '../../src/journal/logStore';
import { openJournal, openStore, trackedTempDir as tempDir } from './helpers';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const session = (id: string, titleBytes = 10) => ({ id, title: 'x'.repeat(titleBytes), provider: 'local', createdAt: 1, updatedAt: 1 });

/** Number of records in a log generation file (walks the frames from the header). */
function recordsIn(file: string): number {
  const b = fs.readFileSync(file);
  let offset = LOG_HEADER_BYTES;
  let n = 0;
  while (offset + 8 <= b.length) {
    const len = b.readUInt32LE(offset);
    if (len === 0) break;
    n++;
    offset += 8 + len;
  }
  return n;
}

describe('damaged storage: opened read-only or quarantined, nothing that survived is lost', () => {
  /**
   * BUG (silent deletion of recoverable history): `compact` stops at the first frame of a closed
   * generation it cannot read, writes a snapshot holding only what came before, and then deletes the
   * whole generation — valid records after the damaged one included. Opening the same log instead
   * keeps them on disk (read-only until repaired). One flipped byte + one rotation = permanent loss.
   */
  it('compaction never deletes a closed generation it could not read to the end', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const j = await openJournal(file, { rotateAtBytes: 32_768 });
    let damaged = 0;
    try {
      for (let i = 0; i < 4; i++) assert.ok((await j.write('createSession', session(`s${i}`, 3000))).ok);
      damaged = listGenerations(file).at(-1)!;
      const log = logPath(file, damaged);
      const bytes = fs.readFileSync(log);
      const first = bytes.readUInt32LE(LOG_HEADER_BYTES);
      // One bit-rotted byte inside record s1, changed in place as rot does: rewriting the whole file
      // would truncate it for a moment, and a catch-up then (the folder's watch) reads a log replaced.
      const at = LOG_HEADER_BYTES + 8 + first + 8 + 100;
      const fd = fs.openSync(log, 'r+');
      try {
        fs.writeSync(fd, Buffer.of(bytes[at]! ^ 0xff), 0, 1, at);
      } finally {
        fs.closeSync(fd);
      }
      for (let i = 4; i < 14; i++) assert.ok((await j.write('createSession', session(`s${i}`, 3000))).ok); // rotates, compacts
      await sleep(1000);
    } finally {
      await j.close();
    }
    assert.ok(
      listGenerations(file).includes(damaged),
      `generation ${damaged} (records s1..s9, only s1 damaged) was deleted by compaction; left: ${listGenerations(file).join(',')}`,
    );
  });

  /**
   * BUG (silent destruction of valid history): a damaged *length* field in the middle of the log is
   * taken for a torn tail. `validRecordFollows` looks for the next record where the damaged length
   * says it is (nowhere sensible), finds none, and the frame is "cut": the journal opens writable
   * with history up to the damage, and the next write overwrites the valid records s1..s3 for good.
   * The same damage one byte further (in the payload) correctly opens read-only.
   */
  it('a damaged length field in the middle of the log opens read-only, like any other mid-log damage', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const j = await openJournal(file);
    for (let i = 0; i < 4; i++) assert.ok((await j.write('createSession', session(`s${i}`))).ok);
    await j.close();
    const log = logPath(file, listGenerations(file).at(-1)!);
    const bytes = fs.readFileSync(log);
    const second = LOG_HEADER_BYTES + 8 + bytes.readUInt32LE(LOG_HEADER_BYTES);
    bytes[second + 3]! ^= 0x40; // one flipped bit in the high byte of record s1's length
    fs.writeFileSync(log, bytes);
    const k = await openJournal(file);
    try {
      assert.equal(k.readOnly, true, `opened writable (tornTailCut: ${k.report.tornTailCut}); the next write destroys s1..s3`);
    } finally {
      await k.close();
    }
  });

  /**
   * BUG (silent loss, then destruction): generation numbers are not checked for contiguity. With a
   * generation missing in the middle (deleted by a sync tool, antivirus, a user), a last generation
   * holding one record shows a "sequence gap"; it is treated as a torn tail, the cut is a no-op (the
   * frame itself is valid), the journal opens writable, and the next write overwrites that record.
   */
  it('a log generation missing in the middle does not open writable and overwrite what survived', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    // Several generations, none compacted away: written through the store alone (compaction is
    // started by the worker, which a closing journal may let finish before it exits).
    const opened = await openStore(file, { rotateAtBytes: 8000 });
    // Until the last of at least three generations holds one record (where rotations fall depends
    // on the size of the migrations' records too).
    let n = 0;
    const lastHoldsOne = () => listGenerations(file).length >= 3 && recordsIn(logPath(file, listGenerations(file).at(-1)!)) === 1;
    while (n < 5 || (!lastHoldsOne() && n < 20)) opened.write((core) => core.createSession(session(`s${n++}`, 3000)));
    opened.done();
    const gens = listGenerations(file);
    assert.ok(gens.length >= 3, `generations ${gens.join(',')}`);
    const last = gens.at(-1)!;
    assert.equal(recordsIn(logPath(file, last)), 1);
    const lastId = `s${n - 1}`;
    fs.rmSync(logPath(file, gens.at(-2)!));
    const k = await openJournal(file);
    try {
      const ids = (await k.read('listSessions')).map((s) => s.id);
      if (!k.readOnly) {
        await k.write('createSession', session('next'));
        assert.ok(ids.includes(lastId), `opened writable without the surviving record ${lastId} (sessions: ${ids.join(',')})`);
      }
    } finally {
      await k.close();
    }
    assert.ok(recordsIn(logPath(file, last)) >= 1);
  });

  /**
   * BUG (journal unusable): a log header that is damaged or names another generation makes
   * `LogFile.open` return undefined, which `replayFrom` reads as "a compaction moved the snapshot";
   * after five retries the open fails with "keeps changing while it is opened" and the extension
   * cannot open its journal at all (no quarantine, no read-only history).
   */
  it('a damaged log header leaves the journal openable (read-only or quarantined), not unopenable', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const j = await openJournal(file);
    for (let i = 0; i < 3; i++) assert.ok((await j.write('createSession', session(`s${i}`))).ok);
    await j.close();
    const g = listGenerations(file).at(-1)!;
    const fd = fs.openSync(logPath(file, g), 'r+');
    fs.writeSync(fd, encodeHeader({ format: 1, generation: g + 7, createdAt: 1, sqljs: 'x' }), 0, LOG_HEADER_BYTES, 0);
    fs.closeSync(fd);
    const k = await openJournal(file);
    await k.close();
  });

  /**
   * BUG (journal unusable): a snapshot whose table pages are damaged (page 1 and the schema intact)
   * is not detected at open; replaying any log record that touches a damaged page throws a plain
   * Error, so the open fails (no quarantine, no read-only), and with no such record every read of the
   * chat list throws "database disk image is malformed".
   * Expected: quarantined (the documented path for a snapshot that cannot be read), so the chat
   * list can be read.
   */
  it('a snapshot with damaged table pages is quarantined or opened read-only, never unopenable', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const j = await openJournal(file);
    for (let i = 0; i < 200; i++) assert.ok((await j.write('createSession', session(`s${i}`, 500))).ok);
    await j.compactNow();
    assert.ok((await j.write('createSession', session('later'))).ok); // one record in the log
    await j.close();
    const bytes = fs.readFileSync(file);
    const pageSize = bytes.readUInt16BE(16);
    const pages = bytes.length / pageSize;
    for (let p = pages - 3; p < pages; p++) bytes.fill(0xa5, p * pageSize, (p + 1) * pageSize);
    fs.writeFileSync(file, bytes);
    const k = await openJournal(file);
    try {
      await k.read('listSessions');
    } finally {
      await k.close();
    }
  });
});
