/**
 * The model picked per chat (schema 9): what a user may pick, and recording it. The choice is a
 * journal write on the chat's row, so every window's view hears of it (this one through the
 * `session` notification, others through their catch-up's `changes`), and the next turn records and
 * runs with it (`startTurn` copies it onto the turn in its transaction).
 */
import { fail, ok, type Result } from '../core/result';
import type { SessionRecord } from '../core/events';
import { MAX_MODEL_NAME_CHARS } from '../protocol/messages';
import type { RuntimeRefusal } from './refusals';
import type { RuntimeScope } from './scope';

/** Longest model name accepted, in characters (model ids are short: `llama3.2:3b`, `claude-sonnet-4-5`). */
export const MAX_MODEL_CHARS = MAX_MODEL_NAME_CHARS;

/** Why `model` cannot be a chat's model, or null: empty after trimming, too long, or holding control characters. */
export function modelProblem(model: string): string | null {
  const name = model.trim();
  if (name.length === 0) return 'A model needs a name.';
  if (name.length > MAX_MODEL_CHARS) return `A model name holds at most ${MAX_MODEL_CHARS} characters.`;
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'A model name cannot hold control characters.';
  return null;
}

/**
 * Records `model` (trimmed) as the chat's model, or `null` to go back to the provider's setting,
 * and tells this window's views. Refused: `invalid` (see `modelProblem`), `not_found`, the journal's refusals.
 */
export async function setChatModel(scope: RuntimeScope, sessionId: string, model: string | null): Promise<Result<SessionRecord, RuntimeRefusal>> {
  const problem = model === null ? null : modelProblem(model);
  if (problem) return fail('invalid', problem);
  const written = await scope.journal.write('setSessionModel', sessionId, model === null ? null : model.trim());
  if (!written.ok) return written;
  scope.log(`[runtime] chat ${sessionId}: model ${written.value.model ?? '(the provider setting)'}`);
  scope.notifier.emit({ type: 'session', session: written.value });
  return ok(written.value);
}
