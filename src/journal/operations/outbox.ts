/**
 * Operations on a chat's outbox (schema 5, docs/ARCHITECTURE.md "Prompts: the outbox, the queue and
 * delivery"): a message submitted becomes a turn at once or waits in the chat's queue; queued
 * messages are edited, discarded or sent by the user; the end of a run moves the queue
 * (`moveQueue`, called by `finishRun` in its own transaction: the one-sender rule); the agent's
 * acknowledgement marks a turn delivered. Every decision is a conditional write inside the caller's
 * transaction, so two windows can never both send a message, and a client id given twice never
 * makes a second turn.
 */
import type { QueuedPromptRecord, TurnRecord } from '../../core/events';
import { compareQueued, holdReasonOf, MAX_QUEUED_PROMPTS, nextToSend } from '../../core/outbox';
import type { QueuedPromptState, SentFrom } from '../../core/vocabulary';
import { JournalRefusedError } from '../errors';
import type { RunRecord } from '../records';
import { toQueuedPrompt } from './rows';
import type { AttachmentInput } from './attachments';
import type { FinishRunInput, NextTurnIds, QueueMove } from './turnsAndRuns';
import type { Concerns } from '../core';
import type { JournalDb } from './database';
import type { ChatFences } from './fences';

/** The schema version that has the outbox (client ids, delivery states, `queued_prompts`). */
export const OUTBOX_SCHEMA = 5;

/** Input of `submitPrompt`. Times in ms. */
export interface SubmitPromptInput {
  readonly sessionId: string;
  /** The id the view made for the message (a UUID). */
  readonly clientId: string;
  readonly text: string;
  readonly at: number;
  /** The ids the turn and run take if the message goes out at once, and the window that drives it. */
  readonly next: NextTurnIds;
  /** False: answer `busy` where the message would wait in the queue (a caller that starts now or not at all). */
  readonly queue: boolean;
  /**
   * Runs of the chat the submitting window knows have ended though the journal could not record
   * their end yet (a full disk; it writes them again later): not counted as running.
   */
  readonly endedRunIds?: readonly string[];
  /**
   * Edit and resend: the turn this message replaces. Accepted only while that turn is the chat's
   * last, has ended, and no run of the chat is running (`not_replaceable` otherwise); never queued.
   */
  readonly replacesTurnId?: string;
  /** What the user attached (written with the turn or the queued message, in this transaction). */
  readonly attachments?: readonly AttachmentInput[];
}

/**
 * What `submitPrompt` did: started a turn (`turn`, `run`: driven by `next.instanceId`), queued the
 * message, found its client id already given with the same text (`duplicate`: the turn it became,
 * null while queued or after a discard) or with another (`conflict`), or refused it (`full`: the
 * queue holds MAX_QUEUED_PROMPTS; `busy`: it would wait and the caller asked not to queue).
 */
export type SubmitPromptResult =
  | { readonly kind: 'started'; readonly turn: TurnRecord; readonly run: RunRecord }
  | { readonly kind: 'queued'; readonly prompt: QueuedPromptRecord }
  | { readonly kind: 'duplicate'; readonly turnId: string | null }
  | { readonly kind: 'conflict' }
  | { readonly kind: 'full' }
  | { readonly kind: 'busy' }
  /** An edit and resend refused (see `SubmitPromptInput.replacesTurnId`); `message` says why, for people. */
  | { readonly kind: 'not_replaceable'; readonly message: string };

/** What an edit or a discard did: changed the message, or found it no longer queued (`state`: what it is now). */
export type QueueEditResult =
  | { readonly kind: 'changed'; readonly prompt: QueuedPromptRecord }
  | { readonly kind: 'not_queued'; readonly state: QueuedPromptState };

/**
 * What `sendQueuedPrompt` did: started the message's turn now (no run was running), marked it Send
 * now (runs are running: the end of one sends it; the caller stops `running`, the ids of the chat's
 * runs running when it was marked, read in the marking transaction), or found it no longer queued.
 */
export type SendQueuedResult =
  | { readonly kind: 'started'; readonly turn: TurnRecord; readonly run: RunRecord }
  | { readonly kind: 'marked'; readonly prompt: QueuedPromptRecord; readonly running: readonly string[] }
  | { readonly kind: 'not_queued'; readonly state: QueuedPromptState };

/**
 * The operations of this concern (see module docstring): one object of `JournalCore`'s composition
 * (../core.ts), given the database (`db`), the fences (`fences`) and the concerns it calls
 * (`peers`: attachments, sessions, turns).
 */
export class OutboxOps {
  constructor(private readonly db: JournalDb, private readonly fences: ChatFences, private readonly peers: Pick<Concerns, 'attachments' | 'sessions' | 'turns'>) {}

