/**
 * A chat panel's part in the model picker: answers the view's `listModels` with the models its
 * chat's provider offers, and records a `setModel` through the runtime (a journal write, so every
 * window's header follows). Kept out of chatPanel.ts, which routes these two messages here.
 */
import type { ModelList } from '../runtime/agents/modelLists';
import type { ChatRuntime } from '../runtime/chatRuntime';
import type { HostMessage, WebviewMessage } from '../protocol/messages';

/** What the model picker needs from its panel. */
export interface PanelModelsHost {
  readonly runtime: ChatRuntime;
  /** The models a provider offers here (see `modelsOffered`). */
  readonly listModels: (provider: string) => Promise<ModelList>;
  /** Posts a message to the view, in order with the panel's others. */
  readonly post: (message: HostMessage) => void;
}

/** Handles `listModels` and `setModel` for the chat `sessionId`. Never throws for a refusal: the view gets an `error`. */
export async function handleModelMessage(
  host: PanelModelsHost, sessionId: string, message: Extract<WebviewMessage, { type: 'listModels' | 'setModel' }>,
): Promise<void> {
  if (message.type === 'listModels') {
    const session = await host.runtime.getSession(sessionId);
    if (!session) return;
    const list = await host.listModels(session.provider);
    host.post({ type: 'models', provider: session.provider, models: [...list.models], ...(list.note ? { note: list.note } : {}) });
    return;
  }
  const result = await host.runtime.setModel(sessionId, message.model);
  // The header follows through the `session` notification (here) and `changes` (other windows).
  host.post(result.ok ? { type: 'succeeded', action: 'setModel' } : { type: 'error', code: result.reason, message: result.message, action: 'setModel' });
}
