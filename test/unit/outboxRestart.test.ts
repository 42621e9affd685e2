/**
 * The outbox across restarts and crashes: each delivery state through a simulated restart (three
 * store lifetimes: the window that dies, the one that recovers, the reader), writer processes
 * SIGKILLed mid-way (the crash harness), and migration 4 → 5 keeping every row.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { errorClassShortLabel } from '../../src/core/errorClassWords';
import { heldWords } from '../../src/core/outbox';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/journal/schema';
import { loadSqlJs } from '../../src/journal/sqljs';
import type { Agent, AgentTurnOutcome } from '../../src/runtime/agent';
import { recoverOrphanedRuns } from '../../src/runtime/recovery';
import { openRuntime } from './harness';
import { lifetime, openJournal, runWriter, trackedTempDir, waitFor, WASM_PATH } from './helpers';

/** An agent that acknowledges prompts not starting with `unacked` (`promptDelivered`) and then waits for ever. */
function waitingAgent(ran: string[]): Agent {
  return {
    provider: 'local',
    label: 'waiting agent',
    runTurn: async (request, ctx) => {
      ran.push(request.prompt);
      if (!request.prompt.startsWith('unacked')) await ctx.promptDelivered();
      return new Promise<AgentTurnOutcome>(() => undefined);
    },
  };
}

describe('the outbox across a restart', () => {
  it('queued → held (restarted) and never sent; sending → prompt_delivery_unknown; delivered → app_restarted', async () => {
    const file = path.join(trackedTempDir(), 'journal.sqlite');
    // Lifetime 1: window A runs three chats, one with a message queued, then dies (disposed).
    const ranA: string[] = [];
    const a = await openRuntime({ file, instance: 'window-a', agentFor: () => waitingAgent(ranA) });
    const chat = async (prompt: string): Promise<string> => {
      const s = await a.runtime.createSession('local');
      assert.ok(s.ok);
      const r = await a.runtime.submit(s.value.id, { clientId: `id-${prompt}`, text: prompt });
      assert.equal(r.ok && r.value.kind, 'started');
      return s.value.id;
    };
    const queued = await chat('acked, with a queue');
    const unacked = await chat('unacked prompt');
    const acked = await chat('acked prompt');
    const q = await a.runtime.submit(queued, { clientId: 'id-next', text: 'next' });
    assert.equal(q.ok && q.value.kind, 'queued');
    await waitFor('the deliveries', async () => (await a.journal.read('listTurns', acked))[0]!.delivery === 'delivered');
    assert.equal((await a.journal.read('listTurns', unacked))[0]!.delivery, 'sending');
    await a.close();
    // Lifetime 2: window B starts with A dead and recovers its runs.
    const ranB: string[] = [];
    const b = await openRuntime({ file, instance: 'window-b', dead: ['window-a'], agentFor: () => waitingAgent(ranB) });
    const queueNotices: string[] = [];
    b.runtime.onNotification((n) => void (n.type === 'queue' && queueNotices.push(n.sessionId)));
    assert.deepEqual((await b.runtime.recoverOrphans()).length, 0, 'start() recovered them already');
    await b.close();
    // Lifetime 3: what the journal holds.
    await lifetime(file, async (j) => {
      const only = async (id: string) => (await j.read('listTurns', id)).map((t) => [t.prompt, t.delivery, t.errorClass]);
      assert.deepEqual(await only(queued), [['acked, with a queue', 'delivered', 'app_restarted']]);
      assert.deepEqual(await only(unacked), [['unacked prompt', 'sending', 'prompt_delivery_unknown']]);
      assert.deepEqual(await only(acked), [['acked prompt', 'delivered', 'app_restarted']]);
      const waiting = await j.read('listQueuedPrompts', queued);
      assert.deepEqual(waiting.map((p) => [p.text, p.state, p.hold, p.sendNow]), [['next', 'queued', 'restarted', false]]);
      assert.equal(heldWords(waiting[0]!.hold!), 'Not sent: the window reloaded or restarted');
      assert.equal(errorClassShortLabel('prompt_delivery_unknown'), 'Not confirmed by the agent');
    });
    assert.deepEqual(ranB, [], 'nothing was sent after the restart');
    assert.deepEqual(ranA, ['acked, with a queue', 'unacked prompt', 'acked prompt']);
  });
});

