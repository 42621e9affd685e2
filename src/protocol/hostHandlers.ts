/**
 * The host's dispatch of the webview's messages as a table: one handler per `WebviewMessage` type,
 * keyed by the type, each given the message already narrowed to its own shape. The table's type is
 * mapped over `WebviewMessage['type']`, so a message type added to `messages.ts` without a handler
 * fails to compile where the host composes its table (`src/host/panelHandlers.ts`).
 *
 * No dependency and no `vscode`: the context a handler receives (`C`) is the host's to define.
 */
import type { WebviewMessage } from './messages';

/** The type of a message the webview sends. */
export type WebviewMessageType = WebviewMessage['type'];

/** The message of type `K`. */
export type WebviewMessageOf<K extends WebviewMessageType> = Extract<WebviewMessage, { readonly type: K }>;

/**
 * Handles one message of type `K` in `context`. What it returns is awaited by the caller, which
 * reports a throw or a rejection (the handler answers refusals itself).
 */
export type WebviewMessageHandler<K extends WebviewMessageType, C> = (message: WebviewMessageOf<K>, context: C) => Promise<void> | void;

/** The handlers of the types `K` only: one concern's part of the table. */
export type WebviewMessageHandlersFor<K extends WebviewMessageType, C> = { readonly [T in K]: WebviewMessageHandler<T, C> };

/** A complete table: a handler for every type the webview sends. */
export type WebviewMessageHandlers<C> = WebviewMessageHandlersFor<WebviewMessageType, C>;

/**
 * Calls the handler of `message`'s type with it and `context`, and returns what it returns. The
 * type was checked when the message was decoded; this is its one lookup.
 */
export function dispatchWebviewMessage<C>(handlers: WebviewMessageHandlers<C>, message: WebviewMessage, context: C): Promise<void> | void {
  // The compiler cannot correlate the key with the message's own type; the table's type does.
  const handler = handlers[message.type] as WebviewMessageHandler<WebviewMessageType, C>;
  return handler(message, context);
}
