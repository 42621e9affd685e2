/**
 * The chat runtime with the real local agent, a real journal on disk and real shell commands in a
 * temporary workspace: prompts, boundary requests and their decisions, Stop, and the restart story
 * across two runtime lifetimes (the first "dies" without writing anything more).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { MAX_TITLE_CHARS, NEW_CHAT_TITLE } from '../../src/runtime/chatRuntime';
import { closeWindows, openLocal, openWindow, pendingRequest, type RuntimeHarness } from './harness';
import { openJournal, tempDir, waitFor } from './helpers';
import { items, textOf } from './turnItems';



describe('chat runtime with the local agent', () => {
  it('runs an allowlisted command without asking and journals the reply and output', async () => {
    const h = await openLocal();
    fs.writeFileSync(path.join(h.workspace, 'hello.txt'), 'hi\n');
    const s = await h.runtime.createSession('local');
    assert.ok(s.ok);
    const sent = await h.runtime.send(s.value.id, 'run ls');
    assert.ok(sent.ok);
    await h.runtime.whenIdle(s.value.id);
    const t = await h.runtime.transcript(s.value.id);
    assert.equal(t.turns.length, 1);
    assert.equal(t.turns[0]!.status, 'completed');
    const inv = items(t, 0).find((i) => i.type === 'invocation');
    assert.ok(inv && inv.type === 'invocation');
    assert.equal(inv.status, 'completed');
    assert.equal(inv.output, 'hello.txt\n');
    assert.equal(items(t, 0).some((i) => i.type === 'boundary'), false);
    assert.equal((await h.runtime.getSession(s.value.id))!.title, 'run ls');
    await h.journal.close();
  });

  it('asks before a command outside the allowlist; Allow once runs it', async () => {
    const h = await openLocal();
    const s = await h.runtime.createSession('local');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'run touch made.txt && echo made-it');
    const requestId = await pendingRequest(h, s.value.id);
    assert.equal(fs.existsSync(path.join(h.workspace, 'made.txt')), false);
    const row = (await h.journal.read('getBoundaryRequest', requestId))!;
    assert.equal(row.status, 'pending');
    assert.equal(row.subject, 'touch made.txt && echo made-it');
    assert.equal(row.turnId, (await h.runtime.transcript(s.value.id)).turns[0]!.id);
    const decided = await h.runtime.decide(s.value.id, requestId, 'allow_once');
    assert.deepEqual(decided, { ok: true, value: { approved: true } });
    await h.runtime.whenIdle(s.value.id);
    assert.equal(fs.existsSync(path.join(h.workspace, 'made.txt')), true);
    const inv = items(await h.runtime.transcript(s.value.id), 0).find((i) => i.type === 'invocation');
    assert.ok(inv && inv.type === 'invocation');
    assert.equal(inv.output, 'made-it\n');
    // The decision reached the agent exactly once: a second click is refused.
    const again = await h.runtime.decide(s.value.id, requestId, 'deny');
    assert.equal(!again.ok && again.reason, 'already_decided');
    await h.journal.close();
  });

  it('Deny runs nothing and ends the invocation as denied', async () => {
    const h = await openLocal();
    const s = await h.runtime.createSession('local');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'run touch nope.txt');
    const requestId = await pendingRequest(h, s.value.id);
    await h.runtime.decide(s.value.id, requestId, 'deny');
    await h.runtime.whenIdle(s.value.id);
    assert.equal(fs.existsSync(path.join(h.workspace, 'nope.txt')), false);
    const t = await h.runtime.transcript(s.value.id);
    const inv = items(t, 0).find((i) => i.type === 'invocation');
    assert.equal(inv?.type === 'invocation' && inv.status, 'denied');
    const card = items(t, 0).find((i) => i.type === 'boundary');
    assert.equal(card?.type === 'boundary' && card.closureReason, 'user_decision');
    assert.equal(t.turns[0]!.status, 'completed');
    await h.journal.close();
  });

  it('Allow for this session approves the same kind of request later without asking', async () => {
    const h = await openLocal();
    const s = await h.runtime.createSession('local');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'run touch a.txt');
    await h.runtime.decide(s.value.id, await pendingRequest(h, s.value.id), 'allow_session');
    await h.runtime.whenIdle(s.value.id);
    await h.runtime.send(s.value.id, 'run touch b.txt');
    await h.runtime.whenIdle(s.value.id);
    assert.equal(fs.existsSync(path.join(h.workspace, 'b.txt')), true);
    const card = items(await h.runtime.transcript(s.value.id), 1).find((i) => i.type === 'boundary');
    assert.ok(card && card.type === 'boundary');
    assert.equal(card.status, 'approved');
    assert.equal(card.closureReason, 'session_grant');
    // Another program is a different scope: it asks.
    await h.runtime.send(s.value.id, 'run mkdir d');
    const requestId = await pendingRequest(h, s.value.id);
    await h.runtime.decide(s.value.id, requestId, 'deny');
    await h.runtime.whenIdle(s.value.id);
    // A grant in one chat does not leak into another.
    const other = await h.runtime.createSession('local');
    assert.ok(other.ok);
    await h.runtime.send(other.value.id, 'run touch c.txt');
    await h.runtime.decide(other.value.id, await pendingRequest(h, other.value.id), 'deny');
    await h.runtime.whenIdle(other.value.id);
    assert.equal(fs.existsSync(path.join(h.workspace, 'c.txt')), false);
    await h.journal.close();
  });

  it('Stop while a request waits closes it as run_stopped and the turn as stopped', async () => {
    const h = await openLocal();
    const s = await h.runtime.createSession('local');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'run rm -rf /tmp/definitely-not-here');
    const requestId = await pendingRequest(h, s.value.id);
    assert.deepEqual(await h.runtime.stop(s.value.id), { ok: true, value: { stopped: true } });
    await h.runtime.whenIdle(s.value.id);
    const row = (await h.journal.read('getBoundaryRequest', requestId))!;
    assert.equal(row.status, 'denied');
    assert.equal(row.closureReason, 'run_stopped');
    assert.equal((await h.runtime.transcript(s.value.id)).turns[0]!.status, 'stopped');
    assert.deepEqual((await h.runtime.liveState(s.value.id)).actionableRequestIds, []);
    assert.equal((await h.runtime.liveState(s.value.id)).running, false);
    await h.journal.close();
  });

  it('Stop kills a running command', async () => {
    const h = await openLocal();
    const s = await h.runtime.createSession('local');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'run sleep 30');
    await h.runtime.decide(s.value.id, await pendingRequest(h, s.value.id), 'allow_once');
    const started = Date.now();
    await new Promise((r) => setTimeout(r, 100));
    await h.runtime.stop(s.value.id);
    await h.runtime.whenIdle(s.value.id);
    assert.ok(Date.now() - started < 10_000);
    assert.equal((await h.runtime.transcript(s.value.id)).turns[0]!.status, 'stopped');
    await h.journal.close();
  });

  it('refuses a second prompt while the agent works', async () => {
    const h = await openLocal();
    const s = await h.runtime.createSession('local');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'run touch x');
    await pendingRequest(h, s.value.id);
    const second = await h.runtime.send(s.value.id, 'help');
    assert.equal(!second.ok && second.reason, 'busy');
    await h.runtime.stop(s.value.id);
    await h.runtime.whenIdle(s.value.id);
    await h.journal.close();
  });
});

describe('chat runtime: Stop while a request waits', () => {
  it('closes the request as stopped and marks the invocation stopped, not denied', async () => {
    // A fresh user saw a card "Closed because the run was stopped" under a "Denied" badge.
    const h = await openLocal();
    const s = await h.runtime.createSession('local');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'run touch never.txt && echo never');
    const requestId = await pendingRequest(h, s.value.id);
    assert.ok((await h.runtime.stop(s.value.id)).ok);
    await h.runtime.whenIdle(s.value.id);
    const row = (await h.journal.read('getBoundaryRequest', requestId))!;
    assert.equal(row.status, 'denied');
    assert.equal(row.closureReason, 'run_stopped');
    const inv = items(await h.runtime.transcript(s.value.id), 0).find((i) => i.type === 'invocation');
    assert.ok(inv && inv.type === 'invocation');
    assert.equal(inv.status, 'stopped');
    assert.equal(inv.message, 'Stopped before it ran.');
    assert.equal(fs.existsSync(path.join(h.workspace, 'never.txt')), false);
    await h.journal.close();
  });
});

describe('chat runtime: renaming a chat', () => {
  it('names chats started by the same prompt apart: "run ls", "run ls (2)", "run ls (3)"', async () => {
    const h = await openLocal();
    try {
      const titles: string[] = [];
      for (let i = 0; i < 3; i++) {
        const s = await h.runtime.createSession('local');
        assert.ok(s.ok);
        assert.ok((await h.runtime.send(s.value.id, 'run ls')).ok);
        await h.runtime.whenIdle(s.value.id);
        titles.push(await waitFor('the chat named', async () => {
          const title = (await h.runtime.getSession(s.value.id))!.title;
          return title !== NEW_CHAT_TITLE ? title : undefined;
        }));
      }
      assert.deepEqual(titles, ['run ls', 'run ls (2)', 'run ls (3)']);
    } finally {
      await h.journal.close();
    }
  });

  it('keeps the title as typed (trimmed, one line), tells this window, and keeps it after the first prompt', async () => {
    const h = await openLocal();
    const s = await h.runtime.createSession('local');
    assert.ok(s.ok);
    const seen: string[] = [];
    h.runtime.onNotification((n) => {
      if (n.type === 'session') seen.push(n.session.title);
    });
    const renamed = await h.runtime.renameSession(s.value.id, '  Release\nchecklist  ');
    assert.ok(renamed.ok);
    assert.equal(renamed.value.title, 'Release checklist');
    assert.deepEqual(seen, ['Release checklist']);
    await h.runtime.send(s.value.id, 'help');
    await h.runtime.whenIdle(s.value.id);
    assert.equal((await h.runtime.getSession(s.value.id))!.title, 'Release checklist', 'the first prompt does not rename a chat the user named');
    await h.journal.close();
  });

  it('keeps a renamed chat\'s last activity, so the view does not move it to Today', async () => {
    let t = Date.UTC(2026, 0, 15, 9, 30, 0);
    const h = await openLocal({ now: () => t });
    const s = await h.runtime.createSession('local');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'help');
    await h.runtime.whenIdle(s.value.id);
    const before = await h.runtime.chatListEntry(s.value.id);
    assert.ok(before);
    t += 40 * 24 * 3600_000;
    assert.ok((await h.runtime.renameSession(s.value.id, 'Release checklist')).ok);
    const after = await h.runtime.chatListEntry(s.value.id);
    assert.equal(after?.title, 'Release checklist');
    assert.equal(after?.updatedAt, before.updatedAt, 'last active when its last turn was, not when it was renamed');
    assert.equal((await h.runtime.getSession(s.value.id))!.updatedAt, before.updatedAt);
    await h.journal.close();
  });

  it('refuses an empty or over-long title and an unknown chat, changing nothing', async () => {
    const h = await openLocal();
    const s = await h.runtime.createSession('local');
    assert.ok(s.ok);
    const empty = await h.runtime.renameSession(s.value.id, ' \n ');
    assert.equal(!empty.ok && empty.reason, 'invalid');
    const long = await h.runtime.renameSession(s.value.id, 'x'.repeat(MAX_TITLE_CHARS + 1));
    assert.equal(!long.ok && long.reason, 'invalid');
    const unknown = await h.runtime.renameSession('no-such-chat', 'Title');
    assert.equal(!unknown.ok && unknown.reason, 'not_found');
    assert.equal((await h.runtime.getSession(s.value.id))!.title, NEW_CHAT_TITLE);
    await h.journal.close();
  });
});

describe('chat runtime: deleting a chat', () => {
  it('removes the chat and everything under it, leaves other chats alone, and closes its views', async () => {
    const h = await openLocal();
    const keep = await h.runtime.createSession('local');
    const gone = await h.runtime.createSession('local');
    assert.ok(keep.ok && gone.ok);
    for (const s of [keep.value.id, gone.value.id]) {
      await h.runtime.send(s, 'run touch x.txt && echo x'); // asks: a boundary request row
      await h.runtime.decide(s, await pendingRequest(h, s), 'deny');
      await h.runtime.whenIdle(s);
      await h.runtime.recordTab(s);
    }
    const seen: string[] = [];
    h.runtime.onNotification((n) => {
      if (n.type === 'deleted') seen.push(n.sessionId);
    });
    const deleted = await h.runtime.deleteSession(gone.value.id);
    assert.deepEqual(deleted, { ok: true, value: undefined });
    assert.deepEqual(seen, [gone.value.id]);
    assert.equal(await h.runtime.getSession(gone.value.id), undefined);
    assert.deepEqual((await h.runtime.listSessions()).map((s) => s.id), [keep.value.id]);
    assert.deepEqual((await h.runtime.listTabs()).map((t) => t.sessionId), [keep.value.id]);
    assert.equal((await h.journal.read('listTurns', gone.value.id)).length, 0);
    assert.equal((await h.journal.read('listEvents', gone.value.id)).length, 0);
    assert.equal((await h.runtime.transcript(keep.value.id)).turns.length, 1, 'the other chat keeps its history');
    assert.equal((await h.journal.read('listEvents', keep.value.id)).length > 0, true);
    await h.journal.close();
    // Durable: a new store lifetime sees the same.
    const again = await openJournal(h.file);
    assert.deepEqual((await again.read('listSessions')).map((s) => s.id), [keep.value.id]);
    await again.close();
  });

  it('refuses while the agent works on the chat, in this window or another, and deletes once it is done', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const workspace = tempDir('nac-ws-');
    const a = await openWindow(file, workspace, 'window-a');
    const b = await openWindow(file, workspace, 'window-b');
    try {
      const s = await a.runtime.createSession('local');
      assert.ok(s.ok);
      assert.ok((await a.runtime.send(s.value.id, 'wait')).ok);
      await waitFor('the run to start', () => a.complete.has('wait'));
      const here = await a.runtime.deleteSession(s.value.id);
      assert.equal(!here.ok && here.reason, 'busy');
      const elsewhere = await waitFor('the other window to see the run', async () => {
        const r = await b.runtime.deleteSession(s.value.id);
        return !r.ok && r.reason === 'busy' && /another VS Code window/.test(r.message) ? r : undefined;
      });
      assert.ok(elsewhere);
      assert.ok(await a.runtime.getSession(s.value.id), 'nothing was deleted');
      a.complete.get('wait')!();
      await a.runtime.whenIdle(s.value.id);
      assert.deepEqual(await b.runtime.deleteSession(s.value.id), { ok: true, value: undefined });
      assert.equal(await a.runtime.getSession(s.value.id), undefined);
    } finally {
      await closeWindows(a, b);
    }
  });
});

/**
 * Host A opens a chat in a fresh workspace and sends `prompt`; `whileAlive` acts on the run while A
 * lives (say, answers its request) and its value is returned; then A dies, writing nothing more, and
 * host B opens the same journal and workspace with A counted dead.
 */
