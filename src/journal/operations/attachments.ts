/**
 * Operations on attachments (table `attachments`; docs/ARCHITECTURE.md "Attachments"): what the user
 * attached to a prompt, written in the transaction that writes the turn or the queued message it
 * belongs to, its content in the content store (contents.ts) in that same transaction.
 *
 * A queued message's attachments (`client_id`) become its turn's (`turn_id`) in the transaction that
 * claims it; Retry and Continue copy their parent turn's rows, so the same content is sent again
 * from the journal. A file outside the workspace is journaled `pending` (nothing read) and becomes
 * `attached` or `denied` when its turn runs, after a boundary request (`resolveAttachment`).
 */
import { ATTACHMENT_KINDS, ATTACHMENT_STATES, type AttachmentKind, type AttachmentState, type AttachmentView, type LineRange } from '../../core/attachments';
import type { LedgerEvent, QueuedPromptRecord, TurnRecord } from '../../core/events';
import { JournalRefusedError } from '../errors';
import { isOneOf } from '../../core/vocabulary';
import { UnreadableRowError, type Row } from './rows';
import type { Concerns } from '../core';
import type { JournalDb } from './database';
import type { ChatFences } from './fences';

/** The schema version that has the `attachments` table. */
export const ATTACHMENTS_SCHEMA = 12;

/**
 * An attachment to write with its prompt: `attached` with `text` (the content sent, already cut to
 * the limit; `originalSize`: bytes before the cut, `cutNote` when cut), or `pending` without text (a
 * file outside the workspace, read after a boundary request when its turn runs).
 */
export interface AttachmentInput {
  readonly kind: AttachmentKind;
  readonly path: string;
  readonly range: LineRange | null;
  readonly state: 'attached' | 'pending';
  readonly text?: string;
  readonly originalSize: number;
  readonly cutNote: string | null;
}

/** A journaled attachment with its row id (what `resolveAttachment` names). */
export interface AttachmentRecord extends AttachmentView {
  readonly id: number;
}

/** Decodes a row of `attachments`. @throws UnreadableRowError when the row cannot be read. */
export function toAttachment(r: Row): AttachmentRecord {
  const bad = (detail: string) => new UnreadableRowError(r.session_id as string, 'attachments', String(r.id), detail, typeof r.kind === 'string' && /^[a-z_]+$/.test(r.kind));
  if (!isOneOf(ATTACHMENT_KINDS, r.kind)) throw bad(`unknown kind ${String(r.kind)}`);
  if (!isOneOf(ATTACHMENT_STATES, r.state)) throw bad(`unknown state ${String(r.state)}`);
  const range = r.start_line === null || r.end_line === null ? undefined : { startLine: Number(r.start_line), endLine: Number(r.end_line) };
  return {
    id: Number(r.id),
    kind: r.kind as AttachmentKind,
    path: r.path as string,
    ...(range ? { range } : {}),
    state: r.state as AttachmentState,
    hash: (r.content_hash as string | null) ?? null,
    sentSize: Number(r.sent_size),
    originalSize: Number(r.original_size),
    cutNote: (r.cut_note as string | null) ?? null,
  };
}

/** The view of a record (no row id): what turns and queued messages carry. */
function viewOf(a: AttachmentRecord): AttachmentView {
  const { id: _id, ...view } = a;
  return view;
}

/**
 * Input of `resolveAttachment`: the pending attachment `attachmentId` of run `runId`'s turn, and what
 * its boundary request decided: `text` read (cut already; `originalSize` before the cut, `note` the
 * cut note) or null (denied: `note` says why). `notice`: the line the transcript shows. Times in ms.
 */
export interface ResolveAttachmentInput {
  readonly runId: string;
  readonly attachmentId: number;
  readonly text: string | null;
  readonly originalSize: number;
  readonly note: string | null;
  readonly notice: string;
  readonly at: number;
}

/**
 * The operations of this concern (see module docstring): one object of `JournalCore`'s composition
 * (../core.ts), given the database (`db`), the fences (`fences`) and the concerns it calls
 * (`peers`: contents, events, turns).
 */
export class AttachmentOps {
  constructor(private readonly db: JournalDb, private readonly fences: ChatFences, private readonly peers: Pick<Concerns, 'contents' | 'events' | 'turns'>) {}

  /**
   * Settles a `pending` attachment of a running run's turn (see `ResolveAttachmentInput`) and appends
   * a `notice` event saying what became of it, in one transaction, so other windows re-read the turn.
   * `changed` false (and no event) when it was not pending any more.
   * @throws JournalRefusedError('not_found') for an unknown run or an attachment not of its turn.
   */
  resolveAttachment(input: ResolveAttachmentInput): { changed: boolean; events: LedgerEvent[]; turn: TurnRecord | undefined } {
    const run = this.db.one('SELECT session_id, turn_id FROM runs WHERE id = ?', [input.runId]);
    if (!run) throw new JournalRefusedError('not_found', `No run with id ${input.runId}.`);
    this.fences.touch(run.session_id as string);
    const owned = this.db.one('SELECT 1 AS x FROM attachments WHERE id = ? AND turn_id = ?', [input.attachmentId, run.turn_id as string]);
    if (!owned) throw new JournalRefusedError('not_found', 'That attachment is not part of this turn.');
    const changed = this.settlePendingAttachment(input.attachmentId, input.text, { originalSize: input.originalSize, note: input.note }, input.at);
    if (!changed) return { changed, events: [], turn: this.peers.turns.getTurn(run.turn_id as string) };
    const level = input.text === null ? 'warning' : 'info';
    const events = this.peers.events.appendEvents(input.runId, [{ kind: 'notice', payload: { level, message: input.notice } }], input.at);
    return { changed, events, turn: this.peers.turns.getTurn(run.turn_id as string) };
  }

