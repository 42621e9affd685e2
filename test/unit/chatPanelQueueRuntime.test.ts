/**
 * The queue through the real panel and the real runtime (a real journal on disk): what the view
 * posts (`send` with its clientId, the queue's actions) and what it is sent back, folded by the
 * view's own reducer. Enter while the agent works queues; the reply's end sends it; a rebuilt view
 * posting a message again makes no second turn; another text under the same id is refused; Send now
 * stops the reply and sends; after a Stop the rest waits for Send or Discard; a queue made in
 * another window reaches this window's view. `vscode` is replaced by the little the panels touch.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { hostMessageProblem } from '../../src/protocol/checkHostMessage';
import type { Agent, AgentTurnContext } from '../../src/runtime/agent';
import { openLocal, openRuntime, type RuntimeHarness } from './harness';
import { nextPanel, openChatPanel, type Posted } from './fakePanels';
import { trackedTempDir, waitFor } from './helpers';


/**
 * An agent whose replies run until `finish()` or a Stop. `finish` waits until `count` replies have
 * begun (the runtime hands a turn to its agent after journaling it), then ends the one running.
 */
function heldAgent() {
  let running: (() => void) | undefined;
  const prompts: string[] = [];
  const agent: Agent = {
    provider: 'local', label: 'held agent',
    runTurn: (request, ctx: AgentTurnContext) => new Promise((resolve) => {
      prompts.push(request.prompt);
      ctx.text(`working on ${request.prompt}`);
      const end = () => {
        if (running === end) running = undefined;
        resolve({ status: 'completed' });
      };
      running = end;
      ctx.signal.addEventListener('abort', end);
    }),
  };
  const finish = async (count: number) => {
    await waitFor(`reply ${count} to begin`, () => prompts.length >= count && running);
    running!();
  };
  return { agent, prompts, finish };
}

/** Every message the panel posted passes the view's own check (turns carry the outbox's fields). */
function allWellFormed(posted: readonly Posted[]): void {
  for (const m of posted) assert.equal(hostMessageProblem(m), null, JSON.stringify(m).slice(0, 300));
}

/** The answers (succeeded / error) the view got, without their seq and texts. */
function answers(posted: readonly Posted[]) {
  return posted.filter((m) => m.type === 'succeeded' || m.type === 'error')
    .map((m) => (m.type === 'error' ? { type: m.type, code: m.code, action: m.action, clientId: m.clientId } : { ...m, seq: undefined }));
}

/** The chat opened in window `h` (`openChatPanel`). */
function openChat(h: RuntimeHarness, panel = nextPanel()) {
  return openChatPanel(h.runtime, panel);
}