async function acrossRestart<T>(prompt: string, whileAlive: (a: RuntimeHarness, sessionId: string) => Promise<T>): Promise<{ b: RuntimeHarness; s: { value: { id: string } }; workspace: string; value: T }> {
  const workspace = tempDir('nac-ws-');
  const a = await openLocal({ workspace, instance: 'host-a' });
  const s = await a.runtime.createSession('local');
  assert.ok(s.ok);
  await a.runtime.send(s.value.id, prompt);
  const value = await whileAlive(a, s.value.id);
  await a.close(); // host A dies: it writes nothing more
  const b = await openLocal({ file: a.file, workspace, instance: 'host-b', dead: ['host-a'] });
  return { b, s, workspace, value };
}

describe('chat runtime across a host restart', () => {
  it('a pending prompt at restart is denied as host_restarted; Retry asks again and Allow once runs it', async () => {
    const { b, s, workspace, value: firstRequest } = await acrossRestart('run touch proof.txt && echo made-it', (a, id) => pendingRequest(a, id));
    const t = await b.runtime.transcript(s.value.id);
    const failed = t.turns[0]!;
    assert.equal(failed.status, 'failed');
    assert.equal(failed.errorClass, 'sandbox_boundary_closed_by_restart');
    const card = failed.items.find((i) => i.type === 'boundary');
    assert.ok(card && card.type === 'boundary');
    assert.equal(card.id, firstRequest);
    assert.equal(card.status, 'denied');
    assert.equal(card.closureReason, 'host_restarted');
    // A persisted request with no live owner is never actionable.
    assert.deepEqual((await b.runtime.liveState(s.value.id)).actionableRequestIds, []);
    const late = await b.runtime.decide(s.value.id, firstRequest, 'allow_once');
    assert.equal(!late.ok && late.reason, 'already_decided');

    const retried = await b.runtime.retry(s.value.id, failed.id);
    assert.ok(retried.ok);
    const secondRequest = await pendingRequest(b, s.value.id);
    assert.notEqual(secondRequest, firstRequest);
    await b.runtime.decide(s.value.id, secondRequest, 'allow_once');
    await b.runtime.whenIdle(s.value.id);
    const after = await b.runtime.transcript(s.value.id);
    assert.equal(after.turns.length, 2);
    assert.equal(after.turns[1]!.origin, 'retry');
    assert.equal(after.turns[1]!.parentTurnId, failed.id);
    assert.equal(after.turns[1]!.prompt, failed.prompt);
    const inv = after.turns[1]!.items.find((i) => i.type === 'invocation');
    assert.equal(inv?.type === 'invocation' && inv.output, 'made-it\n');
    assert.equal(fs.existsSync(path.join(workspace, 'proof.txt')), true);
    // Retry is spent once used.
    const twice = await b.runtime.retry(s.value.id, failed.id);
    assert.equal(!twice.ok && twice.reason, 'not_retryable');
    await b.journal.close();
  });

  it('a plain interrupted turn is app_restarted and Continue starts a linked turn', async () => {
    const { b, s } = await acrossRestart('run sleep 5', async (a, id) => {
      await a.runtime.decide(id, await pendingRequest(a, id), 'allow_once');
    });
    const failed = (await b.runtime.transcript(s.value.id)).turns[0]!;
    assert.equal(failed.errorClass, 'app_restarted');
    const wrongAction = await b.runtime.retry(s.value.id, 'missing');
    assert.equal(!wrongAction.ok && wrongAction.reason, 'not_found');
    const continued = await b.runtime.continueTurn(s.value.id, failed.id);
    assert.ok(continued.ok);
    const requestId = await pendingRequest(b, s.value.id);
    await b.runtime.decide(s.value.id, requestId, 'deny');
    await b.runtime.whenIdle(s.value.id);
    const after = await b.runtime.transcript(s.value.id);
    assert.equal(after.turns[1]!.origin, 'continue');
    assert.equal(after.turns[1]!.parentTurnId, failed.id);
    await b.journal.close();
  });

  it('Continue says it starts over and asks again before re-running a command allowed for the session', async () => {
    const { b, s } = await acrossRestart('run sleep 5', async (a, id) => {
      await a.runtime.decide(id, await pendingRequest(a, id), 'allow_session');
    });
    const failed = (await b.runtime.transcript(s.value.id)).turns[0]!;
    assert.equal(failed.errorClass, 'app_restarted');
    assert.ok((await b.runtime.continueTurn(s.value.id, failed.id)).ok);
    // The session grant covers `sleep`, but the command may have run already: it asks again.
    const requestId = await pendingRequest(b, s.value.id);
    await b.runtime.decide(s.value.id, requestId, 'deny');
    await b.runtime.whenIdle(s.value.id);
    const said = textOf(await b.runtime.transcript(s.value.id), 1);
    assert.match(said, /starting it over/);
    assert.match(said, /I'll run `sleep 5` again\. It may have run already: if it needs your approval, I'll ask again first\./);
    assert.doesNotMatch(said, /Picking up where/);
    await b.journal.close();
  });

  it('Continue is refused for a turn closed by a boundary restart (Retry is the way)', async () => {
    const { b, s } = await acrossRestart('run touch z', (a, id) => pendingRequest(a, id));
    const failed = (await b.runtime.transcript(s.value.id)).turns[0]!;
    const r = await b.runtime.continueTurn(s.value.id, failed.id);
    assert.equal(!r.ok && r.reason, 'not_retryable');
    await b.journal.close();
  });
});

