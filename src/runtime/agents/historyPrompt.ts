/**
 * A chat's earlier exchanges handed to an agent in the text of a prompt, for an agent whose own
 * memory of the chat is gone (a Claude session the CLI cannot find, a Codex thread that cannot be
 * resumed) or never existed (the chat's earlier turns failed before the agent started). Agents that
 * take the history as messages (OpenAI-compatible, VS Code LM) do not use this.
 */
import type { HistoryEntry } from '../agent';

/** Longest history quoted in a prompt, in characters; older text is cut (the latest is kept). */
export const MAX_HISTORY_PROMPT_CHARS = 20_000;

/** The sentences around the quoted history. */
export interface HistoryFraming {
  /** Says what follows, before the history. */
  readonly before: string;
  /** Says that the new message follows, after the history. */
  readonly after: string;
}

/** The framing unless an agent words it otherwise. */
export const RESUME_FRAMING: HistoryFraming = {
  before: '(Your earlier session could not be resumed. The conversation so far in this chat was:)',
  after: '(The new message follows.)',
};

/**
 * The chat's history as text, one `User: …` / `Assistant: …` paragraph per entry. Longer than
 * `maxChars`: only its last `maxChars` characters, after an ellipsis (the latest exchanges matter
 * most to carry on).
 */
export function historyTranscript(history: readonly HistoryEntry[], maxChars = MAX_HISTORY_PROMPT_CHARS): string {
  const text = history.map((h) => `${h.role === 'user' ? 'User' : 'Assistant'}: ${h.text}`).join('\n\n');
  return text.length > maxChars ? `…${text.slice(text.length - maxChars)}` : text;
}

/** `prompt` after the chat's history (`historyTranscript`) in `framing`; `prompt` alone when there is no history. */
export function promptWithHistory(history: readonly HistoryEntry[], prompt: string, framing: HistoryFraming = RESUME_FRAMING, maxChars = MAX_HISTORY_PROMPT_CHARS): string {
  if (history.length === 0) return prompt;
  return `${framing.before}\n\n${historyTranscript(history, maxChars)}\n\n${framing.after}\n\n${prompt}`;
}
