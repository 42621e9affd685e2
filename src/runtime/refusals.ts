/** Stable codes of refused runtime actions, as the host and the view get them. */
import type { JournalRefusal } from '../journal/errors';

/**
 * Stable codes of refused runtime actions (besides journal refusals). `conflict`: a message's client
 * id was given before with another text.
 */
export type RuntimeRefusal =
  | JournalRefusal | 'busy' | 'already_decided' | 'not_actionable' | 'not_retryable' | 'no_agent' | 'invalid' | 'conflict';
