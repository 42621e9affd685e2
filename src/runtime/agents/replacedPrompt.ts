/**
 * Edit and resend for agents that keep their own session (Claude, Codex): their session still holds
 * the request the user edited, and neither CLI can drop one exchange from it here, so the resent
 * prompt tells the model that the earlier request was replaced and quotes it, so that it is not
 * taken as still to be done. Agents given the history by this product need no note: the history
 * leaves the replaced turn out (`listHistory`).
 */

/** Most characters of the replaced request quoted in the note (its start; the model has the rest in its session). */
export const MAX_REPLACED_QUOTE_CHARS = 2000;

/**
 * The prompt sent to an agent's own session for an edit and resend: a note naming the replaced
 * request (quoted, cut to MAX_REPLACED_QUOTE_CHARS characters), then the new request as typed.
 */
export function replacedPromptNote(replaced: string, prompt: string): string {
  const cut = replaced.length > MAX_REPLACED_QUOTE_CHARS ? `${replaced.slice(0, MAX_REPLACED_QUOTE_CHARS)}…` : replaced;
  const quote = cut.split('\n').map((line) => `> ${line}`).join('\n');
  return [
    '[I edited my previous request and am sending it again. Disregard the previous request and your answer to it; do not carry it out. It was:]',
    quote,
    '[My request is now:]',
    prompt,
  ].join('\n\n');
}