  /**
   * The user sent a message (one transaction): a chat with a run still running (in any window, or
   * orphaned and not yet recovered) or with queued messages that are not held gets it at the end
   * of its queue; otherwise it becomes a turn at once (`sent_from = 'composer'`). A client id seen
   * before (on a turn or in the queue) makes nothing new. See `SubmitPromptResult`.
   * @throws JournalRefusedError('not_found') for an unknown chat.
   */
  submitPrompt(input: SubmitPromptInput): SubmitPromptResult {
    const session = this.peers.sessions.getSession(input.sessionId);
    if (!session) throw new JournalRefusedError('not_found', `No chat with id ${input.sessionId}.`);
    this.fences.touch(input.sessionId);
    const seen = this.clientIdSeen(input.clientId);
    if (seen) return seen.sessionId === input.sessionId && seen.text === input.text ? { kind: 'duplicate', turnId: seen.turnId } : { kind: 'conflict' };
    const attached = input.attachments ? { attachments: input.attachments } : {};
    if (input.replacesTurnId !== undefined) {
      const problem = this.replaceProblem(input.sessionId, input.replacesTurnId, input.endedRunIds);
      if (problem) return { kind: 'not_replaceable', message: problem };
      const extra = { replacesTurnId: input.replacesTurnId, ...attached };
      return { kind: 'started', ...this.startQueuedTurn(input.sessionId, input.clientId, input.text, 'composer', input.next, input.at, extra) };
    }
    const waiting = this.db.one("SELECT 1 AS x FROM queued_prompts WHERE session_id = ? AND state = 'queued' AND hold IS NULL LIMIT 1", [input.sessionId]);
    if (!this.hasRunningRun(input.sessionId, input.endedRunIds) && !waiting) {
      return { kind: 'started', ...this.startQueuedTurn(input.sessionId, input.clientId, input.text, 'composer', input.next, input.at, attached) };
    }
    if (!input.queue) return { kind: 'busy' };
    const counts = this.db.one(
      "SELECT SUM(state = 'queued') AS queued, COALESCE(MAX(position), 0) AS last FROM queued_prompts WHERE session_id = ?",
      [input.sessionId],
    );
    if (Number(counts?.queued ?? 0) >= MAX_QUEUED_PROMPTS) return { kind: 'full' };
    this.db.run(
      "INSERT INTO queued_prompts (client_id, session_id, text, state, position, hold, send_now, turn_id, created_at, updated_at) VALUES (?, ?, CAST(? AS TEXT), 'queued', ?, NULL, 0, NULL, ?, ?)",
      [input.clientId, input.sessionId, input.text, Number(counts?.last ?? 0) + 1, input.at, input.at],
    );
    if (input.attachments?.length) this.peers.attachments.insertAttachments({ sessionId: input.sessionId, turnId: null, clientId: input.clientId }, input.attachments, input.at);
    return { kind: 'queued', prompt: this.getQueuedPrompt(input.clientId)! };
  }

  /**
   * Replaces the text of a message still queued (conditional on its state, in this transaction).
   * @throws JournalRefusedError('not_found') when the chat has no message with that client id.
   */
  editQueuedPrompt(sessionId: string, clientId: string, text: string, at: number): QueueEditResult {
    const prompt = this.queuedPromptOf(sessionId, clientId);
    if (prompt.state !== 'queued') return { kind: 'not_queued', state: prompt.state };
    this.db.run("UPDATE queued_prompts SET text = ?, updated_at = ? WHERE client_id = ? AND state = 'queued'", [text, at, clientId]);
    return { kind: 'changed', prompt: this.getQueuedPrompt(clientId)! };
  }

  /**
   * Removes a message still queued (its row stays, `discarded`, so its client id is still known).
   * @throws JournalRefusedError('not_found') when the chat has no message with that client id.
   */
  discardQueuedPrompt(sessionId: string, clientId: string, at: number): QueueEditResult {
    const prompt = this.queuedPromptOf(sessionId, clientId);
    if (prompt.state !== 'queued') return { kind: 'not_queued', state: prompt.state };
    this.db.run("UPDATE queued_prompts SET state = 'discarded', updated_at = ? WHERE client_id = ? AND state = 'queued'", [at, clientId]);
    return { kind: 'changed', prompt: this.getQueuedPrompt(clientId)! };
  }

