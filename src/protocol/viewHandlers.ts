/**
 * The view's table of host messages (`handlerTable.ts`, instantiated for `HostMessage`): one handler
 * per `HostMessage` type, checked by the compiler, so a host message type added to `messages.ts`
 * without a handler in the view's table fails to compile, and each handler gets its own member of
 * the union. DOM-free: the view (`webview/messageEffects.ts`) fills the table with what each message
 * does, and `ChatView` makes the one lookup (`dispatchMessage`).
 */
import type { HandlersFor, MessageOf } from './handlerTable';
import type { HostMessage } from './messages';

/** The `type` of every message the host sends to a view. */
export type HostMessageType = HostMessage['type'];

/** The host message of type `K` (a member of the union, with its `seq`). */
export type HostMessageOf<K extends HostMessageType> = MessageOf<HostMessage, K>;

/**
 * One handler per host message type: `(message, context)`, where `context` (`C`) is whatever the
 * view hands every handler (the parts a message acts on). A missing or misspelt key fails to compile.
 */
export type ViewHandlers<C> = HandlersFor<HostMessage, HostMessageType, C, void>;
