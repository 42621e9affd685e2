/**
 * Checkpoints end to end in plain Node: the product's own `write` tool (the local agent, and a
 * scripted agent calling the tool runtime) and an agent's own tool (a scripted agent using
 * `startInvocation` / `recordFileChanges` as Claude and Codex do) on real files in a temporary
 * workspace and a real journal; undo restores bytes exactly, conflicts are never overwritten, redo,
 * oversize and binary files, two windows undoing one turn at once, and the note the next prompt carries.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { conflictKey, fileNote, MAX_CHECKPOINT_BYTES } from '../../src/core/checkpoints';
import type { FileNews } from '../../src/core/fileNews';
import { contentHash } from '../../src/journal/contentHash';
import { FILE_CLOCK_LAG_MS } from '../../src/runtime/fileImages';
import { withFileNote, type Agent, type AgentTurnContext, type AgentTurnRequest } from '../../src/runtime/agent';
import { chatMarkdown } from '../../src/runtime/chatExport';
import { LocalAgent } from '../../src/runtime/agents/localAgent';
import { openRuntime, pendingRequest, type RuntimeHarness } from './harness';
import { trackedTempDir } from './helpers';

/** An agent that runs `script` per turn and records the prompts it was given. */
function scripted(script: (ctx: AgentTurnContext, request: AgentTurnRequest) => Promise<void>, prompts: string[] = []): Agent {
  return {
    provider: 'local',
    label: 'scripted',
    runTurn: async (request, ctx) => {
      prompts.push(request.prompt);
      await script(ctx, request);
      return { status: 'completed' };
    },
  };
}

/** Sends `prompt` in a new or given chat and waits for the turn to end; returns the chat and turn ids. */
async function turn(h: RuntimeHarness, prompt: string, sessionId?: string): Promise<{ sessionId: string; turnId: string }> {
  let sid = sessionId;
  if (!sid) {
    const s = await h.runtime.createSession('local');
    assert.ok(s.ok);
    sid = s.value.id;
  }
  const sent = await h.runtime.send(sid, prompt);
  assert.ok(sent.ok, !sent.ok ? sent.message : '');
  await h.runtime.whenIdle(sid);
  return { sessionId: sid, turnId: sent.value.turnId };
}

const local = () => {
  const agent = new LocalAgent();
  return { agentFor: (p: string) => (p === 'local' ? agent : undefined) };
};

const CASES: Record<string, Buffer> = {
  'crlf.txt': Buffer.from('one\r\ntwo\r\n', 'utf8'),
  'no-final-newline.txt': Buffer.from('last line', 'utf8'),
  'latin1.txt': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]),
  'bom.txt': Buffer.from('\ufeffbom\n', 'utf8'),
  'binary.bin': Buffer.from([0, 255, 0, 1, 2, 0xc3, 0x28, 0x80]),
};

