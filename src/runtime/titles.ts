/**
 * Chat titles: what a user may type as a title, and the title a chat takes from its first prompt.
 * The rule lives here once; the runtime and the host's Rename command both ask it.
 */

/** Longest chat title a user may give (characters). */
export const MAX_TITLE_CHARS = 100;

/** Default title of a new chat until its first prompt names it. */
export const NEW_CHAT_TITLE = 'New chat';

/** Longest title taken from a first prompt (code points, the ellipsis included). */
const PROMPT_TITLE_CHARS = 48;

/** A title as the user typed it, made one line: whitespace runs (line breaks included) become one space, trimmed. */
export function cleanTitle(title: string): string {
  return title.replace(/\s+/g, ' ').trim();
}

/** Why a title the user typed cannot be a chat's title, or undefined when it can (see `cleanTitle`). */
export function titleProblem(title: string): string | undefined {
  const clean = cleanTitle(title);
  if (!clean) return 'A chat needs a title.';
  if (clean.length > MAX_TITLE_CHARS) return `A chat title can have at most ${MAX_TITLE_CHARS} characters (this one has ${clean.length}).`;
  return undefined;
}

/**
 * The title a chat takes from its first prompt: the prompt's first line, cut to 48 code points with
 * an ellipsis; `NEW_CHAT_TITLE` when that line is empty.
 */
export function titleFromPrompt(prompt: string): string {
  // By code points: a cut through a surrogate pair (an emoji) was stored as replacement characters.
  const firstLine = [...(prompt.trim().split('\n')[0] ?? '')];
  const title = firstLine.length > PROMPT_TITLE_CHARS ? `${firstLine.slice(0, PROMPT_TITLE_CHARS - 1).join('')}…` : firstLine.join('');
  return title || NEW_CHAT_TITLE;
}

/**
 * `title`, or when another chat already has it, the same with the first free number after it
 * ("list the files (2)", "(3)"…): tabs of chats named by the same first prompt told apart.
 */
export function distinctTitle(title: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(title)) return title;
  for (let n = 2; ; n++) {
    const candidate = `${title} (${n})`;
    if (!used.has(candidate)) return candidate;
  }
}
