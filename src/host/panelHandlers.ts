/**
 * The host's table of the view's messages: each concern's handlers, composed into one table typed
 * over every `WebviewMessage` type (`WebviewMessageHandlers`, src/protocol/hostHandlers.ts), so a
 * message type without a handler fails to compile here. `ChatPanel` decodes a message, tells the
 * handshake the view spoke, and makes this one lookup.
 */
import type { WebviewMessageHandlers } from '../protocol/hostHandlers';
import { checkpointHandlers } from './checkpointActions';
import { commandHandlers } from './panelCommands';
import type { PanelContext } from './panelContext';
import { decisionHandlers } from './panelDecisions';
import { handshakeHandlers } from './panelHandshake';
import { mentionHandlers } from './panelMentions';
import { modelHandlers } from './panelModels';
import { outboxHandlers } from './panelOutbox';
import { pageHandlers } from './panelPages';

/** Each concern's part of the table, by concern (no type in two parts: a unit test checks it). */
export const PANEL_HANDLER_PARTS = {
  handshake: handshakeHandlers,
  pages: pageHandlers,
  outbox: outboxHandlers,
  decisions: decisionHandlers,
  mentions: mentionHandlers,
  checkpoints: checkpointHandlers,
  models: modelHandlers,
  commands: commandHandlers,
} as const;

/** The complete table: one handler for every message type the view sends. */
export const PANEL_HANDLERS: WebviewMessageHandlers<PanelContext> = {
  ...handshakeHandlers,
  ...pageHandlers,
  ...outboxHandlers,
  ...decisionHandlers,
  ...mentionHandlers,
  ...checkpointHandlers,
  ...modelHandlers,
  ...commandHandlers,
};