describe('checkpoints of the product\'s own write tool', () => {
  it('journals before and after with the invocation; Undo puts each file back byte for byte and removes a created one; Redo puts the agent\'s back', async () => {
    const h = await openRuntime(local());
    for (const [name, bytes] of Object.entries(CASES)) fs.writeFileSync(path.join(h.workspace, name), bytes);
    const s = await h.runtime.createSession('local');
    assert.ok(s.ok);
    const turns: string[] = [];
    for (const name of [...Object.keys(CASES), 'sub/created.txt']) turns.push((await turn(h, `write ${name}\n\`\`\`\nby the agent ${name}\n\`\`\``, s.value.id)).turnId);
    const rows = await h.journal.read('listFileChanges', s.value.id);
    assert.deepEqual(rows.map((r) => [r.path, r.state, r.checkpointed]), [...Object.keys(CASES), 'sub/created.txt'].map((p) => [p, 'applied', true]));
    for (const r of rows) {
      const before = CASES[r.path];
      assert.equal(r.before.exists, before !== undefined);
      if (before) assert.deepEqual(Buffer.from((await h.journal.read('getContent', r.before.hash!))!), before, r.path);
      assert.deepEqual(Buffer.from((await h.journal.read('getContent', r.after!.hash!))!).toString(), `by the agent ${r.path}\n`);
    }
    assert.deepEqual([rows[4]!.added, rows[4]!.removed, rows[5]!.added, rows[5]!.removed], [1, 1, 1, 0], 'binary.bin: one line each way; created.txt: one added');
    // Restore to before the first turn: every later turn too, newest first.
    const undone = await h.runtime.files.undo(s.value.id, turns[0]!, 'from_turn');
    assert.ok(undone.ok && undone.value.kind === 'applied');
    assert.deepEqual(undone.value.files.map((f) => f.outcome), Array(6).fill('restored'));
    for (const [name, bytes] of Object.entries(CASES)) assert.deepEqual(fs.readFileSync(path.join(h.workspace, name)), bytes, name);
    assert.equal(fs.existsSync(path.join(h.workspace, 'sub/created.txt')), false);
    const cps = await h.runtime.files.checkpoints(s.value.id);
    assert.deepEqual(cps.map((c) => c.undoneBy), Array(6).fill(undone.value.id));
    // Undo again is answered with the undo that stands.
    const again = await h.runtime.files.undo(s.value.id, turns[2]!, 'turn');
    assert.deepEqual(again.ok && again.value, { kind: 'already', by: undone.value.id });
    const redone = await h.runtime.files.redo(s.value.id, undone.value.id);
    assert.ok(redone.ok && redone.value.kind === 'applied');
    for (const name of [...Object.keys(CASES), 'sub/created.txt']) assert.equal(fs.readFileSync(path.join(h.workspace, name), 'utf8'), `by the agent ${name}\n`);
    assert.deepEqual((await h.runtime.files.checkpoints(s.value.id)).map((c) => c.undoneBy), Array(6).fill(null));
    await h.close();
  });

  it('Undo of a created file removes the empty folders made for it, never a folder the user had; Redo makes them again', async () => {
    const logs: string[] = [];
    const h = await openRuntime({ ...local(), log: (line) => logs.push(line) });
    try {
      fs.mkdirSync(path.join(h.workspace, 'had', 'empty'), { recursive: true });
      fs.writeFileSync(path.join(h.workspace, 'had', 'keep.txt'), 'mine\n');
      await new Promise((r) => setTimeout(r, 20)); // the user's folders are born before the turn
      const t = await turn(h, 'write had/empty/new/deep/made.txt\n```\nby the agent\n```');
      const second = await turn(h, 'write fresh/one.txt\n```\nby the agent\n```', t.sessionId);
      assert.ok(fs.existsSync(path.join(h.workspace, 'had/empty/new/deep/made.txt')) && fs.existsSync(path.join(h.workspace, 'fresh/one.txt')));
      const undone = await h.runtime.files.undo(t.sessionId, t.turnId, 'from_turn');
      assert.ok(undone.ok && undone.value.kind === 'applied');
      assert.equal(fs.existsSync(path.join(h.workspace, 'had/empty/new')), false, 'new/deep went with the file');
      assert.equal(fs.existsSync(path.join(h.workspace, 'fresh')), false);
      assert.ok(fs.statSync(path.join(h.workspace, 'had/empty')).isDirectory(), 'the user\'s empty folder stays');
      assert.equal(fs.readFileSync(path.join(h.workspace, 'had/keep.txt'), 'utf8'), 'mine\n');
      assert.ok(logs.some((l) => l.includes('removed the empty folders made for had/empty/new/deep/made.txt: had/empty/new/deep, had/empty/new')), logs.join('\n'));
      const redone = await h.runtime.files.redo(t.sessionId, undone.value.id);
      assert.ok(redone.ok && redone.value.kind === 'applied');
      assert.equal(fs.readFileSync(path.join(h.workspace, 'had/empty/new/deep/made.txt'), 'utf8'), 'by the agent\n');
      assert.equal(fs.readFileSync(path.join(h.workspace, 'fresh/one.txt'), 'utf8'), 'by the agent\n');
      // A folder holding something else than the file stays: the user's file put there after the agent.
      fs.writeFileSync(path.join(h.workspace, 'fresh', 'user.txt'), 'user\n');
      const again = await h.runtime.files.undo(t.sessionId, second.turnId, 'turn');
      assert.ok(again.ok && again.value.kind === 'applied');
      assert.deepEqual(fs.readdirSync(path.join(h.workspace, 'fresh')), ['user.txt']);
    } finally {
      await h.close();
    }
  });

  it('keeps a checkpointed write\'s content once: the invocation\'s input names the after image by hash; a write too large to keep holds its content inline', async () => {
    const h = await openRuntime(local());
    try {
      const big = 'y'.repeat(MAX_CHECKPOINT_BYTES + 1);
      const s = await h.runtime.createSession('local');
      assert.ok(s.ok);
      await turn(h, 'write kept.txt\n```\nthe content, kept once\n```', s.value.id);
      const script = scripted(async (ctx) => {
        const { SandboxedToolRunner } = await import('../../src/runtime/toolRuntime');
        await new SandboxedToolRunner(ctx, { workspaceRoot: h.workspace, commandTimeoutMs: 5000 }).run({ name: 'write', input: { path: 'big.txt', content: big } });
      });
      const h2 = await openRuntime({ agentFor: () => script, file: h.file, workspace: h.workspace, instance: 'host-b' });
      try {
        await turn(h2, 'write the big one', s.value.id);
      } finally {
        await h2.close();
      }
      const rows = await h.journal.read('listFileChanges', s.value.id);
      assert.deepEqual(rows.map((r) => [r.path, r.checkpointed]), [['kept.txt', true], ['big.txt', false]]);
      const kept: { contentHash: string } = JSON.parse((await h.journal.read('getInvocation', rows[0]!.invocationId))!.input);
      assert.deepEqual(kept, { path: 'kept.txt', contentHash: rows[0]!.after!.hash, contentBytes: 'the content, kept once\n'.length });
      assert.equal(Buffer.from((await h.journal.read('getContent', kept.contentHash))!).toString(), 'the content, kept once\n');
      const inline = JSON.parse((await h.journal.read('getInvocation', rows[1]!.invocationId))!.input);
      assert.deepEqual(inline, { path: 'big.txt', content: big }, 'not in the store: the input is the only copy');
    } finally {
      await h.close();
    }
  });

  it('a file changed since the agent wrote it is a conflict: kept without a choice, restored only when the user chooses so', async () => {
    const h = await openRuntime(local());
    fs.writeFileSync(path.join(h.workspace, 'a.txt'), 'original a\n');
    fs.writeFileSync(path.join(h.workspace, 'b.txt'), 'original b\n');
    const first = await turn(h, 'write a.txt\n```\nagent a\n```');
    await turn(h, 'write b.txt\n```\nagent b\n```', first.sessionId);
    fs.writeFileSync(path.join(h.workspace, 'a.txt'), 'the user edited a\n');
    const seen: string[] = [];
    const kept = await h.runtime.files.undo(first.sessionId, first.turnId, 'from_turn', async (conflicts) => {
      seen.push(...conflicts.map((c) => c.path));
      return new Map([[conflictKey(conflicts[0]!.group, 'a.txt'), 'keep']]);
    });
    assert.ok(kept.ok && kept.value.kind === 'applied');
    assert.deepEqual(seen, ['a.txt']);
    assert.deepEqual(kept.value.files.map((f) => [f.path, f.outcome]), [['b.txt', 'restored'], ['a.txt', 'conflict_kept']]);
    assert.equal(fs.readFileSync(path.join(h.workspace, 'a.txt'), 'utf8'), 'the user edited a\n');
    assert.equal(fs.readFileSync(path.join(h.workspace, 'b.txt'), 'utf8'), 'original b\n');
    // Redo: b gets the agent's content back; a, which the undo left alone, stays the user's.
    const redone = await h.runtime.files.redo(first.sessionId, kept.value.id);
    assert.ok(redone.ok && redone.value.kind === 'applied');
    assert.equal(fs.readFileSync(path.join(h.workspace, 'a.txt'), 'utf8'), 'the user edited a\n');
    assert.equal(fs.readFileSync(path.join(h.workspace, 'b.txt'), 'utf8'), 'agent b\n');
    // Now the user chooses to restore a anyway.
    const restored = await h.runtime.files.undo(first.sessionId, first.turnId, 'turn', async (conflicts) => new Map(conflicts.map((c) => [conflictKey(c.group, c.path), 'restore'])));
    assert.ok(restored.ok && restored.value.kind === 'applied');
    assert.deepEqual(restored.value.files.map((f) => f.outcome), ['conflict_restored']);
    assert.equal(fs.readFileSync(path.join(h.workspace, 'a.txt'), 'utf8'), 'original a\n');
    // Cancelling at the conflicts writes nothing and journals nothing.
    fs.writeFileSync(path.join(h.workspace, 'b.txt'), 'the user edited b\n');
    const undosBefore = (await h.journal.read('listUndos', first.sessionId)).length;
    const cancelled = await h.runtime.files.undo(first.sessionId, (await h.runtime.files.checkpoints(first.sessionId))[1]!.turnId, 'turn', async () => undefined);
    assert.deepEqual(cancelled.ok && cancelled.value, { kind: 'cancelled' });
    assert.equal((await h.journal.read('listUndos', first.sessionId)).length, undosBefore);
    assert.equal(fs.readFileSync(path.join(h.workspace, 'b.txt'), 'utf8'), 'the user edited b\n');
    await h.close();
  });

  it('a file over the cap is "changed, not checkpointed": compared by its hash, a created one removed, one whose old bytes were not kept left alone', async () => {
    const big = 'x'.repeat(MAX_CHECKPOINT_BYTES + 1);
    const h = await openRuntime({ agentFor: () => scripted(async (ctx) => {
      await ctx.tools.run({ name: 'write', input: { path: 'big.txt', content: big } });
      await ctx.tools.run({ name: 'write', input: { path: 'was-big.txt', content: 'small now\n' } });
    }) });
    fs.writeFileSync(path.join(h.workspace, 'was-big.txt'), Buffer.alloc(MAX_CHECKPOINT_BYTES + 10, 0x61));
    const t = await turn(h, 'go');
    const rows = await h.journal.read('listFileChanges', t.sessionId);
    assert.deepEqual(rows.map((r) => [r.path, r.checkpointed, r.reason, r.after?.hash ?? null]), [
      ['big.txt', false, 'too_large', contentHash(big)], ['was-big.txt', false, 'too_large', contentHash('small now\n')],
    ]);
    assert.equal(await h.journal.read('getContent', contentHash(big)), null, 'the bytes over the cap are not stored');
    const undone = await h.runtime.files.undo(t.sessionId, t.turnId, 'turn');
    assert.ok(undone.ok && undone.value.kind === 'applied');
    assert.deepEqual(undone.value.files.map((f) => [f.path, f.outcome]), [['big.txt', 'restored'], ['was-big.txt', 'not_checkpointed']]);
    assert.equal(fs.existsSync(path.join(h.workspace, 'big.txt')), false, 'a created file needs no content to be taken back');
    assert.equal(fs.readFileSync(path.join(h.workspace, 'was-big.txt'), 'utf8'), 'small now\n');
    await h.close();
  });

  it('a denied write is no change; an agent\'s own tool that deletes a file gets it recreated by Undo', async () => {
    const outside = path.join(trackedTempDir('nac-outside-'), 'x.txt');
    const h = await openRuntime({ agentFor: () => scripted(async (ctx, request) => {
      // Claude's and Codex's way: the before image when the tool is allowed, the after image on its result.
      const handle = await ctx.startInvocation('Delete', { path: 'gone.txt' }, 'gone.txt');
      await handle.recordFileChanges!([{ path: 'gone.txt', before: { exists: true, bytes: fs.readFileSync(path.join(request.cwd, 'gone.txt')) } }]);
      fs.rmSync(path.join(request.cwd, 'gone.txt'));
      await handle.finish({ status: 'completed', fileChanges: [{ path: 'gone.txt', after: { exists: false } }] });
      await ctx.tools.run({ name: 'write', input: { path: outside, content: 'never\n' } });
    }) });
    fs.writeFileSync(path.join(h.workspace, 'gone.txt'), 'keep me\r\n');
    const s = await h.runtime.createSession('local');
    assert.ok(s.ok);
    await h.runtime.send(s.value.id, 'go');
    const denied = await pendingRequest(h, s.value.id);
    await h.runtime.decide(s.value.id, denied, 'deny');
    await h.runtime.whenIdle(s.value.id);
    const rows = await h.journal.read('listFileChanges', s.value.id);
    assert.deepEqual(rows.map((r) => [r.path, r.state]), [['gone.txt', 'applied'], [outside, 'not_applied']]);
    const cps = await h.runtime.files.checkpoints(s.value.id);
    assert.deepEqual(cps[0]!.files.map((f) => [f.path, f.kind]), [['gone.txt', 'deleted']]);
    const undone = await h.runtime.files.undo(s.value.id, cps[0]!.turnId, 'turn');
    assert.ok(undone.ok && undone.value.kind === 'applied');
    assert.deepEqual(fs.readFileSync(path.join(h.workspace, 'gone.txt')), Buffer.from('keep me\r\n'));
    assert.equal(fs.existsSync(outside), false);
    await h.close();
  });

  it('the next request tells the agent which files an undo put back, apart from the user\'s words; deleting the chat drops its content', async () => {
    const prompts: string[] = [];
    const notes: (string | undefined)[] = [];
    const news: (FileNews | undefined)[] = [];
    const h = await openRuntime({ agentFor: () => scripted(async (ctx, request) => {
      notes.push(request.fileNews && fileNote(request.fileNews));
      news.push(request.fileNews);
      if (request.prompt.endsWith('write')) await ctx.tools.run({ name: 'write', input: { path: 'n.txt', content: 'agent\n' } });
    }, prompts) });
    fs.writeFileSync(path.join(h.workspace, 'n.txt'), 'mine\n');
    const t = await turn(h, 'write');
    const undone = await h.runtime.files.undo(t.sessionId, t.turnId, 'turn');
    assert.ok(undone.ok && undone.value.kind === 'applied');
    await turn(h, 'next', t.sessionId);
    await turn(h, 'after that', t.sessionId);
    assert.deepEqual(prompts, ['write', 'next', 'after that'], 'the prompt is the user\'s words only');
    assert.match(notes[1]!, /^\[Files changed since your last reply\. The user undid your earlier changes to n\.txt: those files are back as they were before your changes\. .*\]$/);
    assert.deepEqual([notes[0], notes[2]], [undefined, undefined], 'told once');
    assert.equal(withFileNote({ fileNews: news[1]! }, 'next'), `${notes[1]}\n\nnext`, 'a model gets it before the message');
    const hash = (await h.journal.read('listFileChanges', t.sessionId))[0]!.after!.hash!;
    assert.ok(await h.journal.read('getContent', hash));
    assert.ok((await h.runtime.deleteSession(t.sessionId)).ok);
    assert.equal(await h.journal.read('getContent', hash), null);
    await h.close();
  });

  it('an undo and the redo of it before the next request cancel out: no note (the agent\'s files are as it left them)', async () => {
    const requests: AgentTurnRequest[] = [];
    const h = await openRuntime({ agentFor: () => scripted(async (ctx, request) => {
      requests.push(request);
      if (request.prompt === 'write') await ctx.tools.run({ name: 'write', input: { path: 'n.txt', content: 'agent\n' } });
    }) });
    try {
      const t = await turn(h, 'write');
      const undone = await h.runtime.files.undo(t.sessionId, t.turnId, 'turn');
      assert.ok(undone.ok && undone.value.kind === 'applied');
      const redone = await h.runtime.files.redo(t.sessionId, undone.value.id);
      assert.ok(redone.ok && redone.value.kind === 'applied');
      await turn(h, 'next', t.sessionId);
      assert.equal(requests.length, 2);
      assert.equal(requests[1]!.fileNews, undefined, `told ${JSON.stringify(requests[1]!.fileNews)} (before: "The user redid your earlier changes to n.txt")`);
      assert.equal(withFileNote(requests[1]!, 'next'), 'next');
    } finally {
      await h.close();
    }
  });

  it('an edit and resend of the request that carried the note carries it again (the agent\'s history leaves the replaced request out)', async () => {
    const notes: (string | undefined)[] = [];
    const h = await openRuntime({ agentFor: () => scripted(async (ctx, request) => {
      notes.push(request.fileNews && fileNote(request.fileNews));
      if (request.prompt === 'write') await ctx.tools.run({ name: 'write', input: { path: 'n.txt', content: 'agent\n' } });
    }) });
    try {
      const t = await turn(h, 'write');
      const undone = await h.runtime.files.undo(t.sessionId, t.turnId, 'turn');
      assert.ok(undone.ok && undone.value.kind === 'applied');
      const next = await turn(h, 'next', t.sessionId);
      const edited = await h.runtime.submit(t.sessionId, { clientId: 'edit-1', text: 'next, edited', replacesTurnId: next.turnId });
      assert.ok(edited.ok && edited.value.kind === 'started', !edited.ok ? edited.message : '');
      await h.runtime.whenIdle(t.sessionId);
      assert.equal(notes.length, 3);
      assert.match(notes[1]!, /The user undid your earlier changes to n\.txt/);
      assert.equal(notes[2], notes[1], 'the edited request tells it too (before: undefined, the model never heard of the undo)');
    } finally {
      await h.close();
    }
  });
});

