/**
 * The chat list's first page (what Open Chat… shows while the whole list loads): the newest chats of
 * all and as many of this window's folder, each once, newest first, the same entries as the head of
 * the whole list; read through the real runtime and journal.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { Agent } from '../../src/runtime/agent';
import { openRuntime } from './harness';

const none: Agent | undefined = undefined;

describe('the chat list\'s first page', () => {
  it('holds the newest chats of all and of the folder, each once, as the whole list has them', async () => {
    const h = await openRuntime({ agentFor: () => none });
    try {
      const at = (id: string, t: number, workspace: string) => h.journal.write('createSession', { id, title: id, provider: 'local', createdAt: t, updatedAt: t, workspace });
      for (const [id, t, w] of [['here-old', 1, '/here'], ['here-new', 2, '/here'], ['there-1', 3, '/there'], ['there-2', 4, '/there'], ['there-3', 5, '/there']] as const) {
        assert.ok((await at(id, t, w)).ok);
      }
      const whole = await h.runtime.chatList();
      const first = await h.runtime.chatList({ newest: 2, workspace: '/here' });
      assert.deepEqual(first.map((c) => c.id), ['there-3', 'there-2', 'here-new', 'here-old']);
      assert.deepEqual(first, whole.filter((c) => first.some((f) => f.id === c.id)), 'the same entries as the whole list, in its order');
      assert.deepEqual((await h.runtime.chatList({ newest: 5, workspace: '/there' })).map((c) => c.id), whole.map((c) => c.id), 'each chat once');
    } finally {
      await h.close();
    }
  });
});
