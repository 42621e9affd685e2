/**
 * Reads a long chat in pieces: one page of turns with their events, and what changed since a view's
 * last read. A view of a 5,000-turn chat then costs what its page costs, not what the chat holds.
 *
 * A page is ordered by the chat's order: the journal's sequence of its turns (`search_doc`, the
 * `TurnCursor`), read through `turns_by_session(session_id, search_doc)`, never their `created_at`,
 * which is the host's clock and may step back. Its events are found through the runs of its turns,
 * whose index `runs_by_session(session_id, started_at)` bounds the scan to the earliest and latest
 * of the page's creation times (a turn's run starts with the same time: `startTurn` writes both;
 * the earliest, not the first turn's, since a clock stepped back makes a later turn's time earlier). Changes are found by a `ChangeMark`: the chat's highest event
 * id (events have an INTEGER PRIMARY KEY, which no VACUUM renumbers) and highest turn rowid when the
 * view last read. Every turn change writes an event (a run's end writes `run_finished` in the same
 * transaction), except a new turn, which the rowid finds. Ids are never reused within a chat while
 * it exists: SQLite takes the table's highest rowid plus one, and the chat's own rows keep that at
 * or above its mark. A database reloaded from disk may number turns differently, so after a reload
 * views read a fresh page (the worker reports every session changed).
 */
import type { LedgerEvent, TurnRecord } from '../../core/events';
import { compareCursors, type TurnCursor } from '../../core/transcript';
import { toEvent, toTurn, type Row } from './rows';
import type { Concerns } from '../core';
import type { JournalDb } from './database';
import type { ChatFences } from './fences';

/**
 * Where a view's reads of a chat stopped: the chat's highest event id and turn rowid then (0: none),
 * and how many turns it had (a chat's turns are only ever added, or deleted with the whole chat).
 */
export interface ChangeMark {
  readonly eventId: number;
  readonly turnRow: number;
  readonly turns: number;
}

/** One page of a chat's turns (see `readTurnPage`). */
export interface TurnPage {
  /** The page's turns, oldest first. */
  readonly turns: TurnRecord[];
  /** Their runs' events, the runs in the order they were written, then by sequence (as `listEvents`). */
  readonly events: LedgerEvent[];
  /** Turns older than the page exist. */
  readonly hasOlder: boolean;
  /** Turns of the whole chat. */
  readonly turnCount: number;
  /** The chat's change mark as of this read (for `readChangesSince`). */
  readonly mark: ChangeMark;
}

/** What changed in a chat since a mark (see `readChangesSince`). */
export type ChatChanges =
  | {
      readonly tooMany: false;
      /** Turns created or changed since the mark, in the chat's order. */
      readonly turns: TurnRecord[];
      /** Events appended since the mark, in the order they were written. */
      readonly events: LedgerEvent[];
      readonly turnCount: number;
      readonly mark: ChangeMark;
    }
  /** More than the caller's limit of events changed: read a page instead. */
  | { readonly tooMany: true };

/**
 * The turns an edit and resend replaced (`replacesTurnId`), each with the chain of turns it retried
 * or continued (`parentTurnId`): together they are the one request the edited prompt replaces.
 */
export function replacedTurnIds(turns: readonly TurnRecord[]): Set<string> {
  const byId = new Map(turns.map((t) => [t.id, t]));
  const replaced = new Set<string>();
  for (const t of turns) {
    let id = t.replacesTurnId ?? null;
    while (id !== null && !replaced.has(id)) {
      replaced.add(id);
      id = byId.get(id)?.parentTurnId ?? null;
    }
  }
  return replaced;
}

/** The schema that gave events an INTEGER PRIMARY KEY `id` (migration 2). */
const EVENT_ID_SCHEMA = 2;

/**
 * The operations of this concern (see module docstring): one object of `JournalCore`'s composition
 * (../core.ts), given the database (`db`), the fences (`fences`) and the concerns it calls
 * (`peers`: attachments).
 */
export class PageOps {
  constructor(private readonly db: JournalDb, private readonly fences: ChatFences, private readonly peers: Pick<Concerns, 'attachments'>) {}

  /**
   * The page of at most `maxTurns` (≥ 1) turns just before `before` in the chat's order, or its last
   * page when `before` is null; the cursor need not be a turn that still exists. Unreadable rows are
   * left out and fence the chat, as in every read.
   */
  readTurnPage(sessionId: string, before: TurnCursor | null, maxTurns: number): TurnPage {
    const limit = Math.max(1, Math.floor(maxTurns));
    const columns = this.db.turnColumns();
    // search_doc is unique, so the cursor's id never breaks a tie (it names the turn for the view).
    const rows = before
      ? this.db.all(`SELECT ${columns} FROM turns WHERE session_id = ? AND search_doc < ? ORDER BY search_doc DESC LIMIT ?`, [sessionId, before.seq, limit + 1])
      : this.db.all(`SELECT ${columns} FROM turns WHERE session_id = ? ORDER BY search_doc DESC LIMIT ?`, [sessionId, limit + 1]);
    const hasOlder = rows.length > limit;
    const turns = this.peers.attachments.withAttachments(this.fences.decodeAll(rows.slice(0, limit).reverse(), toTurn));
    const mark = this.markOf(sessionId);
    return { turns, events: this.eventsOfTurns(sessionId, turns), hasOlder, turnCount: mark.turns, mark };
  }