describe('the outbox under the crash harness', () => {
  it('a writer killed between sending and delivered: recovery says prompt_delivery_unknown, never delivered', async () => {
    const file = path.join(trackedTempDir(), 'journal.sqlite');
    const run = await runWriter([file, 'sending', '1', 'w'], { killAfterFirstAckMs: 0, killAfterMs: 60_000 });
    assert.equal(run.signal, 'SIGKILL', run.err);
    assert.deepEqual(run.acks, [0]);
    const recovered = await lifetime(file, (j) => recoverOrphanedRuns(j, { selfInstanceId: 'self', isAlive: () => false, now: () => 1000 }));
    assert.deepEqual(recovered.map((r) => [r.turnId, r.errorClass]), [['w-turn-0', 'prompt_delivery_unknown']]);
    await lifetime(file, async (j) => {
      const turn = (await j.read('getTurn', 'w-turn-0'))!;
      assert.deepEqual([turn.status, turn.delivery, turn.errorClass, turn.clientId, turn.sentFrom], ['failed', 'sending', 'prompt_delivery_unknown', 'w-msg-0', 'composer']);
    });
  });

  it('a writer killed while runs end and claim: every completed run moved the queue, never a finished run with the queue unmoved', async () => {
    for (let trial = 0; trial < 3; trial++) {
      const file = path.join(trackedTempDir(), 'journal.sqlite');
      // The writer ends runs until it is killed (count far beyond what it reaches), queueing one more message after each end.
      const run = await runWriter([file, 'queue', '1000000', `t${trial}`], { killAfterFirstAckMs: 40 + trial * 60, killAfterMs: 60_000 });
      assert.ok(run.acks.length > 0, run.err);
      assert.equal(run.signal, 'SIGKILL', `trial ${trial}: the writer was killed (after ${run.acks.length} ends)`);
      await lifetime(file, async (j) => {
        const turns = await j.read('listTurns', 'shared');
        const completed = turns.filter((t) => t.status === 'completed').length;
        const running = turns.filter((t) => t.status === 'running');
        const queued = await j.read('listQueuedPrompts', 'shared');
        const acked = run.acks[run.acks.length - 1]!;
        assert.ok(completed >= acked, `trial ${trial}: acknowledged ${acked} ends, the journal has ${completed}`);
        // Each completed end claimed the next message in its own transaction.
        assert.equal(turns.length, completed + 1, `trial ${trial}: one turn claimed per completed end`);
        assert.equal(running.length, 1, `trial ${trial}: exactly one running turn`);
        assert.equal(running[0]!.prompt, completed === 0 ? 'first' : `message ${completed}`);
        // The queue starts right after the running message: it moved once per end, never skipped or
        // repeated one; it holds 40 messages, or 39 when the kill came between an end and the next submit.
        assert.ok(queued.length === 40 || queued.length === 39, `trial ${trial}: ${queued.length} messages queued`);
        assert.deepEqual(queued.map((p) => p.text), Array.from({ length: queued.length }, (_, i) => `message ${completed + 1 + i}`));
      });
    }
  });
});

