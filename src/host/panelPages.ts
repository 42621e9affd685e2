/**
 * A chat panel's part of paging (docs/ARCHITECTURE.md, "Long chats: pages and changes"): the view
 * scrolled near its oldest turn and asks for the page before it (`loadOlder`); the panel reads it
 * from the runtime when its turn in the ordered queue comes, and posts it as a `page`. The panel
 * keeps no copy of the transcript.
 */
import type { WebviewMessageHandlersFor } from '../protocol/hostHandlers';
import type { PanelContext } from './panelContext';

/** The paging messages. An orphan panel has no chat to page: its `loadOlder` is ignored. */
export const pageHandlers = {
  loadOlder: ({ before }, panel) => {
    const sessionId = panel.sessionId;
    if (!sessionId) return;
    return panel.post(async () => {
      const page = await panel.runtime.transcriptPage(sessionId, before);
      return { type: 'page', before, turns: page.transcript.turns, hasOlder: page.hasOlder };
    });
  },
} satisfies WebviewMessageHandlersFor<'loadOlder', PanelContext>;
