/**
 * A chat with every kind of transcript item, for the export tests: turns the real runtime and the
 * local agent produce (help text, commands run at once, a failing command, output holding fences, a
 * written file's diff, approvals allowed once, for the session and by that grant, a denial, a Stop
 * while a request waits, a Retry and a Continue), and turns written straight to the journal for what
 * the local agent cannot produce (runs of a dead window closed by recovery: a restart closure and a
 * plain interruption; a failed turn with a notice; a reply with raw HTML and an unclosed fence).
 *
 * Deterministic: the runtime's clock stands still within a step and moves one minute between steps,
 * the workspace holds fixed files, and nothing of the export depends on the random ids.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Journal } from '../../src/journal/journal';
import { openLocal, pendingRequest, type RuntimeHarness } from './harness';
import { trackedTempDir, waitFor } from './helpers';

/** The chat built and the harness it lives in (open: the caller closes it). */
export interface ExportScenario {
  readonly h: RuntimeHarness;
  readonly sessionId: string;
  /** The title given to the chat (with characters Markdown would read as markup). */
  readonly title: string;
}

/** The window whose runs recovery finds orphaned. */
const DEAD_HOST = 'host-gone';

/** What `fences.txt` holds: every fence a naive export would be broken by. */
export const FENCED_FILE = 'A fence: ```js\n```\nx = 1\n~~~\n````\nend\n';

/** The reply the journal holds for the failed turn: raw HTML, an unclosed comment, a fence left open. */
const RAW_REPLY = 'Partial answer with <b>bold</b> and <img src=x onerror=alert(1)>.\n\n<!-- never closed\n\n```js\nconst cut = true;';

/**
 * Builds the chat (see the module docstring) in a fresh journal and workspace; `start` is the clock's
 * first reading (ms since the epoch).
 */
export async function buildExportScenario(start = Date.UTC(2026, 0, 15, 9, 30, 0)): Promise<ExportScenario> {
  let t = start;
  const step = () => (t += 60_000);
  const workspace = trackedTempDir('nac-export-ws-');
  fs.writeFileSync(path.join(workspace, 'a.txt'), 'alpha\n');
  fs.writeFileSync(path.join(workspace, 'fences.txt'), FENCED_FILE);
  const h = await openLocal({ workspace, now: () => t, dead: [DEAD_HOST] });
  const { runtime } = h;
  const created = await runtime.createSession('local');
  assert.ok(created.ok);
  const sessionId = created.value.id;
  const title = 'Export <all> the *things* | [1]';
  assert.ok((await runtime.renameSession(sessionId, title)).ok);

  const send = async (prompt: string, answer?: 'allow_once' | 'allow_session' | 'deny' | 'stop'): Promise<string> => {
    step();
    const sent = await runtime.send(sessionId, prompt);
    assert.ok(sent.ok, `send ${prompt}`);
    if (answer) {
      const requestId = await pendingRequest(h, sessionId);
      if (answer === 'stop') assert.ok((await runtime.stop(sessionId)).ok);
      else assert.ok((await runtime.decide(sessionId, requestId, answer)).ok);
    }
    await runtime.whenIdle(sessionId);
    return sent.value.turnId;
  };

  await send('help');
  await send('run ls');
  await send('run cat fences.txt');
  await send('run cat missing.txt');
  await send('write notes.md\n```\nhello <b>world</b>\n```\n\n<!-- a comment the user typed -->');
  await send('run touch made.txt && echo done', 'allow_once');
  await send('run mkdir out', 'allow_session');
  await send('run mkdir out2');
  await send('run rm made.txt', 'deny');
  await send('run touch later.txt', 'stop');

  const closed = await seedDeadRun(h.journal, sessionId, step(), 'run touch restart.txt', true);
  const interrupted = await seedDeadRun(h.journal, sessionId, step(), 'run ls', false);
  await runtime.recoverOrphans();
  await waitFor('recovery of the dead window\'s runs', async () => (await h.journal.read('getTurn', interrupted))?.status === 'failed');

  step();
  const retried = await runtime.retry(sessionId, closed);
  assert.ok(retried.ok);
  assert.ok((await runtime.decide(sessionId, await pendingRequest(h, sessionId), 'allow_once')).ok);
  await runtime.whenIdle(sessionId);
  step();
  assert.ok((await runtime.continueTurn(sessionId, interrupted)).ok);
  await runtime.whenIdle(sessionId);

  await seedFailedTurn(h.journal, sessionId, step());
  return { h, sessionId, title };
}

