/**
 * The host's table of the webview's messages (`handlerTable.ts`, instantiated for `WebviewMessage`):
 * one handler per `WebviewMessage` type, keyed by the type, each given the message already narrowed
 * to its own shape. A message type added to `messages.ts` without a handler fails to compile where
 * the host composes its table (`src/host/panelHandlers.ts`); `dispatchMessage` is its one lookup.
 * A handler's result is awaited by the caller, which reports a throw or a rejection (the handler
 * answers refusals itself).
 *
 * No dependency and no `vscode`: the context a handler receives (`C`) is the host's to define.
 */
import type { HandlersFor } from './handlerTable';
import type { WebviewMessage } from './messages';

/** The type of a message the webview sends. */
export type WebviewMessageType = WebviewMessage['type'];

/** The handlers of the types `K` only: one concern's part of the table. */
export type WebviewMessageHandlersFor<K extends WebviewMessageType, C> = HandlersFor<WebviewMessage, K, C, Promise<void> | void>;

/** A complete table: a handler for every type the webview sends. */
export type WebviewMessageHandlers<C> = WebviewMessageHandlersFor<WebviewMessageType, C>;
