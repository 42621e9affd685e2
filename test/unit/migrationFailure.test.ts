/**
 * A journal whose migration cannot run (a schema-1 row the new schema refuses, a disk with no room
 * for a log file) opens read-only at the version it has: history stays readable, writes are refused
 * with one plain sentence, no stack trace, and the files a failed open left are gone after a later
 * successful open. Real journals on disk; the full disk through the journal's fault injection.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { probeUserVersion } from '../../src/journal/files';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/journal/schema';
import { loadSqlJs } from '../../src/journal/sqljs';
import { WASM_PATH, openJournal, tempDir } from './helpers';

/**
 * Writes a schema-1 journal with two chats, `good` (two events) and `bad` (one event, and one whose
 * payload is NULL: a row hand-edited or damaged, which migration 2's NOT NULL column refuses).
 */
async function schema1WithNullPayload(file: string): Promise<void> {
  const SQL = await loadSqlJs(WASM_PATH);
  const db = new SQL.Database();
  // Schema 1 as shipped, except that this file's events.payload lets a NULL in (the damage).
  db.exec(MIGRATIONS[0]!.sql.replace('payload TEXT NOT NULL', 'payload TEXT'));
  db.exec('PRAGMA user_version = 1');
  for (const s of ['good', 'bad']) {
    db.run("INSERT INTO sessions (id, title, provider, created_at, updated_at) VALUES (?, ?, 'local', 1, 1)", [s, `Chat ${s}`]);
    db.run("INSERT INTO turns (id, session_id, prompt, origin, status, created_at) VALUES (?, ?, 'p', 'prompt', 'completed', 1)", [`t-${s}`, s]);
    db.run("INSERT INTO runs (id, turn_id, session_id, instance_id, provider, status, started_at) VALUES (?, ?, ?, 'i', 'local', 'completed', 1)", [`r-${s}`, `t-${s}`, s]);
    db.run("INSERT INTO events (run_id, seq, session_id, turn_id, kind, payload, at) VALUES (?, 1, ?, ?, 'text', ?, 1)", [`r-${s}`, s, `t-${s}`, JSON.stringify({ text: `${s} 1` })]);
  }
  db.run("INSERT INTO events (run_id, seq, session_id, turn_id, kind, payload, at) VALUES ('r-good', 2, 'good', 't-good', 'text', ?, 2)", [JSON.stringify({ text: 'good 2' })]);
  db.run("INSERT INTO events (run_id, seq, session_id, turn_id, kind, payload, at) VALUES ('r-bad', 2, 'bad', 't-bad', 'text', NULL, 2)");
  fs.writeFileSync(file, db.export());
  db.close();
}

/** Sets the NULL payload of the fixture to a valid one, in the snapshot itself (no compaction). */
async function repairNullPayload(file: string): Promise<void> {
  const SQL = await loadSqlJs(WASM_PATH);
  const db = new SQL.Database(fs.readFileSync(file));
  db.run(`UPDATE events SET payload = '{"text":"repaired"}' WHERE payload IS NULL`);
  fs.writeFileSync(file, db.export());
  db.close();
}

const session = (id: string) => ({ id, title: `Chat ${id}`, provider: 'local', createdAt: 5, updatedAt: 5 });

/** Names beside the journal that a failed open or a crash leaves (log generations, temporary files). */
function leftovers(file: string): string[] {
  const base = path.basename(file);
  return fs.readdirSync(path.dirname(file)).filter((n) => n.startsWith(`${base}.`) && /\.log\.\d+|\.tmp-|\.compact-/.test(n)).sort();
}

