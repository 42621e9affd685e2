/**
 * The ONE place where error classes and closure reasons become what the user sees: for an error
 * class, the banner of a failed turn (a title, a sentence, and which action, Retry / Continue /
 * none, it offers), the short label under an invocation, and whether it was cut short by a restart;
 * for a closure reason, the sentence on a settled boundary request's card. Each is an exhaustive
 * `Record` over the vocabulary (`src/core/vocabulary.ts`), so a new error class or closure reason
 * without words fails to compile. Pure and DOM-free (unit-tested): the view (through
 * `webview/errorClassView.ts`) and the Markdown export (`exportMarkdown.ts`) both word them here.
 *
 * `body` is inline markdown: fixed words plus the request's subject in a code span; the renderer
 * turns it into sanitized HTML.
 */
import type { TranscriptTurn } from './transcript';
import { restartClosedRequest } from './transcript';
import type { BoundaryDecision, BoundaryStatus, ClosureReason, ErrorClass } from './vocabulary';
import { boundaryKindVerb, codeSpan, oneLine } from './words';

/** What the banner of a failed turn shows. */
export interface ErrorClassView {
  /** Short heading. */
  readonly title: string;
  /** One or two sentences, inline markdown (the subject is a code span). */
  readonly body: string;
  /** The button the banner offers, or null when none applies (already followed up, or a run is live). */
  readonly action: 'retry' | 'continue' | null;
  /** The button's words when they are not the action's usual ones (`actionLabel`): "Send again" for a message that may not have arrived. */
  readonly actionText?: string;
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

/** The words of one error class. */
interface ErrorClassWords {
  /** The banner before context applies (`action` is the action the class offers). */
  readonly view: (turn: TranscriptTurn) => Omit<ErrorClassView, 'note'>;
  /** A few words for an invocation's status line ("Closed by a restart"). */
  readonly short: string;
  /** A restart cut the run short: its invocation shows "Interrupted", not "Failed". */
  readonly restart: boolean;
}

const ERROR_CLASS_WORDS: Readonly<Record<ErrorClass, ErrorClassWords>> = {
  sandbox_boundary_closed_by_restart: {
    view: (turn) => {
      const request = restartClosedRequest(turn);
      const body = request
        ? `The VS Code window reloaded or restarted while the agent was waiting for your approval to ${boundaryKindVerb(request.kind)} ${codeSpan(oneLine(request.subject))}. ` +
          (request.kind === 'command' ? 'It was closed without an answer, so nothing ran.' : 'It was closed without an answer, so nothing was done.')
        : 'The VS Code window reloaded or restarted while the agent was waiting for your approval. It was closed without an answer, so nothing ran.';
      return { title: 'Approval closed by a window reload or restart', body, action: 'retry', tone: 'restart' };
    },
    short: 'Closed by a reload or restart',
    restart: true,
  },
  app_restarted: {
    view: () => ({
      title: 'Reply interrupted by a window reload or restart',
      // A run is recovered like this also when the window driving it closed while another lived on.
      body: 'The VS Code window running this reply reloaded, restarted or closed, or its extension host stopped, so the reply stopped partway. Nothing was waiting on you.',
      action: 'continue',
      tone: 'restart',
    }),
    short: 'Interrupted by a reload or restart',
    restart: true,
  },
  agent_error: {
    view: () => ({
      title: 'The agent failed',
      body: 'The agent stopped with an error before it finished replying.',
      action: 'retry',
      tone: 'error',
    }),
    short: 'Agent error',
    restart: false,
  },
  agent_unavailable: {
    view: () => ({
      title: 'The agent could not be started',
      body: 'The agent could not start: its program, server or model is missing or misconfigured (the message above says which). Fix that, then retry.',
      action: 'retry',
      tone: 'error',
    }),
    short: 'Agent unavailable',
    restart: false,
  },
  journal_refused: {
    view: () => ({
      title: 'The chat could not be saved',
      body: 'The chat journal refused a write (it may be read-only, the disk may be full, or a record was unreadable), so this reply may be incomplete.',
      action: 'retry',
      tone: 'error',
    }),
    short: 'Not saved',
    restart: false,
  },
  prompt_delivery_unknown: {
    view: () => ({
      title: 'Your message may not have reached the agent',
      body: 'The VS Code window reloaded, restarted or closed while this message was being handed to the agent, before the agent confirmed it. It was not sent again on its own: send it again if the agent should have it.',
      action: 'retry',
      actionText: 'Send again',
      tone: 'restart',
    }),
    short: 'Not confirmed by the agent',
    restart: true,
  },
};

/** Words of a class this build does not know (a row from a newer build reaching the view anyway). */
const UNKNOWN_CLASS: ErrorClassWords = {
  view: () => ({ title: 'The request failed', body: 'The request failed for an unknown reason.', action: 'retry', tone: 'error' }),
  short: 'Failed',
  restart: false,
};

function wordsOf(errorClass: ErrorClass): ErrorClassWords {
  return ERROR_CLASS_WORDS[errorClass] ?? UNKNOWN_CLASS;
}

/**
 * Describes a failed turn's error class for its banner. The action is null when the turn was
 * already retried/continued (`context.followedUp`) or a run is live (`context.running`).
 */
export function describeErrorClass(errorClass: ErrorClass, turn: TranscriptTurn, context: ErrorClassContext = {}): ErrorClassView {
  const base = wordsOf(errorClass).view(turn);
  if (context.followedUp) {
    return { ...base, action: null, note: base.action === 'continue' ? 'Already continued below.' : 'Already retried below.' };
  }
  if (context.running) return { ...base, action: null, note: null };
  return { ...base, note: null };
}

/** The label of a banner's action button: its own words when it has them (`actionText`), else the action's. */
export function actionLabel(action: 'retry' | 'continue', actionText?: string): string {
  return actionText ?? (action === 'continue' ? 'Continue' : 'Retry');
}

/** A few words naming an error class, for an invocation's status line ("Closed by a restart"). */
export function errorClassShortLabel(errorClass: ErrorClass): string {
  return wordsOf(errorClass).short;
}

/** True when the error class means a restart cut the run short (not a failure of the work itself). */
export function isRestartErrorClass(errorClass: ErrorClass): boolean {
  return wordsOf(errorClass).restart;
}

/**
 * The sentence on a settled boundary request's card, by its closure reason. `status` and `decision`
 * matter for the user's own decision (and an approval's kind) only; other reasons say it all.
 */
const CLOSURE_REASON_WORDS: Readonly<Record<ClosureReason, (status: Exclude<BoundaryStatus, 'pending'>, decision: BoundaryDecision | undefined) => string>> = {
  user_decision: (status, decision) =>
    status === 'denied' ? 'Denied by you' : decision === 'allow_session' ? 'Approved for this session' : 'Approved once',
  session_grant: () => 'Approved by an earlier session grant',
  host_restarted: () => 'Denied because the window reloaded or restarted while it was waiting',
  run_stopped: () => 'Closed because the run was stopped',
  run_ended: () => 'Closed because the run ended',
};

/**
 * What a settled boundary request's card says: its closure reason in words. A row without a
 * closure reason (or with one this build does not know) reads as the user's own decision.
 */
export function settledRequestText(
  status: Exclude<BoundaryStatus, 'pending'>,
  decision: BoundaryDecision | undefined,
  closureReason: ClosureReason | undefined,
): string {
  return (CLOSURE_REASON_WORDS[closureReason ?? 'user_decision'] ?? CLOSURE_REASON_WORDS.user_decision)(status, decision);
}
