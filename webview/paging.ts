/**
 * The rules by which the view holds a suffix of a long chat (pure, DOM-free, unit-tested): which
 * turn records and events of `update`/`changes` it applies, when an older `page` is prepended, when
 * it asks for the next older page, and when a gap in the host's message numbers (`seq`) calls for a
 * `resync`. `state.ts` folds host messages with these.
 *
 * The view holds the chat's newest turns, from its oldest loaded turn to the end. A turn the host
 * reports that sorts before that oldest turn while older turns exist is not held: it comes with its
 * page when the user scrolls up, and applying it now would put it next to turns it does not follow.
 */
import {
  applyUpdate, compareCursors, cursorOf, type Transcript, type TranscriptTurn, type TranscriptUpdate, type TurnCursor,
} from '../src/core/transcript';

/** What the view knows of the part of the chat it holds. */
export interface Suffix {
  /** The loaded turns, oldest first: the chat's newest turns. */
  readonly transcript: Transcript;
  /** Turns older than the oldest loaded one exist (a `loadOlder` fetches them). */
  readonly hasOlder: boolean;
  /** Turns in the whole chat, loaded or not (the host's count, kept up as turns are added here). */
  readonly turnCount: number;
}

/** The cursor of the oldest loaded turn, or null when none is loaded. */
export function oldestCursor(transcript: Transcript): TurnCursor | null {
  const oldest = transcript.turns[0];
  return oldest ? cursorOf(oldest) : null;
}

/**
 * Applies host updates in order. A turn record of a turn not held that sorts before the oldest held
 * turn while `hasOlder` is skipped (it comes with its page); events of turns not held are skipped by
 * `applyUpdate` itself. `turnCount` grows by one for each turn added, unless `countFrom` gives the
 * host's count (a `changes` message).
 */
export function applyUpdates(suffix: Suffix, updates: readonly TranscriptUpdate[], countFrom?: number): Suffix {
  let transcript = suffix.transcript;
  let added = 0;
  for (const update of updates) {
    if (update.type === 'turn' && isOlderThanHeld(suffix.hasOlder, transcript, update.turn)) continue;
    const before = transcript.turns.length;
    transcript = applyUpdate(transcript, update);
    added += transcript.turns.length - before;
  }
  const turnCount = countFrom ?? suffix.turnCount + added;
  if (transcript === suffix.transcript && turnCount === suffix.turnCount) return suffix;
  return { ...suffix, transcript, turnCount: Math.max(turnCount, transcript.turns.length) };
}

function isOlderThanHeld(hasOlder: boolean, transcript: Transcript, turn: TurnCursor): boolean {
  if (!hasOlder) return false;
  const oldest = oldestCursor(transcript);
  if (!oldest || !transcript.turns.every((t) => t.id !== turn.id)) return false;
  return compareCursors(cursorOf(turn), oldest) < 0;
}

/**
 * Prepends an older page when it answers the view's current oldest turn (`before` is its cursor);
 * else (a snapshot replaced the turns meanwhile, or the page was already applied) returns `suffix`
 * unchanged. Page turns already held are not added twice, and only turns sorting before `before`
 * are taken, oldest first.
 */
export function prependPage(suffix: Suffix, before: TurnCursor, turns: readonly TranscriptTurn[], hasOlder: boolean): Suffix {
  const oldest = oldestCursor(suffix.transcript);
  if (!oldest || compareCursors(oldest, before) !== 0) return suffix;
  const held = new Set(suffix.transcript.turns.map((t) => t.id));
  const older = turns.filter((t) => !held.has(t.id) && compareCursors(cursorOf(t), before) < 0).sort(compareCursors);
  const all = [...older, ...suffix.transcript.turns];
  return { transcript: { turns: all }, hasOlder, turnCount: Math.max(suffix.turnCount, all.length) };
}

/**
 * The cursor to send in a `loadOlder`, or null when none should be sent: no older turns, nothing
 * loaded, or the page before this very cursor was already asked for (`asked`) and has not come.
 */
export function olderToAsk(suffix: Suffix, asked: TurnCursor | null): TurnCursor | null {
  if (!suffix.hasOlder) return null;
  const oldest = oldestCursor(suffix.transcript);
  if (!oldest || (asked && compareCursors(asked, oldest) === 0)) return null;
  return oldest;
}

/**
 * Where the view stands in the host's numbered messages: the last `seq` seen (undefined before the
 * first), and whether a `resync` was asked and its snapshot has not come yet.
 */
export interface SeqTrack {
  readonly lastSeq: number | undefined;
  readonly resyncAsked: boolean;
}

/** Nothing seen yet. */
export const NO_SEQ: SeqTrack = { lastSeq: undefined, resyncAsked: false };

/**
 * Notes the `seq` of a host message (`undefined`: not numbered, e.g. `pong`). The first number sets
 * the baseline; a later one other than last + 1 means a message was missed: `resyncAsked` turns true
 * (the caller posts one `resync` on that change) and stays true until a snapshot (`isSnapshot`: a
 * `snapshot`, or `orphan`, the whole state of a tab with no chat) arrives. A view's first numbered
 * message that is not a snapshot is a gap too: the host posts a tab's first snapshot before its view
 * has loaded, and a view built again meanwhile (its tab hidden and shown) never got it. The count
 * goes on from the number seen either way.
 */
export function trackSeq(track: SeqTrack, seq: number | undefined, isSnapshot: boolean): SeqTrack {
  if (seq === undefined) return track;
  const gap = track.lastSeq === undefined ? !isSnapshot : seq !== track.lastSeq + 1;
  const resyncAsked = isSnapshot ? false : track.resyncAsked || gap;
  return track.lastSeq === seq && track.resyncAsked === resyncAsked ? track : { lastSeq: seq, resyncAsked };
}
