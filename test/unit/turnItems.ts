/** Reading one turn of a transcript in runtime and agent tests. */
import type { Transcript, TranscriptItem } from '../../src/core/transcript';

/** The items of turn `turnIndex` (0-based). @throws TypeError if the transcript has no such turn. */
export function items(t: Transcript, turnIndex: number): readonly TranscriptItem[] {
  return t.turns[turnIndex]!.items;
}

/** The agent's text in turn `turnIndex`, its text items joined without separator. */
export function textOf(t: Transcript, turnIndex: number): string {
  return items(t, turnIndex).filter((i) => i.type === 'text').map((i) => (i as { text: string }).text).join('');
}
