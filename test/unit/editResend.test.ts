/**
 * Edit and resend through the runtime and a journal on disk (schema 10): the last prompt, once its
 * reply is over, is sent again edited as a new turn linked to the one it replaces; the old turn stays;
 * a client id given twice makes one turn (the outbox's rule); a turn that is not the last, or a chat
 * whose agent works, refuses it and nothing is written; the history agents get leaves the replaced
 * request out (with the failed turns it retried), and the agent is told which prompt was replaced.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { TurnRecord } from '../../src/core/events';
import { replacedTurnIds } from '../../src/journal/operations/pages';
import type { Agent, AgentTurnRequest } from '../../src/runtime/agent';
import { chatMarkdown } from '../../src/runtime/chatExport';
import { openRuntime } from './harness';

/** An agent that answers `reply to <prompt>` and records each request; `hold` makes it wait until released. */
function recordingAgent() {
  const requests: AgentTurnRequest[] = [];
  let hold: Promise<void> | undefined;
  let release = () => undefined as void;
  const agent: Agent = {
    provider: 'local',
    label: 'Recorder',
    async runTurn(request, ctx) {
      requests.push(request);
      ctx.text(`reply to ${request.prompt}`);
      if (hold) await Promise.race([hold, new Promise((r) => ctx.signal.addEventListener('abort', r))]);
      return { status: 'completed' };
    },
  };
  return {
    agent,
    requests,
    holdNext: () => (hold = new Promise<void>((r) => (release = () => { hold = undefined; r(); }))),
    release: () => release(),
  };
}

async function chatWith(agent: Agent) {
  const h = await openRuntime({ agentFor: () => agent });
  const chat = await h.runtime.createSession('local');
  assert.ok(chat.ok);
  const id = chat.value.id;
  const send = async (text: string, clientId: string, replacesTurnId?: string) => {
    const r = await h.runtime.submit(id, { clientId, text, ...(replacesTurnId ? { replacesTurnId } : {}) });
    await h.runtime.whenIdle(id);
    return r;
  };
  return { h, id, send };
}

describe('edit and resend', () => {
  it('sends the edited prompt as a new turn linked to the one it replaces, which stays; the history leaves the old request out', async () => {
    const rec = recordingAgent();
    const { h, id, send } = await chatWith(rec.agent);
    try {
      const first = await send('list the files', 'c1');
      assert.ok(first.ok && first.value.kind === 'started');
      const firstId = first.value.turnId;
      const resent = await send('list the files, sorted by size', 'c2', firstId);
      assert.ok(resent.ok && resent.value.kind === 'started', JSON.stringify(resent));
      const turns = await h.journal.read('listTurns', id);
      assert.deepEqual(turns.map((t) => [t.prompt, t.status, t.replacesTurnId]), [
        ['list the files', 'completed', null],
        ['list the files, sorted by size', 'completed', firstId],
      ], 'the old turn stays as it was');
      const asked = rec.requests[1]!;
      assert.deepEqual(asked.history, [], 'the replaced request is not in the history as if still asked');
      assert.deepEqual(asked.replaces, { prompt: 'list the files' }, 'the agent is told which prompt was replaced');
      await send('and now the biggest one', 'c3');
      assert.deepEqual(rec.requests[2]!.history.map((e) => e.text), ['list the files, sorted by size', 'reply to list the files, sorted by size']);
      assert.equal(rec.requests[2]!.replaces, undefined);
      const md = (await chatMarkdown(h.runtime, (await h.runtime.getSession(id))!)).markdown;
      assert.match(md, /## Turn 1\n\n\*Sent [^\n]* · Completed · Edited: replaced by \[turn 2\]\(#turn-2\)\*/, 'the export says which turn replaced it');
      assert.match(md, /## Turn 2\n\n\*Sent [^\n]* · Completed · Edited and sent again: replaces \[turn 1\]\(#turn-1\)\*/);
    } finally {
      await h.close();
    }
  });

  it('is idempotent by client id: the same message posted again makes no second turn; another text under that id is refused', async () => {
    const rec = recordingAgent();
    const { h, id, send } = await chatWith(rec.agent);
    try {
      const first = await send('one', 'c1');
      assert.ok(first.ok && first.value.kind === 'started');
      const resent = await send('one, edited', 'c2', first.value.turnId);
      assert.ok(resent.ok && resent.value.kind === 'started');
      const again = await send('one, edited', 'c2', first.value.turnId);
      assert.deepEqual(again.ok && again.value, { kind: 'duplicate', turnId: resent.value.turnId });
      const other = await send('something else', 'c2', first.value.turnId);
      assert.equal(!other.ok && other.reason, 'conflict');
      assert.equal((await h.journal.read('listTurns', id)).length, 2);
      assert.equal(rec.requests.length, 2, 'the agent was asked twice, not three times');
    } finally {
      await h.close();
    }
  });

  it('refuses a turn that is not the last, or while the agent works, and writes nothing', async () => {
    const rec = recordingAgent();
    const { h, id, send } = await chatWith(rec.agent);
    try {
      const first = await send('one', 'c1');
      const second = await send('two', 'c2');
      assert.ok(first.ok && first.value.kind === 'started' && second.ok && second.value.kind === 'started');
      const old = await send('one again', 'c3', first.value.turnId);
      assert.equal(!old.ok && old.reason, 'not_actionable');
      assert.match(!old.ok ? old.message : '', /Only the last request/);
      rec.holdNext();
      const running = await h.runtime.submit(id, { clientId: 'c4', text: 'three' });
      assert.ok(running.ok && running.value.kind === 'started');
      const whileRunning = await h.runtime.submit(id, { clientId: 'c5', text: 'three, edited', replacesTurnId: running.value.turnId });
      assert.equal(!whileRunning.ok && whileRunning.reason, 'not_actionable');
      assert.match(!whileRunning.ok ? whileRunning.message : '', /Wait for the reply to end/);
      rec.release();
      await h.runtime.whenIdle(id);
      const foreign = await send('x', 'c6', 'no-such-turn');
      assert.equal(!foreign.ok && foreign.reason, 'not_actionable');
      assert.deepEqual((await h.journal.read('listTurns', id)).map((t) => t.prompt), ['one', 'two', 'three'], 'nothing was written');
      assert.deepEqual(await h.runtime.queue(id), [], 'an edit is never queued');
      assert.equal(await h.journal.read('getQueuedPrompt', 'c5'), undefined);
    } finally {
      await h.close();
    }
  });

  it('leaves out of the history the replaced turn and the failed turns it retried or continued', () => {
    const turn = (id: string, over: Partial<TurnRecord> = {}): TurnRecord =>
      ({ id, sessionId: 's', prompt: id, origin: 'prompt', parentTurnId: null, status: 'completed', errorClass: null, seq: 1, createdAt: 1, ...over });
    const replaced = replacedTurnIds([
      turn('a'),
      turn('b', { status: 'failed' }),
      turn('c', { origin: 'retry', parentTurnId: 'b' }),
      turn('d', { replacesTurnId: 'c' }),
    ]);
    assert.deepEqual([...replaced].sort(), ['b', 'c']);
  });
});
