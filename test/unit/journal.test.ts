import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { probeUserVersion } from '../../src/journal/files';
import { SCHEMA_VERSION } from '../../src/journal/schema';
import { editJournalFile, openJournal, tempDir } from './helpers';

const session = (id: string, at = 1) => ({ id, title: `Chat ${id}`, provider: 'local', createdAt: at, updatedAt: at });

describe('journal: open and migrations', () => {
  it('starts a new journal at the current schema version and persists it', async () => {
    const file = path.join(tempDir(), 'sub', 'journal.sqlite');
    const journal = await openJournal(file);
    assert.equal(journal.report.created, true);
    assert.equal(journal.report.versionFound, 0);
    assert.equal(journal.report.version, SCHEMA_VERSION);
    assert.equal(journal.readOnly, false);
    await journal.close();
    assert.equal(probeUserVersion(file), SCHEMA_VERSION);
    const again = await openJournal(file);
    assert.equal(again.report.created, false);
    assert.equal(again.report.versionFound, SCHEMA_VERSION);
    await again.close();
  });

  it('acknowledged writes survive a new store lifetime', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const a = await openJournal(file);
    const r = await a.write('createSession', session('s1'));
    assert.equal(r.ok, true);
    await a.close();
    const b = await openJournal(file);
    assert.deepEqual((await b.read('listSessions')).map((s) => s.id), ['s1']);
    await b.close();
  });

  it('probing the version never creates the file', () => {
    const file = path.join(tempDir(), 'absent.sqlite');
    assert.equal(probeUserVersion(file), undefined);
    assert.equal(fs.existsSync(file), false);
  });

  it('opens a journal from a newer schema read-only: reads work, writes are refused, the file is untouched', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const a = await openJournal(file);
    await a.write('createSession', session('old'));
    await a.close();
    await editJournalFile(file, (db) => db.run(`PRAGMA user_version = ${SCHEMA_VERSION + 5}`));
    const before = fs.readFileSync(file);
    const b = await openJournal(file);
    assert.equal(b.readOnly, true);
    assert.match(b.report.readOnlyReason!, /newer version/);
    assert.deepEqual((await b.read('listSessions')).map((s) => s.id), ['old']);
    const refused = await b.write('createSession', session('new'));
    assert.equal(refused.ok, false);
    assert.equal(!refused.ok && refused.reason, 'read_only');
    await b.close();
    assert.deepEqual(fs.readFileSync(file), before);
  });

  it('moves an unreadable file aside (never deletes it) and starts fresh', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'journal.sqlite');
    const garbage = Buffer.from('this is not a database, but it is somebody’s data'.repeat(100));
    fs.writeFileSync(file, garbage);
    const journal = await openJournal(file);
    const q = journal.report.quarantined;
    assert.ok(q, 'expected a quarantine report');
    assert.deepEqual(fs.readFileSync(q.path), garbage);
    assert.equal(path.dirname(q.path), dir);
    assert.equal((await journal.write('createSession', session('fresh'))).ok, true);
    await journal.close();
  });

  it('refuses a write the disk cannot take, keeps the previous state, and works again once there is room', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const journal = await openJournal(file, { faultInjection: true });
    await journal.write('createSession', session('kept', 1));
    fs.writeFileSync(`${file}.fault-enospc`, '');
    const refused = await journal.write('createSession', session('lost', 2));
    assert.equal(refused.ok, false);
    assert.equal(!refused.ok && refused.reason, 'storage_failed');
    assert.match(!refused.ok ? refused.message : '', /disk is full/);
    assert.deepEqual((await journal.read('listSessions')).map((s) => s.id), ['kept']);
    fs.rmSync(`${file}.fault-enospc`);
    assert.equal((await journal.write('createSession', session('later', 3))).ok, true);
    await journal.close();
    const reopened = await openJournal(file);
    assert.deepEqual((await reopened.read('listSessions')).map((s) => s.id).sort(), ['kept', 'later']);
    await reopened.close();
  });

  it('a full disk at the write lock says the disk is full and nothing was lost, and works again once there is room', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const journal = await openJournal(file, { faultInjection: true, leaseMs: 0 });
    try {
      await journal.write('createSession', session('kept', 1));
      fs.writeFileSync(`${file}.fault-enospc-lock`, '');
      const refused = await journal.write('createSession', session('lost', 2));
      assert.equal(!refused.ok && refused.reason, 'storage_failed');
      const message = !refused.ok ? refused.message : '';
      assert.match(message, /disk is full/);
      assert.match(message, /Nothing was lost/);
      assert.doesNotMatch(message, /ENOSPC|could not be locked/, message);
      fs.rmSync(`${file}.fault-enospc-lock`);
      assert.equal((await journal.write('createSession', session('later', 3))).ok, true);
      assert.deepEqual((await journal.read('listSessions')).map((s) => s.id).sort(), ['kept', 'later']);
    } finally {
      await journal.close();
    }
  });

  it('sees what another process wrote before it acts', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const a = await openJournal(file);
    const b = await openJournal(file);
    await a.write('createSession', session('from-a', 1));
    await b.write('createSession', session('from-b', 2));
    assert.deepEqual((await a.read('listSessions')).map((s) => s.id).sort(), ['from-a', 'from-b']);
    await a.close();
    await b.close();
  });

  it('a refused operation (unknown row) changes nothing and says why', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const journal = await openJournal(file);
    const r = await journal.write('renameSession', 'nope', 'x');
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.reason, 'not_found');
    await journal.close();
  });
});

