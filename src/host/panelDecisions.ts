/**
 * A chat panel's part in the turn's actions: Stop, the decision on a boundary request (Allow /
 * Deny…), Retry and Continue go to the runtime, and each is answered with `succeeded` or an `error`
 * carrying its action (the view's error bar of that action comes down at the next success). A
 * refusal also re-sends the live state: a stale prompt (decided elsewhere) must stop looking actionable.
 */
import type { Result } from '../core/result';
import type { WebviewMessageHandlersFor } from '../protocol/hostHandlers';
import type { ChatAction } from '../protocol/messages';
import type { RuntimeRefusal } from '../runtime/chatRuntime';
import { inChat, type PanelContext } from './panelContext';

/** Tells the view how its `action` went. */
function answer(panel: PanelContext, action: ChatAction, result: Result<unknown, RuntimeRefusal>): void {
  if (result.ok) {
    void panel.post({ type: 'succeeded', action });
    return;
  }
  void panel.post({ type: 'error', code: result.reason, message: result.message, action });
  void panel.sendLive();
}

/** The turn's actions (see module docstring). */
export const decisionHandlers = {
  stop: inChat(async ({ type }, panel, sessionId) => answer(panel, type, await panel.runtime.stop(sessionId))),
  decide: inChat(async ({ type, requestId, decision }, panel, sessionId) => answer(panel, type, await panel.runtime.decide(sessionId, requestId, decision))),
  retry: inChat(async ({ type, turnId }, panel, sessionId) => answer(panel, type, await panel.runtime.retry(sessionId, turnId))),
  continue: inChat(async ({ type, turnId }, panel, sessionId) => answer(panel, type, await panel.runtime.continueTurn(sessionId, turnId))),
} satisfies WebviewMessageHandlersFor<'stop' | 'decide' | 'retry' | 'continue', PanelContext>;