describe('journal: delivery states', () => {
  it('a turn is sending until its agent\'s first event or acknowledgement; a Stop asked elsewhere or the run\'s end is no acknowledgement', async () => {
    const file = path.join(trackedTempDir(), 'journal.sqlite');
    await lifetime(file, async (j) => {
      assert.ok((await j.write('createSession', { id: 's', title: 'Chat', provider: 'local', createdAt: 1, updatedAt: 1 })).ok);
      const start = async (n: number) => {
        const r = await j.write('startTurn', {
          turn: { id: `t${n}`, sessionId: 's', prompt: `p${n}`, origin: 'retry', parentTurnId: null, createdAt: n },
          run: { id: `r${n}`, instanceId: 'i', provider: 'local' },
        });
        assert.ok(r.ok);
      };
      const delivery = async (n: number) => (await j.read('getTurn', `t${n}`))!.delivery;
      await start(1);
      assert.equal(await delivery(1), 'sending');
      assert.ok((await j.write('requestStop', 'r1', 'other-window', 'Stop was pressed elsewhere.', 2)).ok);
      assert.equal(await delivery(1), 'sending', 'a Stop asked by another window is not the agent');
      assert.ok((await j.write('appendEvents', 'r1', [{ kind: 'text', payload: { text: 'hello' } }], 3)).ok);
      assert.equal(await delivery(1), 'delivered', 'the first event of the agent\'s work');
      assert.ok((await j.write('finishRun', { runId: 'r1', status: 'completed', turnStatus: 'completed', at: 4 })).ok);
      await start(5);
      assert.ok((await j.write('finishRun', { runId: 'r5', status: 'failed', turnStatus: 'failed', errorClass: 'agent_error', at: 6 })).ok);
      assert.equal(await delivery(5), 'sending', 'a run that ended before its agent saw the prompt');
      await start(7);
      assert.deepEqual(await j.write('markDelivered', 't7'), { ok: true, value: { marked: true } });
      assert.deepEqual(await j.write('markDelivered', 't7'), { ok: true, value: { marked: false } }, 'idempotent');
      assert.equal(await delivery(7), 'delivered');
      const unknown = await j.write('markDelivered', 'nope');
      assert.deepEqual(unknown.ok ? 'marked' : [unknown.reason, unknown.message], ['not_found', 'No turn with id nope.']);
    });
  });
});

describe('journal: migration 5 (the outbox)', () => {
  it('keeps every row of a schema-4 journal; its turns have no client id, delivery state or sender', async () => {
    const SQL = await loadSqlJs(WASM_PATH);
    const db = new SQL.Database();
    for (const m of MIGRATIONS.filter((m) => m.version <= 4)) db.exec(`${m.sql}; PRAGMA user_version = ${m.version};`);
    db.run("INSERT INTO sessions (id, title, provider, created_at, updated_at, workspace) VALUES ('s', 'Chat', 'local', 1, 1, '/w')");
    for (let t = 0; t < 30; t++) {
      db.run("INSERT INTO turns (id, session_id, prompt, origin, status, created_at) VALUES (?, 's', ?, 'prompt', 'completed', ?)", [`t${t}`, `prompt ${t}`, t]);
      db.run("INSERT INTO runs (id, turn_id, session_id, instance_id, provider, status, started_at) VALUES (?, ?, 's', 'i', 'local', 'completed', ?)", [`r${t}`, `t${t}`, t]);
      db.run("INSERT INTO events (run_id, seq, session_id, turn_id, kind, payload, at) VALUES (?, 1, 's', ?, 'text', ?, ?)", [`r${t}`, `t${t}`, JSON.stringify({ text: `reply ${t}` }), t]);
    }
    const dump = (tables: readonly string[]) => Object.fromEntries(tables.map((t) => [t, JSON.stringify(db.exec(`SELECT * FROM ${t} ORDER BY rowid`)[0]?.values ?? [])]));
    const before = dump(['sessions', 'runs', 'events']);
    const file = path.join(trackedTempDir(), 'journal.sqlite');
    fs.writeFileSync(file, db.export());
    db.close();
    const journal = await openJournal(file);
    try {
      assert.deepEqual([journal.report.versionFound, journal.report.version], [4, SCHEMA_VERSION]);
      const turns = await journal.read('listTurns', 's');
      assert.deepEqual(turns.map((t) => [t.id, t.prompt, t.status, t.clientId, t.delivery, t.sentFrom]),
        Array.from({ length: 30 }, (_, t) => [`t${t}`, `prompt ${t}`, 'completed', null, null, null]));
      assert.equal((await journal.read('listEvents', 's')).length, 30);
      assert.deepEqual(await journal.read('listQueuedPrompts', 's'), []);
      const hits = await journal.read('searchChats', 'reply');
      assert.equal(hits.ok && hits.value.length > 0, true, 'the search index still answers');
    } finally {
      await journal.close();
    }
    const SQL2 = await loadSqlJs(WASM_PATH);
    const after = new SQL2.Database(fs.readFileSync(file));
    try {
      for (const [table, rows] of Object.entries(before)) assert.equal(JSON.stringify(after.exec(`SELECT * FROM ${table} ORDER BY rowid`)[0]?.values ?? []), rows, table);
    } finally {
      after.close();
    }
  });
});