  /**
   * The user's Send (a held message) or Send now: with no run running in the chat the message
   * becomes a turn at once (`sent_from = 'send_now'`, ids `next`); otherwise it is marked Send now
   * (first in the queue, sent by the running run's end even after a Stop). See `SendQueuedResult`.
   * @throws JournalRefusedError('not_found') when the chat has no message with that client id.
   */
  sendQueuedPrompt(sessionId: string, clientId: string, next: NextTurnIds, at: number): SendQueuedResult {
    const prompt = this.queuedPromptOf(sessionId, clientId);
    if (prompt.state !== 'queued') return { kind: 'not_queued', state: prompt.state };
    const running = this.runningRunIds(sessionId);
    if (running.length === 0) return { kind: 'started', ...this.claim(prompt, 'send_now', next, at) };
    this.db.run("UPDATE queued_prompts SET send_now = 1, updated_at = ? WHERE client_id = ? AND state = 'queued'", [at, clientId]);
    return { kind: 'marked', prompt: this.getQueuedPrompt(clientId)!, running };
  }

  /**
   * The agent acknowledged the turn's prompt: `sending` → `delivered`. Idempotent (`marked` false
   * when it was delivered already, or has no delivery state: a turn before schema 5).
   * @throws JournalRefusedError('not_found') for an unknown turn.
   */
  markDelivered(turnId: string): { marked: boolean } {
    const row = this.db.one('SELECT session_id FROM turns WHERE id = ?', [turnId]);
    if (!row) throw new JournalRefusedError('not_found', `No turn with id ${turnId}.`);
    this.fences.touch(row.session_id as string);
    return { marked: this.db.run("UPDATE turns SET delivery = 'delivered' WHERE id = ? AND delivery = 'sending'", [turnId]) > 0 };
  }

  /** The chat's messages still queued, in the order they go out (`compareQueued`); none before schema 5. */
  listQueuedPrompts(sessionId: string): QueuedPromptRecord[] {
    if (this.db.userVersion() < OUTBOX_SCHEMA) return [];
    return this.peers.attachments.queuedWithAttachments(this.fences.decodeAll(this.db.all("SELECT * FROM queued_prompts WHERE session_id = ? AND state = 'queued'", [sessionId]), toQueuedPrompt)).sort(compareQueued);
  }

  /** A message of any chat's queue in any state (kept once sent or discarded), or undefined; none before schema 5. */
  getQueuedPrompt(clientId: string): QueuedPromptRecord | undefined {
    if (this.db.userVersion() < OUTBOX_SCHEMA) return undefined;
    const row = this.db.one('SELECT * FROM queued_prompts WHERE client_id = ?', [clientId]);
    return row && this.peers.attachments.queuedWithAttachments(this.fences.decodeAll([row], toQueuedPrompt))[0];
  }

  /**
   * Moves the chat's queue after `run` ended with `input.status` (called by `finishRun`, in its
   * transaction): claims `nextToSend` as a turn with ids `input.next` (`sent_from` 'send_now' for a
   * message the user asked to Send now, else 'queue'), then holds the messages left waiting for the
   * reason `holdReasonOf` gives (a message keeps the first reason it was held for; a hold clears
   * Send now, so a decision taken before a restart is never acted on after it). Claims nothing
   * without `next`. While another run of the chat is running (`input.endedRunIds` aside) its end moves the queue, so this one
   * neither claims nor holds (a Stop or failure of an earlier run, its end written late after a full
   * disk, would hold what waits for that reply, Send now included); only recovery's end still holds
   * all (a restart never sends on its own).
   */
  moveQueue(run: RunRecord, input: FinishRunInput): QueueMove {
    const { status, next, at } = input;
    const queued = this.listQueuedPrompts(run.sessionId);
    if (queued.length === 0) return { held: 0 };
    const othersRunning = this.hasRunningRun(run.sessionId, input.endedRunIds);
    if (othersRunning && status !== 'interrupted') return { held: 0 };
    const chosen = next && !othersRunning ? nextToSend(queued, status) : undefined;
    const claimed = chosen && this.claim(chosen, chosen.sendNow ? 'send_now' : 'queue', next!, at);
    const reason = holdReasonOf(status, claimed !== undefined && chosen!.sendNow);
    const held = reason === null ? 0 : this.db.run(
      "UPDATE queued_prompts SET hold = COALESCE(hold, ?), send_now = 0, updated_at = ? WHERE session_id = ? AND state = 'queued' AND (hold IS NULL OR send_now = 1)",
      [reason, at, run.sessionId],
    );
    return claimed ? { claimed, held } : { held };
  }

  /** Makes a queued message the chat's next turn (ids `next`) and marks it sent, in this transaction. */
  private claim(prompt: QueuedPromptRecord, sentFrom: SentFrom, next: NextTurnIds, at: number): { turn: TurnRecord; run: RunRecord } {
    const started = this.startQueuedTurn(prompt.sessionId, prompt.clientId, prompt.text, sentFrom, next, at);
    this.peers.attachments.claimAttachments(prompt.clientId, next.turnId);
    this.db.run("UPDATE queued_prompts SET state = 'sent', turn_id = ?, send_now = 0, updated_at = ? WHERE client_id = ? AND state = 'queued'", [
      next.turnId, at, prompt.clientId,
    ]);
    // Read again: the turn now has the message's attachments.
    return { turn: this.peers.turns.getTurn(next.turnId)!, run: started.run };
  }

