/**
 * A long chat as its views read it: the transcript of one page of turns, and what changed since a
 * view's last read as updates for the shared reducer (`applyUpdate`). The host keeps no transcript:
 * a panel holds only its `ChangeMark`, and each read costs what the page or the change costs.
 */
import { buildTranscript, cursorOf, type Transcript, type TranscriptUpdate, type TurnCursor } from '../core/transcript';
import type { ChangeMark } from '../journal/core';
import { PAGE_TURNS } from '../protocol/messages';
import type { RuntimeScope } from './scope';

export type { ChangeMark } from '../journal/core';

/**
 * Most events one change read returns; past it the view gets a page instead (what another window
 * wrote while this one was busy can be a whole run's output).
 */
export const MAX_CHANGE_EVENTS = 2000;

/** One page of a chat, as a view shows it. */
export interface TranscriptPage {
  /** The page's turns folded with their events, oldest first. */
  readonly transcript: Transcript;
  /** Turns older than the page exist. */
  readonly hasOlder: boolean;
  /** Turns of the whole chat. */
  readonly turnCount: number;
  /** Where this read stopped (for `changesOf`). */
  readonly mark: ChangeMark;
}

/** What changed since a mark, as updates in the order to apply them: turn records, then events. */
export interface TranscriptChanges {
  readonly updates: readonly TranscriptUpdate[];
  readonly turnCount: number;
  readonly mark: ChangeMark;
}

/** The page of `PAGE_TURNS` turns before `before`, or the chat's last page. */
export async function pageOf(scope: RuntimeScope, sessionId: string, before?: TurnCursor): Promise<TranscriptPage> {
  const page = await scope.journal.read('readTurnPage', sessionId, before ?? null, PAGE_TURNS);
  return { transcript: buildTranscript(page.turns, page.events), hasOlder: page.hasOlder, turnCount: page.turnCount, mark: page.mark };
}

/**
 * What changed in the chat since `mark`, or undefined when more than `MAX_CHANGE_EVENTS` events did
 * (send a page instead). A turn's record comes before its events, so a new turn is known when they arrive.
 */
export async function changesOf(scope: RuntimeScope, sessionId: string, mark: ChangeMark): Promise<TranscriptChanges | undefined> {
  const changes = await scope.journal.read('readChangesSince', sessionId, mark, MAX_CHANGE_EVENTS);
  if (changes.tooMany) return undefined;
  const updates: TranscriptUpdate[] = [
    ...changes.turns.map((turn) => ({ type: 'turn' as const, turn })),
    ...changes.events.map((event) => ({ type: 'event' as const, event })),
  ];
  return { updates, turnCount: changes.turnCount, mark: changes.mark };
}

/**
 * Where turn `turnId` sits in chat `sessionId` (a search result to reveal), or undefined when the
 * journal has no such turn in that chat (deleted since, or another chat's).
 */
export async function turnCursorOf(scope: RuntimeScope, sessionId: string, turnId: string): Promise<TurnCursor | undefined> {
  const turn = await scope.journal.read('getTurn', turnId);
  return turn && turn.sessionId === sessionId ? cursorOf(turn) : undefined;
}
