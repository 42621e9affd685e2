/**
 * The messages of one Claude Code `query()` as they stream: text deltas go to `ctx.text` (a
 * message already streamed is not shown again from its final `assistant` message; a new text block
 * starts a new paragraph), tool_use blocks start invocations, tool_result blocks finish them, and
 * what decides the outcome is kept: whether the CLI said `init`, the `result` message, and the text
 * and code of an API error Claude Code reports as a synthetic assistant message.
 *
 * Delivery: the first top-level `stream_event` (the model API's `message_start`) acknowledges the
 * prompt, or, should partial messages be off, the first assistant message that is not an API error:
 * either proves that the CLI sent the prompt to the model API and the API took it (HTTP 200). The
 * `system/init` message before it proves only that the CLI started; an API refusal comes as an
 * assistant message with `error` (or `api_retry`), which acknowledges nothing.
 */
import type { SDKMessage, SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import type { AgentTurnContext } from '../../agent';
import type { ClaudeInvocations } from './claudeInvocations';

/** What the stream said that decides the attempt's outcome. */
export interface ClaudeStreamFacts {
  /** The CLI started (its `system/init` message came). */
  readonly sawInit: boolean;
  /** The final `result` message, if it came. */
  readonly result: SDKResultMessage | undefined;
  /** The text of an API error reported as an assistant message. */
  readonly apiErrorText: string | undefined;
  /** Its `error` code, e.g. `authentication_failed`. */
  readonly apiErrorCode: string | undefined;
}

/** Handles the messages of one attempt (see module docstring). */
export class ClaudeStream implements ClaudeStreamFacts {
  sawInit = false;
  result: SDKResultMessage | undefined;
  apiErrorText: string | undefined;
  apiErrorCode: string | undefined;
  private readonly streamedMessages = new Set<string>();
  private currentMessageId = '';
  private pendingBlockStart = false;
  private wroteText = false;
  private lastText = '';

  /**
   * @param onResult called when the `result` message arrives (the attempt then ends the CLI's input).
   * @param onDelivered called at the prompt's acknowledgement (see module docstring); may be called again.
   */
  constructor(
    private readonly ctx: AgentTurnContext,
    private readonly invocations: ClaudeInvocations,
    private readonly log: (line: string) => void,
    private readonly onResult: () => void,
    private readonly onDelivered: () => void,
  ) {}

  /** Handles one message of the query. */
  handle(m: SDKMessage): void {
    switch (m.type) {
      case 'system':
        if (m.subtype === 'init') this.sawInit = true;
        else if (m.subtype === 'api_retry') this.log(`[claude] API retry ${m.attempt}/${m.max_retries} after ${m.error_status ?? 'no status'} (${m.error})`);
        break;
      case 'stream_event':
        if (m.parent_tool_use_id) break;
        this.onDelivered();
        this.onStreamEvent(m.event);
        break;
      case 'assistant':
        this.onAssistant(m);
        break;
      case 'user':
        this.onUser(m);
        break;
      case 'result':
        this.result = m;
        this.onResult();
        break;
      default:
        break;
    }
  }

  private onStreamEvent(event: Extract<SDKMessage, { type: 'stream_event' }>['event']): void {
    if (event.type === 'message_start') this.currentMessageId = event.message.id;
    else if (event.type === 'content_block_start' && event.content_block.type === 'text') this.pendingBlockStart = true;
    else if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') {
      this.streamedMessages.add(this.currentMessageId);
      this.emitText(event.delta.text, this.pendingBlockStart);
      this.pendingBlockStart = false;
    }
  }

  private onAssistant(m: Extract<SDKMessage, { type: 'assistant' }>): void {
    const blocks = Array.isArray(m.message.content) ? m.message.content : [];
    if (m.error) {
      this.apiErrorText = blocks.map((b) => (b.type === 'text' ? b.text : '')).join('').trim() || m.error;
      this.apiErrorCode = m.error;
      return;
    }
    if (!m.parent_tool_use_id) this.onDelivered();
    for (const block of blocks) {
      if (block.type === 'text' && !m.parent_tool_use_id && !this.streamedMessages.has(m.message.id)) this.emitText(block.text, true);
      else if (block.type === 'tool_use') void this.invocations.ensure(block.id, block.name, (block.input ?? {}) as Record<string, unknown>);
    }
  }

  private onUser(m: Extract<SDKMessage, { type: 'user' }>): void {
    const content = m.message.content;
    if (typeof content === 'string') return;
    for (const block of content) {
      if (block.type !== 'tool_result') continue;
      const text = typeof block.content === 'string'
        ? block.content
        : (block.content ?? []).map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
      this.invocations.finish(block.tool_use_id, text, block.is_error === true);
    }
  }

  /** Sends `text` to the chat; a new block after earlier text starts a new paragraph. */
  private emitText(text: string, newBlock: boolean): void {
    if (!text) return;
    if (newBlock && this.wroteText && !this.lastText.endsWith('\n\n')) this.ctx.text(this.lastText.endsWith('\n') ? '\n' : '\n\n');
    this.ctx.text(text);
    this.wroteText = true;
    this.lastText = text;
  }
}
