/**
 * `PanelRefusals`: how a chat panel answers the messages its view sent that the decoder refused,
 * so that a flood of them never holds back the chat's own updates (see `refuse`).
 */
import { CHAT_ACTIONS, type ChatAction, type HostMessage } from '../protocol/messages';
import { clientIdOf } from './panelOutbox';

/** What the refusals need from their panel. */
export interface PanelRefusalsDeps {
  /** Puts a message (or one computed as it goes out) in the panel's ordered queue (`ChatPanel.post`). */
  post(message: HostMessage | (() => Promise<HostMessage | undefined>)): Promise<void>;
  /** How many messages were put in that queue so far (tells whether a folded refusal is still its last). */
  queued(): number;
  log(line: string): void;
}

/** The refusals of one panel (see module docstring). */
export class PanelRefusals {
  constructor(private readonly deps: PanelRefusalsDeps) {}

  /**
   * Answers a message the decoder refused (`reason`: the decoder's sentence) with a
   * `malformed_message` error, in order with the panel's other messages, and logs it.
   *
   * A refused message the view keeps (a `send` or a queue action naming its `clientId`) gets its own
   * error, never folded: the view gives that message's text back on it (`acknowledge` in
   * webview/composer.ts), so each must arrive. Any other refusal (an unknown type, a malformed `stop`)
   * only sets the view's error bar, which shows the last error alone: while its error still waits at
   * the end of the queue (nothing posted after it), later such refusals are folded into it (counted;
   * the last one's reason and action are what it says), and it is logged once, with the count, when
   * it goes out. So a flood of bad messages costs the queue one post per drain, not one per message,
   * and what the view is sent behind it (a reply's updates) waits behind at most one refusal; the
   * view ends as if each had been posted, the last one's error showing.
   */
  refuse(raw: unknown, reason: string): void {
    const error: RefusalError = { type: 'error', code: 'malformed_message', message: reason, ...refusedAction(raw) };
    if (error.clientId) {
      this.deps.log(`[panel] rejected a message: ${reason}`);
      void this.deps.post(error);
      return;
    }
    const waiting = this.refusals;
    if (waiting && waiting.at === this.deps.queued()) {
      waiting.count++;
      waiting.last = error;
      return;
    }
    const folded = { count: 1, last: error, at: 0 };
    this.refusals = folded;
    void this.deps.post(async () => {
      // Going out now: a refusal from here on starts the next one.
      if (this.refusals === folded) this.refusals = undefined;
      const { count, last } = folded;
      if (count === 1) {
        this.deps.log(`[panel] rejected a message: ${last.message}`);
        return last;
      }
      const many = count.toLocaleString('en-US');
      this.deps.log(`[panel] rejected ${many} malformed messages from the chat view; the last: ${last.message}`);
      return { ...last, message: `${many} messages from the chat view were refused; the last: ${last.message}` };
    });
    folded.at = this.deps.queued();
  }

  /** The refusal waiting in the queue that later ones fold into (`refuse`); `at`: `queued()` once it was queued. */
  private refusals: { count: number; last: RefusalError; at: number } | undefined;
}

/** The `error` that answers a message the decoder refused. */
type RefusalError = HostMessage & { type: 'error' };

/** The action and message id of a message the decoder refused, as far as they can be told. */
function refusedAction(raw: unknown): { action?: ChatAction; clientId?: string } {
  const type = typeof raw === 'object' && raw !== null ? (raw as { type?: unknown }).type : undefined;
  const action = CHAT_ACTIONS.find((a) => a === type);
  const clientId = action ? clientIdOf(raw) : undefined;
  return { ...(action ? { action } : {}), ...(clientId ? { clientId } : {}) };
}
