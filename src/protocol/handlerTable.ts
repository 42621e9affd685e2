/**
 * A message union's dispatch as a table, written once for both directions of the wire: the host's
 * table of the view's messages (`hostHandlers.ts`) and the view's table of the host's
 * (`viewHandlers.ts`). `HandlersFor<M, K, C, R>` is a mapped type over the union's `type`: one
 * handler per type in `K`, each given its own member of the union (no `if (message.type === …)`
 * chain, no cast in a handler), so a type added to `messages.ts` without a handler in a complete
 * table fails to compile. `dispatchMessage` is the one lookup.
 *
 * No dependency, no `vscode`, no DOM: `C`, the context every handler receives, is each side's own.
 */

/** A message of a union discriminated by `type`. */
export interface TypedMessage {
  readonly type: string;
}

/** The member of union `M` of type `K`. */
export type MessageOf<M extends TypedMessage, K extends M['type']> = Extract<M, { readonly type: K }>;

/**
 * The handlers of the types `K` of union `M`: `(message, context)` returning `R`. With `K` every
 * type of `M`, a complete table (a missing or misspelt key fails to compile).
 */
export type HandlersFor<M extends TypedMessage, K extends M['type'], C, R> = {
  readonly [T in K]: (message: MessageOf<M, T>, context: C) => R;
};

/** Any table of handlers (what `dispatchMessage` takes; its message, context and result are read from it). */
type AnyHandlers = { readonly [type: string]: (message: never, context: never) => unknown };

/**
 * Calls the handler of `message`'s type in the complete table `handlers` with it and `context`, and
 * returns what it returns. The message's type was checked before (decoded or checked on arrival);
 * a type the table lacks cannot reach here, since the table's type names every one.
 */
export function dispatchMessage<H extends AnyHandlers>(
  handlers: H, message: Parameters<H[keyof H]>[0], context: Parameters<H[keyof H]>[1],
): ReturnType<H[keyof H]> {
  // The compiler cannot relate `handlers[message.type]` to `message` (a correlated union): each
  // key's handler takes exactly the member of that type, which is what `message` is.
  const handler = handlers[(message as TypedMessage).type] as unknown as (message: unknown, context: unknown) => ReturnType<H[keyof H]>;
  return handler(message, context);
}
