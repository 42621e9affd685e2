/**
 * What one Codex turn shows in the chat: agent message text, and the invocations of its items
 * (`commandExecution` → `run` with its output, `fileChange` → `edit` with a unified diff,
 * `mcpToolCall` → `<server>.<tool>`). Journal work is serialized in one queue so an invocation's
 * output and finish follow its start; after Stop (or a host shutdown) nothing more is journaled.
 */
import type { AgentTurnContext, InvocationHandle } from '../../agent';
import { Sequencer } from '../../../core/sequencer';
import { ToolCheckpoints } from '../toolCheckpoints';
import { displayCommand, relativeTo, unifiedDiff, type FileUpdateChange, type ThreadItem } from './codexItems';

/** How an invocation ended, as Codex reported it. */
export interface CodexInvocationEnd {
  readonly status: 'completed' | 'failed' | 'denied';
  readonly exitCode?: number | null;
  readonly message?: string;
}

/** The chat side of one Codex turn (see module docstring). */
export class CodexInvocations {
  /** Serializes journal work so outputs and finishes follow their invocation's start. */
  private readonly queue = new Sequencer();
  private readonly invocations = new Map<string, Promise<InvocationHandle | undefined>>();
  private readonly finished = new Set<string>();
  /** The latest changes of each fileChange item (for the diff of its approval request). */
  private readonly changes = new Map<string, readonly FileUpdateChange[]>();
  private readonly streamedItems = new Set<string>();
  /** Command output received per item through deltas (to complete it from `aggregatedOutput`). */
  private readonly outputs = new Map<string, string>();
  /** Checkpoints of `fileChange` items (before on approval or start, after on completion). */
  private readonly checkpoints: ToolCheckpoints;
  private lastTextItem: string | undefined;
  private wroteText = false;

  /** @param stopped true once the run is stopped (read at each step). */
  constructor(
    private readonly ctx: AgentTurnContext,
    private readonly cwd: string,
    private readonly stopped: () => boolean,
    private readonly log: (line: string) => void,
  ) {
    this.checkpoints = new ToolCheckpoints(cwd, log);}

  /** Waits until everything queued so far reached the runtime. */
  drain(): Promise<void> {
    return this.queue.idle();
  }

  /** The invocation already started for `itemId`, if any. */
  get(itemId: string): Promise<InvocationHandle | undefined> | undefined {
    return this.invocations.get(itemId);
  }

  /** The changes last seen for a fileChange item ([] when none). */
  changesOf(itemId: string): readonly FileUpdateChange[] {
    return this.changes.get(itemId) ?? [];
  }

  /** `item/fileChange/patchUpdated`: the item's changes so far. */
  setChanges(itemId: string, changes: readonly FileUpdateChange[]): void {
    this.changes.set(itemId, changes);
  }

  /** The files of `changes`, relative to the workspace, comma-separated. */
  filesSubject(changes: readonly FileUpdateChange[]): string {
    return changes.map((c) => relativeTo(this.cwd, c.path)).join(', ');
  }

  /** Agent message text; a new message after earlier text starts a new paragraph. */
  text(itemId: string, delta: string): void {
    this.streamedItems.add(itemId);
    this.enqueue(() => {
      if (this.stopped()) return;
      if (this.lastTextItem !== itemId) {
        if (this.wroteText) this.ctx.text('\n\n');
        this.lastTextItem = itemId;
      }
      this.wroteText = true;
      this.ctx.text(delta);
    });
  }

  /** `item/started`: starts the invocation of a command, file change or MCP tool call. */
  onItemStarted(item: ThreadItem): void {
    switch (item.type) {
      case 'commandExecution':
        this.start(item.id, 'run', { command: item.command ?? '', cwd: item.cwd ?? this.cwd }, displayCommand(item.command ?? ''));
        break;
      case 'fileChange': {
        const changes = item.changes ?? [];
        this.changes.set(item.id, changes);
        this.start(item.id, 'edit', { files: changes.map((c) => c.path) }, this.filesSubject(changes), unifiedDiff(changes, this.cwd));
        // Without an approval Codex may apply the change meanwhile: the before image is then what
        // the file held when it was read (an undo finds nothing to put back, never a wrong one).
        this.enqueue(() => this.beforeChange(item.id));
        break;
      }
      case 'mcpToolCall':
        this.start(item.id, `${item.server ?? 'mcp'}.${item.tool ?? 'tool'}`, item.arguments ?? null, item.tool ?? 'MCP tool');
        break;
      default:
        break;
    }
  }