  /**
   * Why turn `turnId` cannot be replaced by an edited prompt now, or null: it must be this chat's
   * last turn (a later one would make the edit rewrite what came after it), over, with no run of the
   * chat running (`endedRunIds` aside) and no message waiting to go next.
   */
  /**
   * Why turn `turnId` of chat `sessionId` cannot be edited and sent again now (a sentence for
   * people), or null when it can: what `submitPrompt` with `replacesTurnId` checks in its own
   * transaction, read ahead of it (an edit that undoes the turn's file changes first asks before undoing).
   */
  replaceProblemOf(sessionId: string, turnId: string): string | null {
    return this.replaceProblem(sessionId, turnId);
  }

  private replaceProblem(sessionId: string, turnId: string, endedRunIds?: readonly string[]): string | null {
    const turn = this.peers.turns.getTurn(turnId);
    if (!turn || turn.sessionId !== sessionId) return 'That request is not part of this chat.';
    // Later in the journal's sequence, not by creation time: a clock stepped back must not make an
    // older turn look like the last one (its Edit would replace the wrong request).
    const later = this.db.one('SELECT 1 AS x FROM turns WHERE session_id = ? AND search_doc > ? LIMIT 1', [sessionId, turn.seq]);
    if (later) return 'Only the last request can be edited and sent again: another one followed it.';
    if (turn.status === 'running' || this.hasRunningRun(sessionId, endedRunIds)) return 'Wait for the reply to end (or press Stop), then edit the request.';
    if (this.db.one("SELECT 1 AS x FROM queued_prompts WHERE session_id = ? AND state = 'queued' AND hold IS NULL LIMIT 1", [sessionId])) {
      return 'Messages are queued to go next: send or remove them first.';
    }
    return null;
  }

  /**
   * Starts a prompt turn for a message (its client id on the turn) with the chat's provider;
   * `extra.replacesTurnId`: an edit and resend; `extra.attachments`: what the user attached.
   */
  private startQueuedTurn(
    sessionId: string, clientId: string, text: string, sentFrom: SentFrom, next: NextTurnIds, at: number,
    extra: { readonly replacesTurnId?: string; readonly attachments?: readonly AttachmentInput[] } = {},
  ): { turn: TurnRecord; run: RunRecord } {
    const { replacesTurnId, attachments } = extra;
    const provider = this.peers.sessions.getSession(sessionId)!.provider;
    return this.peers.turns.insertTurnAndRun({
      turn: {
        id: next.turnId, sessionId, prompt: text, origin: 'prompt', parentTurnId: null, createdAt: at, clientId, sentFrom, model: next.model ?? null,
        ...(replacesTurnId ? { replacesTurnId } : {}),
      },
      run: { id: next.runId, instanceId: next.instanceId, provider },
      ...(attachments?.length ? { attachments } : {}),
    });
  }

  /** Whether a run of the chat other than `except` is still running (in some window, or orphaned). */
  private hasRunningRun(sessionId: string, except: readonly string[] = []): boolean {
    return this.runningRunIds(sessionId).some((id) => !except.includes(id));
  }

  /** The ids of the chat's runs still running (in some window, or orphaned). */
  private runningRunIds(sessionId: string): string[] {
    return this.db.all("SELECT id FROM runs WHERE session_id = ? AND status = 'running'", [sessionId]).map((r) => r.id as string);
  }

  /** Where a client id went: its turn, or its row in a queue (the turn it became, if sent). */
  private clientIdSeen(clientId: string): { sessionId: string; text: string; turnId: string | null } | undefined {
    const turn = this.db.one('SELECT id, session_id, prompt FROM turns WHERE client_id = ?', [clientId]);
    if (turn) return { sessionId: turn.session_id as string, text: turn.prompt as string, turnId: turn.id as string };
    const queued = this.db.one('SELECT session_id, text, turn_id FROM queued_prompts WHERE client_id = ?', [clientId]);
    return queued && { sessionId: queued.session_id as string, text: queued.text as string, turnId: (queued.turn_id as string | null) ?? null };
  }

  /** The chat's message with that client id, its chat touched (a write follows). @throws JournalRefusedError('not_found'). */
  private queuedPromptOf(sessionId: string, clientId: string): QueuedPromptRecord {
    if (!this.peers.sessions.getSession(sessionId)) throw new JournalRefusedError('not_found', `No chat with id ${sessionId}.`);
    this.fences.touch(sessionId);
    const prompt = this.getQueuedPrompt(clientId);
    if (!prompt || prompt.sessionId !== sessionId) throw new JournalRefusedError('not_found', 'This chat has no queued message with that id.');
    return prompt;
  }
}