describe('the queue through the panel and the runtime', () => {
  it('Enter while the agent works queues; the end of the reply sends it; posted again, it makes no second turn', async () => {
    const held = heldAgent();
    const h = await openRuntime({ agentFor: () => held.agent });
    const { sessionId, panel, dispose } = await openChat(h);
    try {
      panel.receive({ type: 'send', clientId: 'c1', text: 'first' });
      await waitFor('the first reply to run', () => panel.view().live.running);
      panel.receive({ type: 'send', clientId: 'c2', text: 'second' });
      await waitFor('the queue in the view', () => panel.view().queue.length === 1);
      assert.deepEqual(panel.view().queue.map(({ clientId, text, hold, sendNow }) => ({ clientId, text, hold, sendNow })), [{ clientId: 'c2', text: 'second', hold: null, sendNow: false }]);
      // A view rebuilt before it saw the answer posts it again, with the same id; another text under it is refused.
      panel.receive({ type: 'send', clientId: 'c2', text: 'second' });
      panel.receive({ type: 'send', clientId: 'c2', text: 'something else' });
      await waitFor('the four answers', () => answers(panel.posted).length === 4);
      assert.deepEqual(answers(panel.posted), [
        { type: 'succeeded', action: 'send', clientId: 'c1', queued: false, seq: undefined },
        { type: 'succeeded', action: 'send', clientId: 'c2', queued: true, seq: undefined },
        { type: 'succeeded', action: 'send', clientId: 'c2', queued: true, seq: undefined },
        { type: 'error', code: 'conflict', action: 'send', clientId: 'c2' },
      ]);
      assert.equal((await h.runtime.queue(sessionId)).length, 1, 'one queued message, not two');

      await held.finish(1);
      await waitFor('the queued message to be sent', () => panel.view().transcript.turns.length === 2 && panel.view().queue.length === 0);
      const sent = panel.view().transcript.turns[1]!;
      assert.equal(sent.prompt, 'second');
      assert.equal(sent.sentFrom, 'queue');
      await held.finish(2);
      assert.deepEqual(held.prompts, ['first', 'second']);
      await h.runtime.whenIdle(sessionId);
      panel.receive({ type: 'send', clientId: 'c2', text: 'second' });
      await waitFor('the fifth answer', () => answers(panel.posted).length === 5);
      assert.deepEqual(answers(panel.posted).at(-1), { type: 'succeeded', action: 'send', clientId: 'c2', queued: false, seq: undefined });
      assert.equal((await h.runtime.transcript(sessionId)).turns.length, 2, 'no second turn of a message posted again');
      allWellFormed(panel.posted);
    } finally {
      dispose();
      await h.close();
    }
  });

  it('Send now stops the reply and sends, the rest staying queued; after a Stop the rest waits for Send or Discard', async () => {
    const held = heldAgent();
    const h = await openRuntime({ agentFor: () => held.agent });
    const { sessionId, panel, settled, dispose } = await openChat(h);
    try {
      panel.receive({ type: 'send', clientId: 'c1', text: 'long job' });
      await waitFor('the reply to run', () => panel.view().live.running);
      panel.receive({ type: 'send', clientId: 'c2', text: 'later' });
      panel.receive({ type: 'send', clientId: 'c3', text: 'urgent' });
      await waitFor('two queued', () => panel.view().queue.length === 2);
      panel.receive({ type: 'sendQueued', clientId: 'c3' });
      await waitFor('the urgent message to run', () => panel.view().transcript.turns[1]?.prompt === 'urgent' && panel.view().live.running);
      const [first, urgent] = panel.view().transcript.turns;
      assert.equal(first!.status, 'stopped', 'Send now stopped the reply');
      assert.equal(urgent!.sentFrom, 'send_now');
      assert.deepEqual(panel.view().queue.map((p) => [p.clientId, p.hold]), [['c2', null]], 'the rest stays queued behind it: Send now is no Stop of the queue');

      // The run is live before its agent has the prompt (the runtime reads the history first): a
      // Stop in between ends it without the agent, and the replies counted below would be one short.
      await waitFor('the agent to have the urgent message', () => held.prompts.includes('urgent'));
      panel.receive({ type: 'stop' });
      await waitFor('the stop', () => !panel.view().live.running);
      await settled();
      assert.deepEqual(panel.view().queue.map((p) => [p.clientId, p.hold]), [['c2', 'stopped']], 'held, not sent');
      assert.equal((await h.runtime.transcript(sessionId)).turns.length, 2);

      panel.receive({ type: 'editQueued', clientId: 'c2', text: 'later, edited' });
      await waitFor('the edit', () => panel.view().queue[0]?.text === 'later, edited');
      panel.receive({ type: 'sendQueued', clientId: 'c2' });
      await waitFor('the held message to be sent', () => panel.view().transcript.turns[2]?.prompt === 'later, edited');
      panel.receive({ type: 'discardQueued', clientId: 'c2' });
      await waitFor('the answer to Discard', () => answers(panel.posted).length === 8);
      assert.deepEqual(answers(panel.posted).slice(3), [
        { type: 'succeeded', action: 'sendQueued', clientId: 'c3', seq: undefined },
        { type: 'succeeded', action: 'stop', seq: undefined },
        { type: 'succeeded', action: 'editQueued', clientId: 'c2', seq: undefined },
        { type: 'succeeded', action: 'sendQueued', clientId: 'c2', seq: undefined },
        { type: 'error', code: 'not_actionable', action: 'discardQueued', clientId: 'c2' },
      ]);
      await held.finish(3);
      await h.runtime.whenIdle(sessionId);
      allWellFormed(panel.posted);
    } finally {
      dispose();
      await h.close();
    }
  });

  it('a message queued in another window reaches this window\'s view', async () => {
    const workspace = trackedTempDir('nac-ws-');
    const held = heldAgent();
    const a = await openRuntime({ workspace, instance: 'window-a', agentFor: () => held.agent });
    const b = await openLocal({ file: a.file, workspace, instance: 'window-b' });
    const { sessionId, panel, dispose } = await openChat(a);
    try {
      panel.receive({ type: 'send', clientId: 'c1', text: 'long job' });
      await waitFor('the reply to run in window B too', async () => (await b.runtime.liveState(sessionId)).running);
      const queued = await b.runtime.submit(sessionId, { clientId: 'from-b', text: 'from window B' });
      assert.equal(queued.ok && queued.value.kind, 'queued');
      await waitFor('window A\'s view to show it', () => panel.view().queue[0]?.clientId === 'from-b', 10_000);
      assert.equal(panel.view().queue[0]!.text, 'from window B');
      await held.finish(1);
      await waitFor('window A to send it', () => panel.view().transcript.turns[1]?.prompt === 'from window B', 10_000);
      await held.finish(2);
      await a.runtime.whenIdle(sessionId);
      allWellFormed(panel.posted);
    } finally {
      dispose();
      await a.close();
      b.runtime.dispose();
      await b.journal.close();
    }
  });
});