describe('chat runtime in two windows', () => {
  it('a decision taken in the other window reaches the agent once; a late click there says it was decided', async () => {
    const workspace = tempDir('nac-ws-');
    const a = await openLocal({ workspace, instance: 'window-a' });
    const b = await openLocal({ file: a.file, workspace, instance: 'window-b' });
    const s = await a.runtime.createSession('local');
    assert.ok(s.ok);
    const refreshed = new Promise<void>((resolve) => b.runtime.onNotification((n) => n.type === 'refresh' && n.sessionId === s.value.id && resolve()));
    await a.runtime.send(s.value.id, 'run touch cross.txt && echo crossed');
    const requestId = await pendingRequest(a, s.value.id);
    await refreshed; // window B heard about the chat without polling it
    // Window B shows the prompt as actionable (its owner, window A, is alive) and decides it.
    const inB = await waitFor('the request to be actionable in B', async () => (await b.runtime.liveState(s.value.id)).actionableRequestIds[0]);
    assert.equal(inB, requestId);
    assert.deepEqual(await b.runtime.decide(s.value.id, requestId, 'allow_once'), { ok: true, value: { approved: true } });
    await a.runtime.whenIdle(s.value.id);
    const t = await a.runtime.transcript(s.value.id);
    const inv = t.turns[0]!.items.find((i) => i.type === 'invocation');
    assert.equal(inv?.type === 'invocation' && inv.output, 'crossed\n');
    assert.equal(fs.readdirSync(workspace).filter((f) => f === 'cross.txt').length, 1);
    const late = await a.runtime.decide(s.value.id, requestId, 'deny');
    assert.equal(!late.ok && late.reason, 'already_decided');
    assert.deepEqual((await b.runtime.liveState(s.value.id)).actionableRequestIds, []);
    await a.journal.close();
    await b.journal.close();
  });

  it('a window never recovers a run another live window drives, and recovers it once that window dies', async () => {
    const workspace = tempDir('nac-ws-');
    const dead: string[] = [];
    const a = await openLocal({ workspace, instance: 'window-a' });
    const s = await a.runtime.createSession('local');
    assert.ok(s.ok);
    await a.runtime.send(s.value.id, 'run touch alive.txt');
    const requestId = await pendingRequest(a, s.value.id);
    const b = await openLocal({ file: a.file, workspace, instance: 'window-b', dead });
    assert.deepEqual(await b.runtime.recoverOrphans(), []);
    assert.equal((await b.journal.read('getBoundaryRequest', requestId))!.status, 'pending');
    // Window A dies (its process is gone): B's next check recovers the run.
    await a.close();
    dead.push('window-a');
    const recovered = await b.runtime.recoverOrphans();
    assert.deepEqual(recovered.map((r) => r.errorClass), ['sandbox_boundary_closed_by_restart']);
    assert.equal((await b.journal.read('getBoundaryRequest', requestId))!.closureReason, 'host_restarted');
    await b.journal.close();
  });
});