describe('the local agent after an undo', () => {
  it('still understands the next request (the note of the undo is said, not parsed as the request)', async () => {
    const h = await openRuntime(local());
    try {
      const first = await turn(h, 'write plan.md\n```\none\n```');
      const undone = await h.runtime.files.undo(first.sessionId, first.turnId, 'turn');
      assert.ok(undone.ok && undone.value.kind === 'applied');
      await turn(h, 'write plan.md\n```\ntwo\n```', first.sessionId);
      assert.equal(fs.readFileSync(path.join(h.workspace, 'plan.md'), 'utf8'), 'two\n', 'the write ran (before: "I don\'t understand free-form requests")');
      const md = (await chatMarkdown(h.runtime, (await h.runtime.getSession(first.sessionId))!)).markdown;
      assert.match(md, /Since my last reply, you undid my changes to `plan\.md`\.\n\nWriting `plan\.md`/, 'said plainly, to the user who undid');
      assert.doesNotMatch(md, /I was told|\[Files changed/, 'not the note worded for a model, quoted');
    } finally {
      await h.close();
    }
  });

  it('says nothing of an undo the user redid before the next request: the files are as it left them', async () => {
    // A fresh user undid and redid a turn and read "I was told, before your message: > [Files changed…]".
    const h = await openRuntime(local());
    try {
      const first = await turn(h, 'write plan.md\n```\none\n```');
      const undone = await h.runtime.files.undo(first.sessionId, first.turnId, 'turn');
      assert.ok(undone.ok && undone.value.kind === 'applied');
      const redone = await h.runtime.files.redo(first.sessionId, undone.value.id);
      assert.ok(redone.ok && redone.value.kind === 'applied');
      await turn(h, 'read plan.md', first.sessionId);
      const md = (await chatMarkdown(h.runtime, (await h.runtime.getSession(first.sessionId))!)).markdown;
      assert.match(md, /Reading `plan\.md`/);
      assert.doesNotMatch(md, /Since my last reply|I was told|undid|redid/);
    } finally {
      await h.close();
    }
  });
});

describe('two windows undoing the same turn at once', () => {
  it('one conditional transaction decides: one applies, the other writes nothing', async () => {
    const a = await openRuntime(local());
    fs.writeFileSync(path.join(a.workspace, 'w.txt'), 'before\n');
    const t = await turn(a, 'write w.txt\n```\nafter\n```');
    const b = await openRuntime({ ...local(), file: a.file, workspace: a.workspace, instance: 'host-b' });
    const [ra, rb] = await Promise.all([a.runtime.files.undo(t.sessionId, t.turnId, 'turn'), b.runtime.files.undo(t.sessionId, t.turnId, 'turn')]);
    const kinds = [ra.ok && ra.value.kind, rb.ok && rb.value.kind].sort();
    assert.deepEqual(kinds, ['already', 'applied']);
    assert.equal(fs.readFileSync(path.join(a.workspace, 'w.txt'), 'utf8'), 'before\n');
    assert.equal((await a.journal.read('listUndos', t.sessionId)).length, 1);
    // The other window redoes it.
    const undoId = (await b.journal.read('listUndos', t.sessionId))[0]!.id;
    const [xa, xb] = await Promise.all([a.runtime.files.redo(t.sessionId, undoId), b.runtime.files.redo(t.sessionId, undoId)]);
    assert.deepEqual([xa.ok && xa.value.kind, xb.ok && xb.value.kind].sort(), ['already', 'applied']);
    assert.equal(fs.readFileSync(path.join(a.workspace, 'w.txt'), 'utf8'), 'after\n');
    await b.close();
    await a.close();
  });
});

/** Waits `ms` so that folders made before and after it have different birth times. */
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the folders an undo removes with a file the agent created', () => {
  it('Restore to before an earlier turn keeps an empty folder the user made before the later turn that wrote into it', async () => {
    const h = await openRuntime(local());
    try {
      const first = await turn(h, 'write first.txt\n```\none\n```');
      await pause(20);
      fs.mkdirSync(path.join(h.workspace, 'docs')); // the user's, made between the turns
      await pause(20);
      await turn(h, 'write docs/notes.md\n```\nby the agent\n```', first.sessionId);
      const undone = await h.runtime.files.undo(first.sessionId, first.turnId, 'from_turn');
      assert.ok(undone.ok && undone.value.kind === 'applied');
      assert.equal(fs.existsSync(path.join(h.workspace, 'docs/notes.md')), false);
      assert.ok(fs.existsSync(path.join(h.workspace, 'docs')), 'the user had docs/ before the turn that wrote into it');
    } finally {
      await h.close();
    }
  });

  it('a folder the agent made in one turn goes with the last of its files and folders, whichever turn the undo reaches first', async () => {
    const h = await openRuntime(local());
    try {
      const first = await turn(h, 'write made/one.txt\n```\none\n```');
      await turn(h, 'write made/sub/two.txt\n```\ntwo\n```', first.sessionId);
      // The last turn changes one.txt again, so the undo reaches one.txt (made in the first turn) before sub/two.txt.
      await turn(h, 'write made/one.txt\n```\none, again\n```', first.sessionId);
      const undone = await h.runtime.files.undo(first.sessionId, first.turnId, 'from_turn');
      assert.ok(undone.ok && undone.value.kind === 'applied');
      assert.equal(fs.existsSync(path.join(h.workspace, 'made')), false);
    } finally {
      await h.close();
    }
  });

  it('Undo after a Redo keeps the folder the user made again between the undo and the redo', async () => {
    const h = await openRuntime(local());
    try {
      const t = await turn(h, 'write again/made.txt\n```\nby the agent\n```');
      const undone = await h.runtime.files.undo(t.sessionId, t.turnId, 'turn');
      assert.ok(undone.ok && undone.value.kind === 'applied');
      assert.equal(fs.existsSync(path.join(h.workspace, 'again')), false);
      // Apart by more than the file system's clock may lag (FILE_CLOCK_LAG_MS): made before, as it tells it.
      await pause(3 * FILE_CLOCK_LAG_MS);
      fs.mkdirSync(path.join(h.workspace, 'again')); // the user's now: made before the redo wrote into it
      await pause(3 * FILE_CLOCK_LAG_MS);
      const redone = await h.runtime.files.redo(t.sessionId, undone.value.id);
      assert.ok(redone.ok && redone.value.kind === 'applied');
      assert.equal(fs.readFileSync(path.join(h.workspace, 'again/made.txt'), 'utf8'), 'by the agent\n');
      const again = await h.runtime.files.undo(t.sessionId, t.turnId, 'turn');
      assert.ok(again.ok && again.value.kind === 'applied');
      assert.equal(fs.existsSync(path.join(h.workspace, 'again/made.txt')), false);
      assert.ok(fs.existsSync(path.join(h.workspace, 'again')), 'the user made again/ before the redo wrote into it');
    } finally {
      await h.close();
    }
  });

  it('takes no folder outside the workspace: one the agent made through a symlink to a folder outside stays (the file goes)', async () => {
    const outside = trackedTempDir('nac-outside-');
    const h = await openRuntime(local());
    try {
      fs.symlinkSync(outside, path.join(h.workspace, 'linked'));
      const s = await h.runtime.createSession('local');
      assert.ok(s.ok);
      const sent = await h.runtime.send(s.value.id, 'write linked/made/deep/one.txt\n```\nby the agent\n```');
      assert.ok(sent.ok);
      // The sandbox judges the path where it leads: outside, so the write asks first.
      await h.runtime.decide(s.value.id, await pendingRequest(h, s.value.id), 'allow_once');
      await h.runtime.whenIdle(s.value.id);
      assert.equal(fs.readFileSync(path.join(outside, 'made/deep/one.txt'), 'utf8'), 'by the agent\n');
      const undone = await h.runtime.files.undo(s.value.id, sent.value.turnId, 'turn');
      assert.ok(undone.ok && undone.value.kind === 'applied');
      assert.equal(fs.existsSync(path.join(outside, 'made/deep/one.txt')), false);
      assert.ok(fs.existsSync(path.join(outside, 'made/deep')), 'a folder outside the workspace is not the undo\'s to remove');
      assert.ok(fs.lstatSync(path.join(h.workspace, 'linked')).isSymbolicLink());
    } finally {
      await h.close();
    }
  });

  it('keeps the user\'s empty folder on a file system whose birth time is the change time (Node gives ctime when it has no birth time)', async () => {
    const h = await openRuntime(local());
    // libuv on Linux without statx (old kernels, seccomp) answers a folder's birth time with its
    // change time, which the undo's own removal of the file has just set to now.
    const stat = fs.promises.stat;
    const lstat = fs.promises.lstat;
    const ctimeAsBirth = (s: fs.Stats) => Object.assign(s, { birthtimeMs: s.ctimeMs, birthtime: s.ctime });
    fs.promises.stat = (async (p: fs.PathLike) => ctimeAsBirth(await stat(p))) as typeof stat;
    fs.promises.lstat = (async (p: fs.PathLike) => ctimeAsBirth(await lstat(p))) as typeof lstat;
    try {
      fs.mkdirSync(path.join(h.workspace, 'had', 'empty'), { recursive: true });
      await pause(20);
      const t = await turn(h, 'write had/empty/made.txt\n```\nby the agent\n```');
      const undone = await h.runtime.files.undo(t.sessionId, t.turnId, 'turn');
      assert.ok(undone.ok && undone.value.kind === 'applied');
      assert.equal(fs.existsSync(path.join(h.workspace, 'had/empty/made.txt')), false);
      assert.ok(fs.existsSync(path.join(h.workspace, 'had/empty')), 'the user had had/empty before the agent');
    } finally {
      fs.promises.stat = stat;
      fs.promises.lstat = lstat;
      await h.close();
    }
  });
});
