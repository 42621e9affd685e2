/**
 * The content store (src/journal/operations/contents.ts): bytes come back exactly as stored, are
 * kept once per hash, travel to other windows through the redo log, and are dropped when the last
 * row referencing them goes.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Database } from 'sql.js';
import { contentHash } from '../../src/journal/contentHash';
import { JournalCore, type StatementRecorder } from '../../src/journal/core';
import { openStore, tempDir } from './helpers';

/** A core with the store's writes that no operation exposes, and its database unrecorded (`raw`), for the test. */
class ContentProbe extends JournalCore {
  constructor(readonly raw: Database, record: StatementRecorder) {
    super(raw, record);
  }
  put(bytes: Uint8Array | string, at = 5): { hash: string; size: number } {
    return this.contents.storeContent(bytes, at);
  }
  dropUnreferenced(): void {
    this.contents.dropUnreferencedContents();
  }
}

const SAMPLES: Record<string, Uint8Array> = {
  'empty': new Uint8Array(0),
  'UTF-8 with CRLF and no final newline': Buffer.from('line one\r\nline two é', 'utf8'),
  'a byte-order mark': Buffer.from('\ufeffBOM first\n', 'utf8'),
  'valid UTF-8 with a NUL': Buffer.from('before\0after', 'utf8'),
  'Latin-1 (not UTF-8)': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
  'binary with NUL bytes': Buffer.from([0, 255, 0, 1, 2, 0xc3, 0x28, 0x80]),
};

async function withProbe<T>(file: string, fn: (probe: ContentProbe, write: <R>(f: () => R) => R) => T): Promise<T> {
  const opened = await openStore(file);
  const probe = new ContentProbe(opened.store.db, (sql, params) => opened.store.record(sql, params));
  try {
    return fn(probe, (f) => opened.store.write(f, () => []).value);
  } finally {
    opened.done();
  }
}

describe('content store', () => {
  it('gives back exactly the bytes stored, in this window and in another that replays the log', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const stored = await withProbe(file, (probe, write) => {
      const refs = Object.entries(SAMPLES).map(([name, bytes]) => [name, write(() => probe.put(bytes))] as const);
      for (const [name, ref] of refs) {
        assert.equal(ref.hash, contentHash(SAMPLES[name]!), name);
        assert.equal(ref.size, SAMPLES[name]!.byteLength, name);
        assert.deepEqual(Buffer.from(probe.getContent(ref.hash)!), Buffer.from(SAMPLES[name]!), name);
      }
      return refs;
    });
    await withProbe(file, (other) => {
      for (const [name, ref] of stored) assert.deepEqual(Buffer.from(other.getContent(ref.hash)!), Buffer.from(SAMPLES[name]!), `replayed: ${name}`);
    });
  });

  it('keeps the same bytes once, and a string as its UTF-8 bytes', async () => {
    await withProbe(path.join(tempDir(), 'journal.sqlite'), (probe, write) => {
      const a = write(() => probe.put('same text'));
      const b = write(() => probe.put(Buffer.from('same text', 'utf8')));
      assert.equal(a.hash, b.hash);
      assert.equal(Number(probe.db.one('SELECT COUNT(*) AS n FROM contents')?.n), 1);
      assert.equal(probe.getContent('0'.repeat(64)), null);
    });
  });

  it('refuses to hand out content whose bytes no longer match their hash', async () => {
    await withProbe(path.join(tempDir(), 'journal.sqlite'), (probe, write) => {
      const ref = write(() => probe.put('original'));
      probe.raw.run('UPDATE contents SET body = ? WHERE hash = ?', ['tampered', ref.hash]);
      assert.throws(() => probe.getContent(ref.hash), /damaged/);
    });
  });

  it('storing bytes again whose row was damaged repairs the row instead of keeping the damage', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    await withProbe(file, (probe, write) => {
      const ref = write(() => probe.put('original'));
      probe.raw.run('UPDATE contents SET body = ? WHERE hash = ?', ['tampered', ref.hash]);
      assert.deepEqual(write(() => probe.put('original')), ref);
      assert.equal(Buffer.from(probe.getContent(ref.hash)!).toString('utf8'), 'original');
    });
  });

  it('drops content that no row references when a chat is deleted', async () => {
    await withProbe(path.join(tempDir(), 'journal.sqlite'), (probe, write) => {
      const ref = write(() => probe.put('orphan'));
      write(() => probe.createSession({ id: 's1', title: 's1', provider: 'local', createdAt: 1, updatedAt: 1 }));
      write(() => probe.deleteSession('s1'));
      assert.equal(probe.getContent(ref.hash), null);
    });
  });
});