/**
 * A run of the dead window on a new turn: a `run` invocation with some output, and (`asking`) a
 * boundary request waiting for a decision. Recovery then ends it. Returns the turn id.
 */
async function seedDeadRun(journal: Journal, sessionId: string, at: number, prompt: string, asking: boolean): Promise<string> {
  const turnId = `seeded-${at}`;
  const runId = `${turnId}-run`;
  const command = prompt.slice('run '.length);
  assert.ok((await journal.write('startTurn', {
    turn: { id: turnId, sessionId, prompt, origin: 'prompt', parentTurnId: null, createdAt: at },
    run: { id: runId, instanceId: DEAD_HOST, provider: 'local' },
    // The dead window left two runs of the chat running (as a build before the journal's busy check
    // could): the earlier one does not count as busy for the seed.
    endedRunIds: (await journal.read('listRunsInFlight')).map((r) => r.id),
  })).ok);
  assert.ok((await journal.write('appendEvents', runId, [{ kind: 'text', payload: { text: `Running \`${command}\`…\n` } }], at)).ok);
  assert.ok((await journal.write('startInvocation', { id: `${turnId}-inv`, runId, tool: 'run', input: '{}', summary: command, at })).ok);
  if (asking) {
    assert.ok((await journal.write('createBoundaryRequest', {
      id: `${turnId}-req`, runId, invocationId: `${turnId}-inv`, kind: 'command', subject: command,
      why: '`touch` is not a read-only command.', detail: null, scopeKey: 'command:touch', at: at + 1,
    })).ok);
  } else {
    assert.ok((await journal.write('appendEvents', runId, [{ kind: 'invocation_output', payload: { invocationId: `${turnId}-inv`, chunk: 'a.txt\n' } }], at + 2)).ok);
  }
  return turnId;
}

/**
 * A turn whose agent failed (as an OpenAI-compatible server answering 500 would end it): a partial
 * reply with raw HTML and a fence left open, a finished invocation that ran 1.5 s, a warning notice,
 * and the run's end with `agent_error` and its message.
 */
async function seedFailedTurn(journal: Journal, sessionId: string, at: number): Promise<void> {
  const turnId = `seeded-${at}`;
  const runId = `${turnId}-run`;
  const inv = `${turnId}-inv`;
  assert.ok((await journal.write('startTurn', {
    turn: { id: turnId, sessionId, prompt: 'explain <this>\n  - with a list\n1. and a number', origin: 'prompt', parentTurnId: null, createdAt: at },
    run: { id: runId, instanceId: 'host-a', provider: 'local' },
  })).ok);
  assert.ok((await journal.write('startInvocation', { id: inv, runId, tool: 'run', input: '{}', summary: 'grep -rn "TODO" .', at })).ok);
  assert.ok((await journal.write('appendEvents', runId, [{ kind: 'invocation_output', payload: { invocationId: inv, chunk: 'src/a.ts:3: // TODO <later>\r\n' } }], at + 700)).ok);
  assert.ok((await journal.write('finishInvocation', { id: inv, status: 'completed', exitCode: 0, at: at + 1_500 })).ok);
  assert.ok((await journal.write('appendEvents', runId, [
    { kind: 'text', payload: { text: RAW_REPLY } },
    { kind: 'notice', payload: { level: 'warning', message: 'The model server answered slowly; set `nativeAgentChats.openaiCompatible.baseUrl` to a closer one.\n*Retrying once.*' } },
  ], at + 2_000)).ok);
  assert.ok((await journal.write('finishRun', {
    runId, status: 'failed', turnStatus: 'failed', errorClass: 'agent_error', message: 'The server answered 500 <Internal Server Error>.', at: at + 3_000,
  })).ok);
}
