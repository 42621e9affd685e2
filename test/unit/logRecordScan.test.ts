/**
 * The one scan for valid log records past a bad frame (src/journal/logFormat.ts `recordsAfter`,
 * `newerRecordAfter`), which replay at open, Check Journal and a salvage share: a damaged frame's
 * length may be what is wrong, so every byte after it is tried; records are found in file order,
 * each where it starts, and a payload quoting a record's text is not taken for one.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { encodeRecord, newerRecordAfter, recordsAfter } from '../../src/journal/logFormat';

describe('the scan for valid log records past damage', () => {
  it('finds every valid record after the bad frame, in order, where each starts', () => {
    const first = encodeRecord({ s: 1, t: [['INSERT INTO t VALUES (?)', ['{"s":9,"t":[]}']]], x: ['a'] });
    // A frame whose length field is damaged (and a payload that does not match it).
    const bad = Buffer.concat([Buffer.from([0xff, 0xff, 0x00, 0x00, 1, 2, 3, 4]), Buffer.from('{"s":2,"t":[]')]);
    const second = encodeRecord({ s: 2, t: [], x: ['b'] });
    const third = encodeRecord({ s: 3, t: [], x: ['c'] });
    const bytes = Buffer.concat([first, bad, second, third]);
    const badAt = first.length;
    const found = [...recordsAfter(bytes, badAt)];
    assert.deepEqual(found.map((f) => [f.at, f.record.s]), [[badAt + bad.length, 2], [badAt + bad.length + second.length, 3]]);
    assert.deepEqual([...recordsAfter(bytes, -1)].map((f) => f.record.s), [1, 2, 3], 'the quoted record inside the first payload is not one');
    assert.equal(newerRecordAfter(bytes, badAt, 2), true);
    assert.equal(newerRecordAfter(bytes, badAt, 3), false, 'nothing newer: a torn tail');
    assert.equal(newerRecordAfter(bytes, badAt + bad.length + second.length, 0), false, 'nothing after the last');
  });
});