describe('journal: boundary requests', () => {
  it('writes provenance in the creating INSERT and settles only pending rows', async () => {
    const journal = await openJournal(path.join(tempDir(), 'journal.sqlite'));
    await journal.write('createSession', session('s'));
    await journal.write('startTurn', { turn: { id: 't', sessionId: 's', prompt: 'p', origin: 'prompt', parentTurnId: null, createdAt: 2 }, run: { id: 'r', instanceId: 'i', provider: 'local' } });
    const created = await journal.write('createBoundaryRequest', {
      id: 'b', runId: 'r', invocationId: null, kind: 'command', subject: 'rm x', why: 'w', detail: null, scopeKey: 'command:rm', at: 3,
    });
    assert.ok(created.ok);
    assert.equal(created.value.request.turnId, 't');
    assert.equal(created.value.request.runId, 'r');
    assert.equal(created.value.request.status, 'pending');
    const first = await journal.write('settleBoundaryRequest', { id: 'b', status: 'approved', decision: 'allow_once', closureReason: 'user_decision', at: 4 });
    const second = await journal.write('settleBoundaryRequest', { id: 'b', status: 'denied', decision: 'deny', closureReason: 'host_restarted', at: 5 });
    assert.ok(first.ok && second.ok);
    assert.equal(first.value.settled, true);
    assert.equal(second.value.settled, false);
    assert.equal(second.value.request.status, 'approved');
    assert.equal(second.value.events.length, 0);
    await journal.close();
  });

  it('lists as restart closures only rows denied with host_restarted', async () => {
    const journal = await openJournal(path.join(tempDir(), 'journal.sqlite'));
    await journal.write('createSession', session('s'));
    await journal.write('startTurn', { turn: { id: 't', sessionId: 's', prompt: 'p', origin: 'prompt', parentTurnId: null, createdAt: 2 }, run: { id: 'r', instanceId: 'i', provider: 'local' } });
    const settlements = [
      ['a', 'approved', 'allow_once', 'user_decision'],
      ['b', 'denied', 'deny', 'user_decision'],
      ['c', 'denied', 'deny', 'host_restarted'],
      ['d', 'denied', 'deny', 'run_stopped'],
    ] as const;
    for (const [id, status, decision, closureReason] of settlements) {
      await journal.write('createBoundaryRequest', { id, runId: 'r', invocationId: null, kind: 'command', subject: id, why: 'w', detail: null, scopeKey: 'k', at: 3 });
      await journal.write('settleBoundaryRequest', { id, status, decision, closureReason, at: 4 });
    }
    assert.deepEqual((await journal.read('listRestartClosures', 's')).map((r) => r.id), ['c']);
    await journal.close();
  });
});

describe('journal: leftovers of a crash', () => {
  it('removes temporary files of dead processes at open and keeps those of live ones', async () => {
    const { removeLeftovers } = await import('../../src/journal/logStore');
    const { spawnSync } = await import('node:child_process');
    const dir = tempDir();
    const file = path.join(dir, 'journal.sqlite');
    const deadPid = spawnSync('true').pid!;
    for (const name of [`journal.sqlite.log.3.tmp-${deadPid}`, `journal.sqlite.compact-${deadPid}`, `journal.sqlite.compact-${process.pid}`, 'journal.sqlite.log.3', 'other.compact-1']) {
      fs.writeFileSync(path.join(dir, name), 'x');
    }
    assert.deepEqual(removeLeftovers(file).sort(), [`journal.sqlite.compact-${deadPid}`, `journal.sqlite.log.3.tmp-${deadPid}`]);
    assert.deepEqual(fs.readdirSync(dir).sort(), [`journal.sqlite.compact-${process.pid}`, 'journal.sqlite.log.3', 'other.compact-1'].sort());
  });
});
