/**
 * What each host message does in the chat view besides changing its state (`reduceHostMessage`
 * does that for every message first): the view's handler table, one entry per host message type
 * (`ViewHandlers`, `src/protocol/viewHandlers.ts`), so a new host message type without an entry
 * here fails to compile. `ChatView` dispatches every checked message by one lookup in it.
 */
import type { HostMessageOf, ViewHandlers } from '../src/protocol/viewHandlers';
import type { ViewState } from './state';

/** The parts of the view a host message acts on (`ChatView` provides them). */
export interface MessageEffects {
  /** A snapshot came: the chat shown, the composer, the outbox's resend and the reading goal. */
  showSnapshot(message: HostMessageOf<'snapshot'>, previous: ViewState): void;
  /** Takes the next step to the reading goal, if one stands (a page came). */
  stepToGoal(): void;
  /** A search result to get to and mark. */
  reveal(message: HostMessageOf<'reveal'>): void;
  /** The host answered a message of the outbox or a queue action (by client id, if it carries one). */
  acknowledge(message: HostMessageOf<'succeeded' | 'error'>): void;
  /** The `@` list's items or attachments for the composer. */
  attach(message: HostMessageOf<'completions' | 'attach'>): void;
  /** Says a sentence in the view's polite live region. */
  announce(text: string): void;
}

/** What a handler gets: the view's parts, and the state before this message was applied. */
export interface MessageContext {
  readonly view: MessageEffects;
  readonly previous: ViewState;
}

/** The state change is all this message does (the next frame renders it). */
const stateOnly = (): void => undefined;

/** The view's handler of each host message type (see module docstring). */
export const VIEW_HANDLERS: ViewHandlers<MessageContext> = {
  snapshot: (message, { view, previous }) => view.showSnapshot(message, previous),
  page: (_message, { view }) => view.stepToGoal(),
  reveal: (message, { view }) => view.reveal(message),
  succeeded: (message, { view }) => view.acknowledge(message),
  error: (message, { view }) => view.acknowledge(message),
  completions: (message, { view }) => view.attach(message),
  attach: (message, { view }) => view.attach(message),
  announce: (message, { view }) => view.announce(message.text),
  queue: stateOnly,
  checkpoints: stateOnly,
  update: stateOnly,
  changes: stateOnly,
  live: stateOnly,
  orphan: stateOnly,
  pong: stateOnly,
  models: stateOnly,
};