describe('chat runtime on a failing disk', () => {
  it('Stop still reaches the agent when the journal cannot write, and a replayed Stop does not interrupt twice', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const w = await openWindow(file, tempDir('nac-ws-'), 'host');
    const { runtime } = w;
    try {
      const s = await runtime.createSession('local');
      assert.ok(s.ok);
      assert.ok((await runtime.send(s.value.id, 'wait')).ok);
      fs.writeFileSync(`${file}.fault-enospc`, ''); // the disk fills up
      assert.deepEqual(await runtime.stop(s.value.id), { ok: true, value: { stopped: true } });
      assert.deepEqual(await runtime.stop(s.value.id), { ok: true, value: { stopped: false } });
      await runtime.whenIdle(s.value.id);
      assert.equal(w.aborted.length, 1);
      // Other actions are refused with a clear message; nothing acknowledged is lost.
      const refused = await runtime.send(s.value.id, 'help');
      assert.equal(!refused.ok && refused.reason, 'storage_failed');
      assert.match(!refused.ok ? refused.message : '', /disk is full/);
      fs.rmSync(`${file}.fault-enospc`);
      assert.equal((await runtime.transcript(s.value.id)).turns[0]!.prompt, 'wait');
    } finally {
      fs.rmSync(`${file}.fault-enospc`, { force: true });
      await closeWindows(w);
    }
  });
});

