/**
 * What another window writes to the run this window drives reaches this window's chat view, even
 * when this window writes to that run right after it: the view drops an event whose `seq` is not
 * above the last one it applied for its run (idempotent replays), so the other window's event must
 * reach it before this window's later ones. Two windows (two journals on one file, the local agent),
 * the real `ChatPanels` with `vscode` replaced by the little it touches, and the view's own reducer
 * folding every message the panel posted.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { STOP_ELSEWHERE_NOTICE } from '../../src/runtime/chatRuntime';
import { INITIAL_VIEW_STATE, reduceHostMessage } from '../../webview/state';
import type { Journal } from '../../src/journal/journal';
import type { Agent, AgentTurnContext } from '../../src/runtime/agent';
import { openLocal, openRuntime, pendingRequest } from './harness';
import { ChatPanels, nextPanel } from './fakePanels';
import { trackedTempDir, waitFor } from './helpers';


describe('changes from another window in the view of the window driving the run', () => {
  it('Stop pressed in window B while window A\'s run waits on an approval: A\'s view shows B\'s notice', async () => {
    const workspace = trackedTempDir('nac-ws-');
    const { posted, receive } = nextPanel();
    const a = await openLocal({ workspace, instance: 'window-a' });
    const b = await openLocal({ file: a.file, workspace, instance: 'window-b' });
    const panels = new ChatPanels(Promise.resolve(a.runtime), {} as never, () => undefined, {} as never);
    const binding = panels.bind(a.runtime);
    try {
      const s = await a.runtime.createSession('local');
      assert.ok(s.ok);
      const chat = await panels.open(s.value);
      receive({ type: 'ready' });
      await waitFor('the snapshot', () => posted.some((m) => m.type === 'snapshot'));
      receive({ type: 'send', text: 'run touch made.txt', clientId: 'c-touch' });
      await pendingRequest(b, s.value.id);
      // B's notice is the run's next event; A then closes the waiting request (the event after it).
      assert.deepEqual(await b.runtime.stop(s.value.id), { ok: true, value: { stopped: true } });
      await waitFor('window A to end the run', async () => (await a.runtime.transcript(s.value.id)).turns[0]?.status === 'stopped');
      await a.runtime.whenIdle(s.value.id);
      const journal = await a.runtime.transcript(s.value.id);
      assert.ok(journal.turns[0]!.items.some((i) => i.type === 'notice' && i.message === STOP_ELSEWHERE_NOTICE), 'precondition: the journal has the notice');
      // Every change has reached the panel once the view's turn is stopped and the outbox is drained.
      const view = () => posted.reduce(reduceHostMessage, INITIAL_VIEW_STATE);
      await waitFor('the view to see the turn stopped', () => view().transcript.turns[0]?.status === 'stopped');
      await chat.post({ type: 'pong' });
      const shown = view().transcript.turns[0]!;
      assert.ok(
        shown.items.some((i) => i.type === 'notice' && i.message === STOP_ELSEWHERE_NOTICE),
        `window A's view names the Stop from window B: ${JSON.stringify(shown.items.map((i) => i.type))}`,
      );
      assert.deepEqual(shown.items, journal.turns[0]!.items, 'the view shows what the journal holds');
    } finally {
      binding.dispose();
      a.runtime.dispose();
      b.runtime.dispose();
      await a.journal.close();
      await b.journal.close();
    }
  });
  it('Stop pressed in window B while window A streams: A\'s next write applies it first, and A\'s view shows B\'s notice', async () => {
    const workspace = trackedTempDir('nac-ws-');
    const { posted, receive } = nextPanel();
    let streaming: AgentTurnContext | undefined;
    const agent: Agent = {
      provider: 'local', label: 'streaming agent',
      runTurn: (_request, ctx) => new Promise((resolve) => {
        streaming = ctx;
        ctx.signal.addEventListener('abort', () => resolve({ status: 'completed' }));
      }),
    };
    // Window A never polls nor watches its folder, and its journal calls are listed: B's commit reaches A through A's next write.
    const calls: string[] = [];
    const listed = (j: Journal): Journal => new Proxy(j, {
      get(target, key) {
        const value: unknown = Reflect.get(target, key);
        if (key !== 'read' && key !== 'write') return typeof value === 'function' ? value.bind(target) : value;
        return (op: string, ...args: unknown[]) => (calls.push(`${key} ${op}`), (value as (...a: unknown[]) => unknown).call(target, op, ...args));
      },
    });
    const a = await openRuntime({ workspace, instance: 'window-a', agentFor: () => agent, journal: { pollIntervalMs: 3_600_000, watchFolder: false }, wrap: listed });
    const b = await openLocal({ file: a.file, workspace, instance: 'window-b' });
    const panels = new ChatPanels(Promise.resolve(a.runtime), {} as never, () => undefined, {} as never);
    const binding = panels.bind(a.runtime);
    try {
      const s = await a.runtime.createSession('local');
      assert.ok(s.ok);
      const chat = await panels.open(s.value);
      receive({ type: 'ready' });
      await waitFor('the snapshot', () => posted.some((m) => m.type === 'snapshot'));
      receive({ type: 'send', text: 'stream', clientId: 'c-stream' });
      const view = () => posted.reduce(reduceHostMessage, INITIAL_VIEW_STATE);
      await waitFor('the run to start', () => streaming);
      streaming!.text('first ');
      await waitFor('the first words in the view', () => view().transcript.turns[0]?.items.some((i) => i.type === 'text'));
      await waitFor('window B to see the run', async () => (await b.runtime.liveState(s.value.id)).running);
      await chat.post({ type: 'pong' }); // A's panel has read all it will
      const from = calls.length;
      assert.deepEqual(await b.runtime.stop(s.value.id), { ok: true, value: { stopped: true } });
      streaming!.text('second'); // A's next event on the run: its write applies B's notice first
      await waitFor('the view to see the turn stopped', () => view().transcript.turns[0]?.status === 'stopped', 10_000);
      assert.equal(calls[from], 'write appendEvents', `precondition: A's write was its first journal call after B's Stop (${calls.slice(from, from + 3).join(', ')})`);
      await a.runtime.whenIdle(s.value.id);
      const journal = await a.runtime.transcript(s.value.id);
      await chat.post({ type: 'pong' });
      const shown = view().transcript.turns[0]!;
      assert.ok(
        shown.items.some((i) => i.type === 'notice' && i.message === STOP_ELSEWHERE_NOTICE),
        `window A's view names the Stop from window B: ${JSON.stringify(shown.items)}`,
      );
      assert.deepEqual(shown.items, journal.turns[0]!.items, 'the view shows what the journal holds');
    } finally {
      binding.dispose();
      await a.close();
      b.runtime.dispose();
      await b.journal.close();
    }
  });
});
