/**
 * A turn's attachments as its agent gets them, read from the journal when the run starts: the
 * content journaled with the prompt (so Retry and Continue send exactly what the first turn sent,
 * never the file as it is now). A file outside the workspace, journaled `pending`, is read only
 * after a boundary request of kind `read_outside_workspace` with the same scope key as the
 * product's own reads of that file (so "Allow for this session" covers both), then journaled
 * `attached`, or `denied` and left out; either way a notice in the transcript says so.
 */
import type { AgentAttachment } from '../../core/attachments';
import type { AttachmentRecord } from '../../journal/core';
import type { AgentTurnContext } from '../agent';
import type { RunContext } from '../runContext';
import { runJournal, type RuntimeScope } from '../scope';
import { readFileText } from './readAttachments';

/** What a denied attachment's note says. */
export const DENIED_ATTACHMENT_NOTE = 'not sent: reading this file outside the workspace folder was denied';

/** Asks for one pending attachment, reads it if allowed, and journals what became of it. */
async function settlePending(scope: RuntimeScope, run: RunContext, ctx: AgentTurnContext, a: AttachmentRecord): Promise<void> {
  const outcome = await ctx.requestBoundary({
    kind: 'read_outside_workspace',
    subject: a.path,
    why: 'Attaching a file outside the workspace folder to your message',
    scopeKey: `read_outside_workspace:${a.path}`,
    grants: 'reading this file again in this chat',
  });
  // Stopped while it waited: the run ends without its agent, and the attachment stays pending.
  if (run.aborted) return;
  let text: string | null = null;
  let originalSize = 0;
  let note: string | null = DENIED_ATTACHMENT_NOTE;
  if (outcome.approved) {
    const read = await readFileText(a.path, a.path, a.range);
    if (read.ok) ({ text, originalSize, cutNote: note } = read.value);
    else note = `not sent: ${read.message}`;
  }
  const notice = text === null ? `${a.path} was not attached: ${note?.replace(/^not sent: /, '')}` : `Attached ${a.path} (${originalSize.toLocaleString('en-US')} bytes).`;
  const r = await runJournal(scope).write('resolveAttachment', {
    runId: run.runId, attachmentId: a.id, text, originalSize, note, notice, at: scope.now(),
  });
  if (!r.ok) {
    run.refuse(r.message);
    return;
  }
  scope.notifier.publish(run.sessionId, r.value.events);
  if (r.value.turn) scope.notifier.emit({ type: 'update', sessionId: run.sessionId, update: { type: 'turn', turn: r.value.turn } });
}

/**
 * The attachments of turn `turnId` for its agent, in order, read from the journal, or undefined
 * when one is still `pending` (its boundary request waits on the user: `attachmentsForAgent`, once
 * the run is driven). Read before the agent starts, so that a send resolves with the agent holding
 * its prompt, as without attachments. Throws when stored content is damaged (`getContent`), which
 * fails the turn rather than sending something else.
 */
export async function attachedToTurn(scope: RuntimeScope, turnId: string): Promise<AgentAttachment[] | undefined> {
  const listed = await runJournal(scope).read('listAttachments', turnId);
  if (listed.some((a) => a.state === 'pending')) return undefined;
  return contentsOf(scope, listed);
}

/**
 * The attachments of `run`'s turn for its agent, in order (see module docstring); pending ones are
 * asked for first. Empty when the run was stopped meanwhile. Throws as `attachedToTurn`.
 */
export async function attachmentsForAgent(scope: RuntimeScope, run: RunContext, ctx: AgentTurnContext): Promise<AgentAttachment[]> {
  const journal = runJournal(scope);
  const listed = await journal.read('listAttachments', run.turnId);
  for (const a of listed) {
    if (a.state !== 'pending') continue;
    await settlePending(scope, run, ctx, a);
    if (run.aborted || run.refused) return [];
  }
  return contentsOf(scope, await journal.read('listAttachments', run.turnId));
}

/** The text of each `attached` one of `listed` (the others are left out), from the content store. */
async function contentsOf(scope: RuntimeScope, listed: readonly AttachmentRecord[]): Promise<AgentAttachment[]> {
  const journal = runJournal(scope);
  const sent: AgentAttachment[] = [];
  for (const a of listed) {
    if (a.state !== 'attached' || a.hash === null) continue;
    const bytes = await journal.read('getContent', a.hash);
    if (!bytes) throw new Error(`The content attached as ${a.path} is missing from the journal.`);
    sent.push({ kind: a.kind, path: a.path, ...(a.range ? { range: a.range } : {}), text: Buffer.from(bytes).toString('utf8'), cutNote: a.cutNote });
  }
  return sent;
}
