/**
 * Operations on turns and their runs: start a turn with its first run (and its attachments), finish a run and its turn
 * (and, in the same transaction, move the chat's queue: outbox.ts).
 */
import type { LedgerEvent, TurnRecord } from '../../core/events';
import type { ErrorClass, RunStatus, TurnStatus } from '../../core/vocabulary';
import { JournalRefusedError } from '../errors';
import type { RunRecord } from '../records';
import type { AttachmentInput } from './attachments';
import { NEXT_ACTIVITY, type JournalDb } from './database';
import { toRun, toTurn } from './rows';
import type { Concerns } from '../core';
import type { ChatFences } from './fences';

/** Input of `startTurn`: a turn and its first run, created together. */
export interface StartTurnInput {
  /**
   * `turn.model`: the model the starting window's provider setting names (null: none); the turn
   * records the chat's choice instead when it has one, read in this transaction.
   */
  readonly turn: Omit<TurnRecord, 'status' | 'errorClass' | 'seq'>;
  readonly run: { readonly id: string; readonly instanceId: string; readonly provider: string };
  /**
   * Runs of the chat the writing window knows have ended though the journal could not record their
   * end yet (a full disk): not counted as running.
   */
  readonly endedRunIds?: readonly string[];
  /** What the user attached to the prompt (written with the turn, same transaction). */
  readonly attachments?: readonly AttachmentInput[];
  /** A turn whose attachments this one sends again (Retry, Continue): copied from the journal. */
  readonly attachmentsOf?: string;
}

/**
 * The ids of the turn and run a transaction may start, and the window that will drive that run
 * (its instance id): given by the window that writes the transaction, which drives what it claimed.
 */
export interface NextTurnIds {
  readonly turnId: string;
  readonly runId: string;
  readonly instanceId: string;
  /** The model the writing window's setting names for the chat's provider (null: none): see `StartTurnInput`. */
  readonly model?: string | null;
}

/**
 * Input of `finishRun`: the run's and its turn's terminal state; `next`: the ids the queue's next
 * message takes if this end sends one (see `QueueMove`). Without `next` no message is claimed
 * (recovery's `interrupted` end never claims one anyway).
 */
export interface FinishRunInput {
  readonly runId: string;
  readonly status: Exclude<RunStatus, 'running'>;
  readonly turnStatus: Exclude<TurnStatus, 'running'>;
  readonly errorClass?: ErrorClass;
  readonly message?: string;
  readonly at: number;
  readonly next?: NextTurnIds;
  /**
   * Other runs of the chat the writing window knows have ended though the journal could not record
   * their end yet (a full disk; written again later): not counted as running when the queue moves.
   */
  readonly endedRunIds?: readonly string[];
}

/** What the end of a run did to its chat's queue: the turn and run it claimed (to be driven by `next.instanceId`), how many it held. */
export interface QueueMove {
  readonly claimed?: { readonly turn: TurnRecord; readonly run: RunRecord };
  readonly held: number;
}

/**
 * The operations of this concern (see module docstring): one object of `JournalCore`'s composition
 * (../core.ts), given the database (`db`), the fences (`fences`) and the concerns it calls
 * (`peers`: attachments, events, outbox, sessions).
 */
export class TurnRunOps {
  constructor(private readonly db: JournalDb, private readonly fences: ChatFences, private readonly peers: Pick<Concerns, 'attachments' | 'events' | 'outbox' | 'sessions'>) {}

  /**
   * Creates a turn (status running, delivery `sending`: its prompt is not handed to the agent yet)
   * and its run (status running) in the caller's transaction. `turn.clientId` and `turn.sentFrom`
   * are recorded when given (a message of the composer or the queue), else NULL (Retry, Continue).
   * @throws JournalRefusedError('busy') while another run of the chat is running (in any window, or
   * orphaned and not yet recovered; `input.endedRunIds` aside), 'not_retryable' when the parent turn
   * (Retry, Continue) already has a follow-up, 'not_found' for an unknown chat.
   */
  startTurn(input: StartTurnInput): { turn: TurnRecord; run: RunRecord } {
    const t = input.turn;
    if (!this.peers.sessions.getSession(t.sessionId)) throw new JournalRefusedError('not_found', `No chat with id ${t.sessionId}.`);
    this.fences.touch(t.sessionId);
    const ended = input.endedRunIds ?? [];
    // Checked inside the transaction: another window may have started a run of this chat since this
    // window last looked, and two runs of one chat at once would interleave their replies.
    if (this.db.all("SELECT id FROM runs WHERE session_id = ? AND status = 'running'", [t.sessionId]).some((r) => !ended.includes(r.id as string))) {
      throw new JournalRefusedError('busy', 'The agent is already working on this chat (in this or another window). Wait for it or press Stop.');
    }
    // A turn is followed up once: two windows pressing Retry on it would send its prompt twice.
    if (t.parentTurnId !== null && this.db.one('SELECT 1 AS x FROM turns WHERE parent_turn_id = ? LIMIT 1', [t.parentTurnId])) {
      throw new JournalRefusedError('not_retryable', 'That turn was already retried or continued (in this or another window).');
    }
    return this.insertTurnAndRun(input);
  }