  /**
   * What changed in the chat since `mark`: turns created since (by rowid) or touched by an event
   * since, and the events since, or `tooMany` when more than `maxEvents` events were written since.
   */
  readChangesSince(sessionId: string, mark: ChangeMark, maxEvents: number): ChatChanges {
    // Schema 1 (a journal read-only at it) has no event ids: every change reads a page.
    if (this.db.userVersion() < EVENT_ID_SCHEMA) return { tooMany: true };
    const eventRows = this.db.all('SELECT * FROM events WHERE session_id = ? AND id > ? ORDER BY id LIMIT ?', [sessionId, mark.eventId, maxEvents + 1]);
    if (eventRows.length > maxEvents) return { tooMany: true };
    // By rowid, not by the chat's index: the turns written since the mark in any chat are few, the
    // chat's own entries in its index are all its turns.
    const turnRows = this.db.all(`SELECT rowid AS turn_row, ${this.db.turnColumns()} FROM turns WHERE rowid > ? AND +session_id = ?`, [mark.turnRow, sessionId]);
    const newIds = new Set(turnRows.map((r) => r.id as string));
    const touched = [...new Set(eventRows.map((r) => r.turn_id as string))].filter((id) => !newIds.has(id));
    if (touched.length > 0) {
      turnRows.push(...this.db.all(`SELECT ${this.db.turnColumns()} FROM turns WHERE id IN (${touched.map(() => '?').join(', ')})`, touched));
    }
    const turns = this.peers.attachments.withAttachments(this.fences.decodeAll(turnRows, toTurn)).sort(compareCursors);
    const lastEvent = eventRows[eventRows.length - 1];
    return {
      tooMany: false,
      turns,
      events: this.fences.decodeAll(eventRows, toEvent),
      turnCount: mark.turns + newIds.size,
      mark: {
        eventId: lastEvent ? (lastEvent.id as number) : mark.eventId,
        turnRow: Math.max(mark.turnRow, ...turnRows.map((r) => (r.turn_row as number | undefined) ?? 0)),
        turns: mark.turns + newIds.size,
      },
    };
  }

  /**
   * The chat's exchanges for agents that take the history in the prompt: each turn's prompt and the
   * text its agent wrote (its `text` events joined), oldest first; a turn without text has ''.
   * Reads prompts and text only, never tool output, so a long chat's history costs its words.
   * `exceptTurnId`: a turn left out (the one the history is for, journaled before it is read).
   * A turn the user edited and sent again (`replaces_turn_id`) is left out, with the failed turns it
   * retried or continued: the edited prompt replaces that request, which is no longer asked.
   */
  listHistory(sessionId: string, exceptTurnId?: string): { prompt: string; reply: string; stopped: boolean }[] {
    const all = this.fences.decodeAll(this.db.all(`SELECT ${this.db.turnColumns()} FROM turns WHERE session_id = ? ORDER BY search_doc`, [sessionId]), toTurn);
    const replaced = replacedTurnIds(all);
    const turns = all.filter((t) => t.id !== exceptTurnId && !replaced.has(t.id));
    const replies = new Map<string, string>();
    const rows = this.db.all(
      // Ledger order by run (in the order written) and seq, not by event id: schema 1 has none.
      "SELECT e.turn_id, json_extract(e.payload, '$.text') AS text FROM events e JOIN runs r ON r.id = e.run_id WHERE e.session_id = ? AND e.kind = 'text' ORDER BY r.rowid, e.seq",
      [sessionId],
    );
    for (const row of rows) {
      if (typeof row.text === 'string') replies.set(row.turn_id as string, (replies.get(row.turn_id as string) ?? '') + row.text);
    }
    return turns.map((t) => ({ prompt: t.prompt, reply: replies.get(t.id) ?? '', stopped: t.status === 'stopped' }));
  }

  /** True when a later turn retries or continues `turnId`. */
  isFollowedUp(turnId: string): boolean {
    return this.db.one('SELECT 1 AS x FROM turns WHERE parent_turn_id = ? LIMIT 1', [turnId]) !== undefined;
  }

  /** The events of `turns` (a page: contiguous in the chat's order), in `listEvents` order. */
  private eventsOfTurns(sessionId: string, turns: readonly TurnRecord[]): LedgerEvent[] {
    if (turns.length === 0) return [];
    const ids = turns.map((t) => t.id);
    const times = turns.map((t) => t.createdAt);
    const rows: Row[] = this.db.all(
      `SELECT e.* FROM runs r JOIN events e ON e.run_id = r.id
       WHERE r.session_id = ? AND r.started_at >= ? AND r.started_at <= ? AND r.turn_id IN (${ids.map(() => '?').join(', ')})
       ORDER BY r.rowid, e.seq`,
      [sessionId, Math.min(...times), Math.max(...times), ...ids],
    );
    return this.fences.decodeAll(rows, toEvent);
  }

  private markOf(sessionId: string): ChangeMark {
    const ids = this.db.userVersion() >= EVENT_ID_SCHEMA;
    // Three scalar subqueries: as one aggregate over the chat's turns, the events' max(id) ran once per
    // turn (6-12 ms at 5,000 turns against ~1.5 ms).
    const row = this.db.one(
      `SELECT ${ids ? '(SELECT max(id) FROM events WHERE session_id = ?)' : '?'} AS event_id,
              (SELECT max(rowid) FROM turns WHERE session_id = ?) AS turn_row,
              (SELECT count(*) FROM turns WHERE session_id = ?) AS turns`,
      [ids ? sessionId : 0, sessionId, sessionId],
    );
    return { eventId: Number(row?.event_id ?? 0), turnRow: Number(row?.turn_row ?? 0), turns: Number(row?.turns ?? 0) };
  }
}
