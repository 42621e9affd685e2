/**
 * What the renderer needs to know of a whole transcript to draw one turn: the turns' ids in order and
 * each one's index, the turns a later one retries or continues (they offer no Retry of their own), and
 * the turns a later one replaces (edit and resend: they show collapsed). Computed once per transcript
 * and carried over to the next one while its turns keep their places: a live update changes one
 * turn's items, and rebuilding the maps of a 5,000-turn transcript at each one cost the view a
 * millisecond per update.
 */
import type { Transcript, TranscriptTurn } from '../../src/core/transcript';

/** The facts of `transcript` (see the module docstring). */
export interface TurnFacts {
  readonly transcript: Transcript;
  readonly ids: readonly string[];
  readonly index: ReadonlyMap<string, number>;
  readonly followedUp: ReadonlySet<string>;
  readonly replaced: ReadonlySet<string>;
}

/**
 * The facts of `transcript`: `previous` itself when it is of the same transcript, `previous`'s maps
 * when the turns are the same ones in the same order with the same parents and replaced turns
 * (compared by reference first: one pass, no allocation), or computed anew.
 */
export function turnFactsOf(transcript: Transcript, previous: TurnFacts | undefined): TurnFacts {
  if (previous?.transcript === transcript) return previous;
  const turns = transcript.turns;
  if (previous && sameFacts(previous.transcript.turns, turns)) return { ...previous, transcript };
  const followedUp = new Set<string>();
  const replaced = new Set<string>();
  for (const t of turns) {
    if (t.parentTurnId !== null) followedUp.add(t.parentTurnId);
    if (t.replacesTurnId) replaced.add(t.replacesTurnId);
  }
  const ids = turns.map((t) => t.id);
  return { transcript, ids, index: new Map(ids.map((id, i) => [id, i])), followedUp, replaced };
}

/** Whether `turns` are `before`'s turns in the same order, each with the same parent and the same replaced turn. */
function sameFacts(before: readonly TranscriptTurn[], turns: readonly TranscriptTurn[]): boolean {
  if (before.length !== turns.length) return false;
  for (let i = 0; i < turns.length; i++) {
    const a = before[i]!;
    const b = turns[i]!;
    if (a !== b && (a.id !== b.id || a.parentTurnId !== b.parentTurnId || a.replacesTurnId !== b.replacesTurnId)) return false;
  }
  return true;
}