  /** Inserts a turn and its first run (`status` running) for a caller that checked no other run of the chat runs. */
  insertTurnAndRun(input: StartTurnInput): { turn: TurnRecord; run: RunRecord } {
    const t = input.turn;
    this.db.run(
      `INSERT INTO turns (id, session_id, prompt, origin, parent_turn_id, status, created_at, client_id, delivery, sent_from, replaces_turn_id, model)
       VALUES (?, ?, CAST(? AS TEXT), ?, ?, ?, ?, ?, ?, ?, ?, COALESCE((SELECT model FROM sessions WHERE id = ?), ?))`,
      [
        t.id, t.sessionId, t.prompt, t.origin, t.parentTurnId, 'running', t.createdAt, t.clientId ?? null, 'sending', t.sentFrom ?? null,
        t.replacesTurnId ?? null, t.sessionId, t.model ?? null,
      ],
    );
    this.db.run(
      'INSERT INTO runs (id, turn_id, session_id, instance_id, provider, status, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [input.run.id, t.id, t.sessionId, input.run.instanceId, input.run.provider, 'running', t.createdAt],
    );
    this.db.run(`UPDATE sessions SET updated_at = ?, activity = ${NEXT_ACTIVITY} WHERE id = ?`, [t.createdAt, t.sessionId]);
    if (input.attachments?.length) this.peers.attachments.insertAttachments({ sessionId: t.sessionId, turnId: t.id, clientId: t.clientId ?? null }, input.attachments, t.createdAt);
    if (input.attachmentsOf) this.peers.attachments.copyAttachments(input.attachmentsOf, t.id, t.createdAt);
    return { turn: this.getTurn(t.id)!, run: this.getRun(input.run.id)! };
  }

  /** One turn or undefined. */
  getTurn(id: string): TurnRecord | undefined {
    const row = this.db.one(`SELECT ${this.db.turnColumns()} FROM turns WHERE id = ?`, [id]);
    return row && this.peers.attachments.withAttachments(this.fences.decodeAll([row], toTurn))[0];
  }

  /** A session's turns, oldest first: in the journal's sequence (`TurnRecord.seq`), never by a clock. */
  listTurns(sessionId: string): TurnRecord[] {
    return this.peers.attachments.withAttachments(this.fences.decodeAll(this.db.all(`SELECT ${this.db.turnColumns()} FROM turns WHERE session_id = ? ORDER BY search_doc`, [sessionId]), toTurn));
  }

  /** One run, or undefined when there is none or it cannot be read (skipped, its chat fenced). */
  getRun(id: string): RunRecord | undefined {
    const row = this.db.one('SELECT * FROM runs WHERE id = ?', [id]);
    return row && this.fences.decodeAll([row], toRun)[0];
  }

  /**
   * The run a write acts on. @throws JournalRefusedError('not_found') for an unknown run,
   * ('row_unreadable') for one this build cannot read (its chat is fenced).
   */
  requireRun(id: string): RunRecord {
    return this.fences.decodeForWrite(this.db.one('SELECT * FROM runs WHERE id = ?', [id]), toRun, `No run with id ${id}.`);
  }

  /** Runs still marked running (in flight in some host, or orphaned by a dead one), in the order they were written (rowid). */
  listRunsInFlight(): RunRecord[] {
    return this.fences.decodeAll(this.db.all("SELECT * FROM runs WHERE status = 'running' ORDER BY rowid"), toRun);
  }

  /**
   * Ends a run and its turn, appending the `run_finished` event, then moves the chat's queue in the
   * same transaction (`moveQueue`: the one-sender rule, docs/ARCHITECTURE.md "Prompts"). Idempotent:
   * a run that is no longer running is left as it is, `finished` is false and the queue is untouched
   * (no second terminal state, no second claim).
   */
  finishRun(input: FinishRunInput): { finished: boolean; events: LedgerEvent[]; queue: QueueMove } {
    const run = this.requireRun(input.runId);
    this.fences.touch(run.sessionId);
    const changed = this.db.run(
      "UPDATE runs SET status = ?, error_class = ?, finished_at = ? WHERE id = ? AND status = 'running'",
      [input.status, input.errorClass ?? null, input.at, input.runId],
    );
    if (changed === 0) return { finished: false, events: [], queue: { held: 0 } };
    this.db.run("UPDATE turns SET status = ?, error_class = ?, finished_at = ? WHERE id = ? AND status = 'running'", [
      input.turnStatus, input.errorClass ?? null, input.at, run.turnId,
    ]);
    this.db.run(`UPDATE sessions SET updated_at = ?, activity = ${NEXT_ACTIVITY} WHERE id = ?`, [input.at, run.sessionId]);
    const events = this.peers.events.appendEvents(input.runId, [
      {
        kind: 'run_finished',
        payload: {
          status: input.status,
          turnStatus: input.turnStatus,
          ...(input.errorClass ? { errorClass: input.errorClass } : {}),
          ...(input.message ? { message: input.message } : {}),
        },
      },
    ], input.at);
    return { finished: true, events, queue: this.peers.outbox.moveQueue(run, input) };
  }
}