describe('chat runtime: a run whose end the journal refused', () => {
  it('is ended in the journal once the disk has room again, so other windows stop seeing it live', async () => {
    // A run stopped on a full disk stayed "running" in the journal while its window lived, so every
    // other window kept showing the chat busy (and refused sends).
    const file = path.join(tempDir(), 'journal.sqlite');
    const w = await openWindow(file, tempDir('nac-ws-'), 'host');
    const { journal, runtime } = w;
    try {
      const s = await runtime.createSession('local');
      assert.ok(s.ok);
      assert.ok((await runtime.send(s.value.id, 'wait')).ok);
      fs.writeFileSync(`${file}.fault-enospc`, ''); // the disk fills up
      assert.deepEqual(await runtime.stop(s.value.id), { ok: true, value: { stopped: true } });
      await runtime.whenIdle(s.value.id);
      assert.equal((await journal.read('listRunsInFlight')).length, 1, 'its end could not be written');
      await runtime.recoverOrphans(); // the periodic check, disk still full
      assert.equal((await journal.read('listRunsInFlight')).length, 1);
      fs.rmSync(`${file}.fault-enospc`); // room again
      await runtime.recoverOrphans();
      assert.deepEqual(await journal.read('listRunsInFlight'), [], 'the run is ended');
      const turn = (await runtime.transcript(s.value.id)).turns[0]!;
      assert.equal(turn.status, 'stopped', 'with the end it really had');
    } finally {
      fs.rmSync(`${file}.fault-enospc`, { force: true });
      await closeWindows(w);
    }
  });
});