  /** `item/completed`: the text of a message that did not stream, or the end of an invocation. */
  onItemCompleted(item: ThreadItem): void {
    switch (item.type) {
      case 'agentMessage':
        // A provider that does not stream deltas still gets its text shown.
        if (!this.streamedItems.has(item.id) && item.text) this.text(item.id, item.text);
        break;
      case 'commandExecution':
      case 'fileChange':
      case 'mcpToolCall': {
        if (!this.invocations.has(item.id)) this.onItemStarted(item);
        // Output may come only (or partly) in the completed item rather than as deltas.
        const received = this.outputs.get(item.id) ?? '';
        if (item.aggregatedOutput && item.aggregatedOutput.length > received.length && item.aggregatedOutput.startsWith(received)) {
          this.output(item.id, item.aggregatedOutput.slice(received.length));
        }
        const status = item.status === 'completed' ? 'completed' : item.status === 'declined' ? 'denied' : 'failed';
        const message = status === 'denied'
          ? 'Declined'
          : status === 'failed'
            ? item.error?.message ?? (item.type === 'fileChange' ? 'The change could not be applied' : 'The command failed')
            : undefined;
        this.finish(item.id, { status, ...(item.exitCode !== undefined ? { exitCode: item.exitCode } : {}), ...(message ? { message } : {}) });
        break;
      }
      default:
        break;
    }
  }

  /**
   * The invocation of `itemId`, started (in the queue) on first sight; undefined when the run was
   * stopped first or the journal refused it (logged).
   */
  start(itemId: string, tool: string, input: unknown, summary: string, diff?: string): Promise<InvocationHandle | undefined> {
    const existing = this.invocations.get(itemId);
    if (existing) return existing;
    const started = new Promise<InvocationHandle | undefined>((resolve) => {
      this.enqueue(async () => {
        if (this.stopped()) return resolve(undefined);
        try {
          resolve(await this.ctx.startInvocation(tool, input, summary, diff || undefined));
        } catch (error) {
          this.log(`[codex] startInvocation failed: ${(error as Error).message}`);
          resolve(undefined);
        }
      });
    });
    this.invocations.set(itemId, started);
    return started;
  }

  /** `item/commandExecution/outputDelta`: output of a started invocation. */
  output(itemId: string, chunk: string): void {
    const handle = this.invocations.get(itemId);
    if (!handle) return;
    this.outputs.set(itemId, (this.outputs.get(itemId) ?? '') + chunk);
    this.enqueue(async () => {
      if (!this.stopped()) (await handle)?.output(chunk);
    });
  }

  /**
   * Journals the before images of a `fileChange` item's files (their old and, for a move, new
   * paths), once: on its approval, before Codex hears it, or at its start.
   */
  async beforeChange(itemId: string): Promise<void> {
    const changes = this.changes.get(itemId);
    if (!changes?.length || this.stopped()) return;
    const files = changes.flatMap((c) => (c.kind.move_path ? [c.path, c.kind.move_path] : [c.path]));
    await this.checkpoints.before(itemId, await this.invocations.get(itemId), files);
  }

  /** Ends the invocation of `itemId` (once). */
  finish(itemId: string, result: CodexInvocationEnd): void {
    const handle = this.invocations.get(itemId);
    if (!handle || this.finished.has(itemId)) return;
    this.finished.add(itemId);
    this.enqueue(async () => {
      if (!this.stopped()) await (await handle)?.finish({ ...result, ...(await this.checkpoints.after(itemId)) });
    });
  }

  /** Ends invocations Codex never completed (the process died): failed, with the reason. */
  async settleOpen(): Promise<void> {
    for (const itemId of this.invocations.keys()) {
      this.finish(itemId, { status: 'failed', message: 'Codex ended before this finished' });
    }
    await this.drain();
  }

  private enqueue(work: () => Promise<void> | void): void {
    void this.queue.run(work).catch((error) => this.log(`[codex] journal work failed: ${(error as Error).message}`));
  }
}
