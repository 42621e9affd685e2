/**
 * The chat list (`listChats`, `getChatListItem`) carries what a list item shows and the facts its
 * state comes from (core/chatList.ts `chatState`): a run in flight and its owner, pending boundary
 * requests, the last turn's status and error class; chats remember the workspace folder they were
 * created in, and `assignWorkspace` gives one only to chats whose folder is unknown.
 */
import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { chatState, type ChatListItem } from '../../src/core/chatList';
import type { Journal } from '../../src/journal/journal';
import { openJournal, tempDir } from './helpers';

const FOLDER_A = path.resolve('folder-a');
const FOLDER_B = path.resolve('folder-b');

async function chat(journal: Journal, id: string, at: number, workspace?: string | null): Promise<void> {
  assert.equal((await journal.write('createSession', { id, title: `Chat ${id}`, provider: 'local', createdAt: at, updatedAt: at, workspace })).ok, true);
}

async function turn(journal: Journal, sessionId: string, n: number, at: number, instanceId = 'owner'): Promise<string> {
  const runId = `${sessionId}-run${n}`;
  const r = await journal.write('startTurn', {
    turn: { id: `${sessionId}-turn${n}`, sessionId, prompt: 'p', origin: 'prompt', parentTurnId: null, createdAt: at },
    run: { id: runId, instanceId, provider: 'local' },
  });
  assert.equal(r.ok, true);
  return runId;
}

const alive = (id: string) => id === 'owner';

describe('journal: the chat list', () => {
  it("lists every chat, most recently active first, with its state's facts; one chat's item equals its list entry", async () => {
    const journal = await openJournal(path.join(tempDir(), 'journal.sqlite'));
    try {
      await chat(journal, 'idle', 1, FOLDER_A);
      await journal.write('finishRun', { runId: await turn(journal, 'idle', 1, 2), status: 'completed', turnStatus: 'completed', at: 3 });
      await chat(journal, 'failed', 4, FOLDER_A);
      await journal.write('finishRun', { runId: await turn(journal, 'failed', 1, 5), status: 'failed', turnStatus: 'failed', errorClass: 'agent_error', at: 6 });
      await chat(journal, 'restarted', 7, FOLDER_B);
      await journal.write('finishRun', { runId: await turn(journal, 'restarted', 1, 8), status: 'interrupted', turnStatus: 'failed', errorClass: 'app_restarted', at: 9 });
      await chat(journal, 'running', 10, '');
      await turn(journal, 'running', 1, 11);
      await chat(journal, 'orphaned', 12);
      await turn(journal, 'orphaned', 1, 13, 'dead-window');
      await chat(journal, 'waiting', 14, FOLDER_A);
      const waitingRun = await turn(journal, 'waiting', 1, 15);
      await journal.write('createBoundaryRequest', { id: 'req', runId: waitingRun, invocationId: null, kind: 'command', subject: 'rm x', why: 'w', detail: null, scopeKey: 'command:rm', at: 16 });
      await chat(journal, 'empty', 17, FOLDER_A);

      const list = await journal.read('listChats', {});
      assert.deepEqual(list.map((c) => [c.id, chatState(c, alive)]), [
        ['empty', 'idle'], ['waiting', 'waiting'], ['orphaned', 'interrupted'], ['running', 'running'],
        ['restarted', 'interrupted'], ['failed', 'failed'], ['idle', 'idle'],
      ]);
      const failed = list.find((c) => c.id === 'failed')!;
      assert.deepEqual(failed, {
        id: 'failed', title: 'Chat failed', provider: 'local', workspace: FOLDER_A, createdAt: 4, updatedAt: 6, activity: 6,
        runInFlight: null, pendingRequests: 0, lastTurn: { id: 'failed-turn1', status: 'failed', errorClass: 'agent_error' },
      } satisfies ChatListItem);
      assert.deepEqual(list.find((c) => c.id === 'orphaned')!.runInFlight, { runId: 'orphaned-run1', instanceId: 'dead-window' });
      assert.equal(list.find((c) => c.id === 'waiting')!.pendingRequests, 1);
      assert.equal(list.find((c) => c.id === 'running')!.workspace, '', "a window with no folder: ''");
      assert.equal(list.find((c) => c.id === 'orphaned')!.workspace, null, 'unknown');
      for (const item of list) assert.deepEqual(await journal.read('getChatListItem', item.id), item, item.id);
      assert.equal(await journal.read('getChatListItem', 'nope'), undefined);

      // The last turn is the newest: a second, completed turn after a failed one makes the chat idle.
      await journal.write('finishRun', { runId: await turn(journal, 'failed', 2, 20), status: 'completed', turnStatus: 'completed', at: 21 });
      const again = await journal.read('getChatListItem', 'failed');
      assert.deepEqual([again!.lastTurn, chatState(again!, alive), again!.updatedAt], [{ id: 'failed-turn2', status: 'completed', errorClass: null }, 'idle', 21]);
    } finally {
      await journal.close();
    }
  });

  it("lists one workspace's chats; assignWorkspace gives a folder only to chats whose folder is unknown", async () => {
    const journal = await openJournal(path.join(tempDir(), 'journal.sqlite'));
    try {
      await chat(journal, 'a1', 1, FOLDER_A);
      await chat(journal, 'b1', 2, FOLDER_B);
      await chat(journal, 'old1', 3);
      await chat(journal, 'old2', 4, null);
      const ids = async (workspace?: string) => (await journal.read('listChats', workspace === undefined ? {} : { workspace })).map((c) => c.id);
      assert.deepEqual(await ids(FOLDER_A), ['a1']);
      assert.deepEqual(await ids(), ['old2', 'old1', 'b1', 'a1']);
      const assigned = await journal.write('assignWorkspace', ['old1', 'b1', 'missing', 'old1'], FOLDER_A);
      assert.ok(assigned.ok);
      assert.deepEqual(assigned.value.assigned, ['old1'], 'a chat with a folder keeps it; an unknown id is skipped');
      assert.deepEqual(await ids(FOLDER_A), ['old1', 'a1']);
      assert.deepEqual(await ids(FOLDER_B), ['b1']);
      assert.equal((await journal.read('getSession', 'old2'))?.workspace, null);
      // Search can keep to one folder too.
      await turn(journal, 'a1', 1, 5);
      await turn(journal, 'b1', 1, 6);
      const found = await journal.read('searchChats', 'p', { workspace: FOLDER_B });
      assert.ok(found.ok);
      assert.deepEqual(found.value.map((r) => r.sessionId), ['b1']);
      // The first page (newest): the head of the whole list, for every chat or one folder's.
      const all = await journal.read('listChats', {});
      for (const n of [1, 2, 3, 4, 9]) assert.deepEqual(await journal.read('listChats', { newest: n }), all.slice(0, n), `newest ${n}`);
      assert.deepEqual((await journal.read('listChats', { newest: 1 })).map((c) => c.id), ['b1']);
      assert.deepEqual((await journal.read('listChats', { workspace: FOLDER_A, newest: 1 })).map((c) => c.id), ['a1']);
      assert.deepEqual(await journal.read('listChats', { workspace: FOLDER_A, newest: 5 }), await journal.read('listChats', { workspace: FOLDER_A }));
    } finally {
      await journal.close();
    }
  });
});