describe('tool runtime: diffs of writes outside the workspace', () => {
  it('name the file by its absolute path, not by a path climbing out of the workspace', async () => {
    // Found by a fresh user: the card read `+++ b/../../../x.txt`.
    const outside = tempDir('nac-outside-');
    const target = path.join(outside, 'x.txt');
    const h = await openLocal();
    const s = await h.runtime.createSession('local');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, `write ${target}\n\`\`\`\nhello\n\`\`\``);
    const requestId = await pendingRequest(h, s.value.id);
    const row = (await h.journal.read('getBoundaryRequest', requestId))!;
    assert.equal(row.kind, 'write_outside_workspace');
    assert.equal(row.detail, `--- /dev/null\n+++ ${target}\n@@ -0,0 +1,1 @@\n+hello\n`);
    await h.runtime.decide(s.value.id, requestId, 'deny');
    await h.runtime.whenIdle(s.value.id);
    // The agent says what did not happen (it read "Writing was not run: …").
    const said = items(await h.runtime.transcript(s.value.id), 0).filter((i) => i.type === 'text').map((i) => (i as { text: string }).text).join('');
    assert.match(said, /Nothing was written: the request was denied\.$/);
    assert.equal(fs.existsSync(target), false);
    await h.journal.close();
  });
});

describe('tool runtime: symlinks', () => {
  it('a symlink inside the workspace that leads outside needs approval to read or write through it', async () => {
    const outside = tempDir('nac-outside-');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'top secret\n');
    const h = await openLocal();
    fs.symlinkSync(outside, path.join(h.workspace, 'escape'));
    const s = await h.runtime.createSession('local');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'read escape/secret.txt');
    const requestId = await pendingRequest(h, s.value.id);
    const row = (await h.journal.read('getBoundaryRequest', requestId))!;
    assert.equal(row.kind, 'read_outside_workspace');
    assert.equal(row.subject, path.join(fs.realpathSync(outside), 'secret.txt'));
    await h.runtime.decide(s.value.id, requestId, 'deny');
    await h.runtime.whenIdle(s.value.id);
    const inv = (await h.runtime.transcript(s.value.id)).turns[0]!.items.find((i) => i.type === 'invocation');
    assert.equal(inv?.type === 'invocation' && inv.output, '');
    // Writing a new file through the link asks too.
    await h.runtime.send(s.value.id, 'write escape/new.txt\n```\nx\n```');
    const writeRequest = await pendingRequest(h, s.value.id);
    assert.equal((await h.journal.read('getBoundaryRequest', writeRequest))!.kind, 'write_outside_workspace');
    await h.runtime.decide(s.value.id, writeRequest, 'deny');
    await h.runtime.whenIdle(s.value.id);
    assert.equal(fs.existsSync(path.join(outside, 'new.txt')), false);
    // An allowlisted command reading through the link asks as well.
    await h.runtime.send(s.value.id, 'run cat escape/secret.txt');
    const catRequest = await pendingRequest(h, s.value.id);
    assert.match((await h.journal.read('getBoundaryRequest', catRequest))!.why, /outside the workspace \(escape\/secret.txt\)/);
    await h.runtime.decide(s.value.id, catRequest, 'deny');
    await h.runtime.whenIdle(s.value.id);
    // A plain file of the workspace still reads without asking.
    fs.writeFileSync(path.join(h.workspace, 'plain.txt'), 'plain\n');
    await h.runtime.send(s.value.id, 'run cat plain.txt');
    await h.runtime.whenIdle(s.value.id);
    const last = (await h.runtime.transcript(s.value.id)).turns.at(-1)!;
    assert.equal(last.items.some((i) => i.type === 'boundary'), false);
    await h.journal.close();
  });
});

describe('tool runtime: writes show their diff', () => {
  it('a write of an existing file carries the unified diff of the change', async () => {
    const h = await openLocal();
    fs.writeFileSync(path.join(h.workspace, 'notes.md'), 'one\ntwo\nthree\n');
    const s = await h.runtime.createSession('local');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'write notes.md\n```\none\n2\nthree\n```');
    await h.runtime.whenIdle(s.value.id);
    const inv = (await h.runtime.transcript(s.value.id)).turns[0]!.items.find((i) => i.type === 'invocation');
    assert.equal(inv?.type === 'invocation' && inv.diff, '--- a/notes.md\n+++ b/notes.md\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n');
    assert.equal(fs.readFileSync(path.join(h.workspace, 'notes.md'), 'utf8'), 'one\n2\nthree\n');
    await h.journal.close();
  });
});
