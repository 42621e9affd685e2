/**
 * The ONE place where a turn's error class becomes what the user sees: a title, a sentence, and
 * which action (Retry / Continue / none) the banner offers. Pure and DOM-free (unit-tested).
 *
 * `body` is inline markdown: fixed words plus the request's subject in a code span; the renderer
 * turns it into sanitized HTML.
 */
import type { TranscriptTurn } from '../src/core/transcript';
import { restartClosedRequest } from '../src/core/transcript';
import type { ErrorClass } from '../src/core/vocabulary';
import { boundaryKindVerb, codeSpan, oneLine } from './labels';

/** What the banner of a failed turn shows. */
export interface ErrorClassView {
  /** Short heading. */
  readonly title: string;
  /** One or two sentences, inline markdown (the subject is a code span). */
  readonly body: string;
  /** The button the banner offers, or null when none applies (already followed up, or a run is live). */
  readonly action: 'retry' | 'continue' | null;
  /** `restart` banners (`.restart-banner`) explain a VS Code restart; `error` banners (`.error-banner`) a failure. */
  readonly tone: 'restart' | 'error';
  /** A small line shown instead of the action once it is spent or unavailable, or null. */
  readonly note: string | null;
}

/** Facts about the transcript around the turn that decide whether the action is offered. */
export interface ErrorClassContext {
  /** A later turn already retries or continues this one (`isFollowedUp`). */
  readonly followedUp?: boolean;
  /** A run of this session is live (a new one cannot start now). */
  readonly running?: boolean;
}

/** Words for each class when its banner is built; `action` is the action before context applies. */
function baseView(errorClass: ErrorClass, turn: TranscriptTurn): Omit<ErrorClassView, 'note'> {
  switch (errorClass) {
    case 'sandbox_boundary_closed_by_restart': {
      const request = restartClosedRequest(turn);
      const body = request
        ? `The VS Code window reloaded or restarted while the agent was waiting for your approval to ${boundaryKindVerb(request.kind)} ${codeSpan(oneLine(request.subject))}. ` +
          (request.kind === 'command' ? 'The request was denied so nothing ran.' : 'The request was denied so nothing was done.')
        : 'The VS Code window reloaded or restarted while the agent was waiting for your approval. The request was denied so nothing ran.';
      return { title: 'Approval closed by a window reload or restart', body, action: 'retry', tone: 'restart' };
    }
    case 'app_restarted':
      return {
        title: 'Reply interrupted by a window reload or restart',
        // A run is recovered like this also when the window driving it closed while another lived on.
        body: 'The VS Code window running this reply reloaded, restarted or closed, so the reply stopped partway. Nothing was waiting on you.',
        action: 'continue',
        tone: 'restart',
      };
    case 'agent_error':
      return {
        title: 'The agent failed',
        body: 'The agent stopped with an error before it finished replying.',
        action: 'retry',
        tone: 'error',
      };
    case 'agent_unavailable':
      return {
        title: 'The agent could not be started',
        body: 'The agent could not start: its program, server or model is missing or misconfigured (the message above says which). Fix that, then retry.',
        action: 'retry',
        tone: 'error',
      };
    case 'journal_refused':
      return {
        title: 'The chat could not be saved',
        body: 'The chat journal refused a write (it may be read-only, the disk may be full, or a record was unreadable), so this reply may be incomplete.',
        action: 'retry',
        tone: 'error',
      };
    default:
      return { title: 'The request failed', body: 'The request failed for an unknown reason.', action: 'retry', tone: 'error' };
  }
}

/**
 * Describes a failed turn's error class for its banner. The action is null when the turn was
 * already retried/continued (`context.followedUp`) or a run is live (`context.running`).
 */
export function describeErrorClass(errorClass: ErrorClass, turn: TranscriptTurn, context: ErrorClassContext = {}): ErrorClassView {
  const base = baseView(errorClass, turn);
  if (context.followedUp) {
    return { ...base, action: null, note: base.action === 'continue' ? 'Already continued below.' : 'Already retried below.' };
  }
  if (context.running) return { ...base, action: null, note: null };
  return { ...base, note: null };
}

/** The label of an action button. */
export function actionLabel(action: 'retry' | 'continue'): string {
  return action === 'continue' ? 'Continue' : 'Retry';
}

/** A few words naming an error class, for an invocation's status line ("Closed by a restart"). */
export function errorClassShortLabel(errorClass: ErrorClass): string {
  switch (errorClass) {
    case 'app_restarted':
      return 'Interrupted by a reload or restart';
    case 'sandbox_boundary_closed_by_restart':
      return 'Closed by a reload or restart';
    case 'agent_error':
      return 'Agent error';
    case 'agent_unavailable':
      return 'Agent unavailable';
    case 'journal_refused':
      return 'Not saved';
    default:
      return 'Failed';
  }
}