  /** Whether this journal has the table (a journal left read-only at an older schema has not). */
  hasAttachments(): boolean {
    return this.db.userVersion() >= ATTACHMENTS_SCHEMA;
  }

  /**
   * Writes `inputs` as the attachments of a turn (`owner.turnId`) or a queued message
   * (`owner.clientId`), in order, storing each `attached` one's text in the content store. Call in
   * the transaction that writes their owner.
   */
  insertAttachments(owner: { sessionId: string; turnId: string | null; clientId: string | null }, inputs: readonly AttachmentInput[], at: number): void {
    inputs.forEach((a, position) => {
      const stored = a.state === 'attached' ? this.peers.contents.storeContent(a.text ?? '', at) : null;
      this.db.run(
        `INSERT INTO attachments (session_id, turn_id, client_id, position, kind, path, start_line, end_line, state, content_hash, sent_size, original_size, cut_note, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          owner.sessionId, owner.turnId, owner.clientId, position, a.kind, a.path, a.range?.startLine ?? null, a.range?.endLine ?? null, a.state,
          stored?.hash ?? null, stored?.size ?? 0, a.originalSize, a.cutNote, at,
        ],
      );
    });
  }

  /** A claimed queued message's attachments become its turn's (same transaction as the claim). */
  claimAttachments(clientId: string, turnId: string): void {
    if (!this.hasAttachments()) return;
    this.db.run('UPDATE attachments SET turn_id = ? WHERE client_id = ? AND turn_id IS NULL', [turnId, clientId]);
  }

  /**
   * Copies the attachments of `fromTurnId` to `toTurnId` (Retry, Continue): the same content, from
   * the journal. A `denied` one is copied `pending`, so the new turn asks again.
   */
  copyAttachments(fromTurnId: string, toTurnId: string, at: number): void {
    if (!this.hasAttachments()) return;
    this.db.run(
      `INSERT INTO attachments (session_id, turn_id, client_id, position, kind, path, start_line, end_line, state, content_hash, sent_size, original_size, cut_note, created_at)
       SELECT session_id, ?, NULL, position, kind, path, start_line, end_line,
              CASE state WHEN 'denied' THEN 'pending' ELSE state END,
              content_hash, sent_size, original_size, CASE state WHEN 'denied' THEN NULL ELSE cut_note END, ?
       FROM attachments WHERE turn_id = ? ORDER BY position`,
      [toTurnId, at, fromTurnId],
    );
  }

  /** A turn's attachments in order, with their row ids; none before the attachments schema. */
  listAttachments(turnId: string): AttachmentRecord[] {
    if (!this.hasAttachments()) return [];
    const rows = this.db.all('SELECT * FROM attachments WHERE turn_id = ? ORDER BY position', [turnId]);
    return this.fences.decodeAll(rows, toAttachment);
  }

  /** `turns` with their attachments (`attachments`, only on turns that have some), read in one query. */
  withAttachments<T extends TurnRecord>(turns: readonly T[]): T[] {
    if (turns.length === 0 || !this.hasAttachments()) return [...turns];
    const byTurn = this.attachmentsBy('turn_id', turns.map((t) => t.id));
    return turns.map((t) => (byTurn.has(t.id) ? { ...t, attachments: byTurn.get(t.id)! } : t));
  }

  /** Queued messages with their attachments (`attachments`, only on messages that have some). */
  queuedWithAttachments(prompts: readonly QueuedPromptRecord[]): QueuedPromptRecord[] {
    if (prompts.length === 0 || !this.hasAttachments()) return [...prompts];
    const byClient = this.attachmentsBy('client_id', prompts.map((p) => p.clientId));
    return prompts.map((p) => (byClient.has(p.clientId) ? { ...p, attachments: byClient.get(p.clientId)! } : p));
  }

  private attachmentsBy(column: 'turn_id' | 'client_id', ids: readonly string[]): Map<string, AttachmentView[]> {
    const rows = this.db.all(`SELECT * FROM attachments WHERE ${column} IN (${ids.map(() => '?').join(', ')}) ORDER BY ${column}, position`, [...ids]);
    const by = new Map<string, AttachmentView[]>();
    for (const row of rows) {
      const decoded = this.fences.decodeAll([row], toAttachment)[0];
      if (!decoded) continue;
      const key = row[column] as string;
      by.set(key, [...(by.get(key) ?? []), viewOf(decoded)]);
    }
    return by;
  }

  /**
   * Settles a `pending` attachment of a turn (after its boundary request): `text` given, it becomes
   * `attached` with that content (cut already, `originalSize`, `cutNote`); null, `denied` with
   * `note` saying why. Returns false (nothing changed) when it is not pending any more.
   */
  private settlePendingAttachment(id: number, text: string | null, sizes: { originalSize: number; note: string | null }, at: number): boolean {
    if (text === null) {
      return this.db.run("UPDATE attachments SET state = 'denied', cut_note = ? WHERE id = ? AND state = 'pending'", [sizes.note, id]) > 0;
    }
    const stored = this.peers.contents.storeContent(text, at);
    return this.db.run(
      "UPDATE attachments SET state = 'attached', content_hash = ?, sent_size = ?, original_size = ?, cut_note = ? WHERE id = ? AND state = 'pending'",
      [stored.hash, stored.size, sizes.originalSize, sizes.note, id],
    ) > 0;
  }
}
