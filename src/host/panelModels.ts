/**
 * A chat panel's part in the model picker: answers the view's `listModels` with the models its
 * chat's provider offers, and records a `setModel` through the runtime (a journal write, so every
 * window's header follows). Both act on the panel's chat; a refusal is an `error` to the view, never a throw.
 */
import type { WebviewMessageHandlersFor } from '../protocol/hostHandlers';
import { inChat, type PanelContext } from './panelContext';

/** The model picker's messages. */
export const modelHandlers = {
  listModels: inChat(async (_message, panel, sessionId) => {
    const session = await panel.runtime.getSession(sessionId);
    if (!session) return;
    const list = await panel.listModels(session.provider);
    void panel.post({ type: 'models', provider: session.provider, models: [...list.models], ...(list.note ? { note: list.note } : {}) });
  }),
  setModel: inChat(async ({ model }, panel, sessionId) => {
    const result = await panel.runtime.setModel(sessionId, model);
    // The header follows through the `session` notification (here) and `changes` (other windows).
    void panel.post(result.ok ? { type: 'succeeded', action: 'setModel' } : { type: 'error', code: result.reason, message: result.message, action: 'setModel' });
  }),
} satisfies WebviewMessageHandlersFor<'listModels' | 'setModel', PanelContext>;
