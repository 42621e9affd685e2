/**
 * The view's dispatch of host messages as a table: one handler per `HostMessage` type, checked by
 * the compiler. `ViewHandlers<C>` is a mapped type over the union's `type`, so a host message type
 * added to `messages.ts` without a handler in the view's table fails to compile, and each handler
 * gets its own member of the union (no `if (message.type === …)` chain, no cast in a handler).
 * DOM-free: the view (`webview/messageEffects.ts`) fills the table with what each message does.
 */
import type { HostMessage } from './messages';

/** The `type` of every message the host sends to a view. */
export type HostMessageType = HostMessage['type'];

/** The host message of type `K` (a member of the union, with its `seq`). */
export type HostMessageOf<K extends HostMessageType> = Extract<HostMessage, { readonly type: K }>;

/**
 * One handler per host message type: `(message, context)`, where `context` (`C`) is whatever the
 * view hands every handler (the parts a message acts on). A missing or misspelt key fails to compile.
 */
export type ViewHandlers<C> = { readonly [K in HostMessageType]: (message: HostMessageOf<K>, context: C) => void };

/**
 * Runs the handler of `message.type` from `handlers` with `context`: the one lookup of the view's
 * dispatch. The caller has checked `message` (`hostMessageProblem`); a type the table lacks cannot
 * reach here, since the table's type names every one.
 */
export function dispatchHostMessage<C>(handlers: ViewHandlers<C>, message: HostMessage, context: C): void {
  // The compiler cannot relate `handlers[message.type]` to `message` (a correlated union): each key's
  // handler takes exactly the member of that type, which is what `message` is.
  const handler = handlers[message.type] as (message: HostMessage, context: C) => void;
  handler(message, context);
}