describe('a migration that fails: read-only at the version found', () => {
  it('opens a schema-1 journal with a NULL payload read-only; history readable; writes refused in a plain sentence', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    await schema1WithNullPayload(file);
    const before = fs.readFileSync(file);
    const j = await openJournal(file, { integrityCheckDelayMs: 60_000 });
    const lines: string[] = [];
    j.onLog((line) => lines.push(line));
    try {
      assert.equal(j.report.versionFound, 1);
      assert.equal(j.report.version, 1, 'the journal stays at the version it has');
      assert.equal(j.readOnly, true);
      const reason = j.readOnlyReason!;
      assert.match(reason, /^Agent Chats can show your chats but not change them: its chat journal could not be updated/);
      assert.match(reason, /nothing was lost/i);
      assert.doesNotMatch(reason, /\n\s+at /, 'no stack trace in the reason');
      assert.doesNotMatch(reason, /events_v2|NOT NULL constraint/, 'no SQLite internals in the reason');
      assert.deepEqual((await j.read('listSessions')).map((s) => s.id).sort(), ['bad', 'good']);
      const good = await j.read('listEvents', 'good');
      assert.deepEqual(good.map((e) => (e.payload as { text: string }).text), ['good 1', 'good 2']);
      const bad = await j.read('listEvents', 'bad');
      assert.deepEqual(bad.map((e) => (e.payload as { text: string }).text), ['bad 1'], 'the readable rows of the damaged chat');
      // A NULL payload is damage, not a newer build's row: no advice to update.
      const fence = (await j.read('getFence', 'bad'))!;
      assert.match(fence, /part of a reply that could not be read \(it is damaged\)/);
      assert.doesNotMatch(fence, /update|events row|r-bad#2/i, fence);
      const refused = await j.write('createSession', session('new'));
      assert.equal(refused.ok, false);
      assert.equal(!refused.ok && refused.reason, 'read_only');
      assert.equal(!refused.ok && refused.message, reason);
      assert.ok(lines.some((l) => /migration 1 → 2 failed.*NOT NULL constraint failed/s.test(l)), `the error goes to the log: ${lines.join(' | ')}`);
    } finally {
      await j.close();
    }
    assert.deepEqual(fs.readFileSync(file), before, 'the old file is untouched');
    assert.equal(probeUserVersion(file), 1);
  });

  it('a journal read-only at schema 1 can still be listed, paged and read for history; search says why it cannot run', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    await schema1WithNullPayload(file);
    const j = await openJournal(file, { integrityCheckDelayMs: 60_000 });
    try {
      assert.equal(j.report.version, 1);
      const chats = await j.read('listChats');
      assert.deepEqual(chats.map((c) => [c.id, c.workspace]).sort(), [['bad', null], ['good', null]], 'no folder known before schema 4');
      assert.deepEqual(await j.read('listChats', { workspace: '/any' }), []);
      assert.equal((await j.read('getChatListItem', 'good'))?.title, 'Chat good');
      const page = await j.read('readTurnPage', 'good', null, 30);
      assert.deepEqual(page.events.map((e) => (e.payload as { text: string }).text), ['good 1', 'good 2']);
      assert.deepEqual(await j.read('readChangesSince', 'good', page.mark, 100), { tooMany: true }, 'no event ids: every change reads a page');
      assert.deepEqual(await j.read('listHistory', 'good'), [{ prompt: 'p', reply: 'good 1good 2', stopped: false }]);
      const search = await j.read('searchChats', 'good');
      assert.equal(search.ok, false);
      assert.equal(!search.ok && search.reason, 'not_indexed');
    } finally {
      await j.close();
    }
  });

  it('a later successful open migrates and removes what the failed open left', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'journal.sqlite');
    await schema1WithNullPayload(file);
    const failed = await openJournal(file, { integrityCheckDelayMs: 60_000 });
    assert.equal(failed.readOnly, true);
    await failed.close();
    // What a crashed process left half-created (its pid is gone).
    fs.writeFileSync(`${file}.log.7.tmp-999999999`, 'half a log');
    assert.ok(leftovers(file).length > 0);
    await repairNullPayload(file);
    const j = await openJournal(file, { integrityCheckDelayMs: 60_000 });
    try {
      assert.equal(j.readOnly, false);
      assert.equal(j.report.version, SCHEMA_VERSION);
      assert.deepEqual((await j.read('listEvents', 'bad')).map((e) => (e.payload as { text: string }).text), ['bad 1', 'repaired']);
      assert.ok((await j.write('createSession', session('new'))).ok);
      // The just-migrated journal was compacted at open: the failed open's generation is folded in.
      assert.ok(!leftovers(file).some((n) => n === 'journal.sqlite.log.1' || n.includes('.tmp-')), `left: ${leftovers(file).join(', ')}`);
    } finally {
      await j.close();
    }
  });

  it('a migration that ran, then no room for the compaction after it: opens writable at the new version', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    await schema1WithNullPayload(file);
    await (await openJournal(file, { integrityCheckDelayMs: 60_000 })).close(); // leaves log generation 1
    await repairNullPayload(file);
    fs.writeFileSync(`${file}.fault-enospc-rotate`, ''); // the migration fits in generation 1; a new one does not
    const j = await openJournal(file, { faultInjection: true, integrityCheckDelayMs: 60_000 });
    try {
      assert.equal(j.report.version, SCHEMA_VERSION);
      assert.equal(j.readOnly, false);
      assert.ok((await j.write('createSession', session('new'))).ok);
    } finally {
      await j.close();
    }
  });

  it('a disk with no room for a new log file: opens read-only, says the disk is full, leaves no temporary file', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'journal.sqlite');
    await schema1WithNullPayload(file);
    await repairNullPayload(file); // a sound schema-1 journal: only the disk is in the way
    fs.writeFileSync(`${file}.fault-enospc-rotate`, '');
    const j = await openJournal(file, { faultInjection: true, integrityCheckDelayMs: 60_000 });
    try {
      assert.equal(j.report.version, 1);
      assert.equal(j.readOnly, true);
      assert.match(j.readOnlyReason!, /disk is full/);
      assert.match(j.readOnlyReason!, /nothing was lost/i);
      assert.deepEqual((await j.read('listEvents', 'good')).map((e) => (e.payload as { text: string }).text), ['good 1', 'good 2']);
      const refused = await j.write('createSession', session('new'));
      assert.equal(!refused.ok && refused.reason, 'read_only');
      assert.deepEqual(leftovers(file), [], 'no half-created log file is left');
    } finally {
      await j.close();
    }
    fs.rmSync(`${file}.fault-enospc-rotate`);
    const k = await openJournal(file, { faultInjection: true, integrityCheckDelayMs: 60_000 });
    try {
      assert.equal(k.readOnly, false);
      assert.equal(k.report.version, SCHEMA_VERSION);
      assert.ok((await k.write('createSession', session('new'))).ok);
    } finally {
      await k.close();
    }
  });
});
