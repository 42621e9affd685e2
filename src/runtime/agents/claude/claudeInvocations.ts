/**
 * The invocations of one Claude Code `query()`: one per tool_use id, started by the first of the
 * permission request or the assistant message that names the tool, finished by its tool_result.
 * Journal writes are collected so the attempt can wait for them before it decides its outcome.
 *
 * After Stop (or a host shutting down) nothing more is journaled for tools: the runtime ends open
 * invocations as stopped, or the next host's recovery settles them. Invocations whose result never
 * came are ended by the runtime when the run ends.
 */
import type { AgentTurnContext, InvocationHandle } from '../../agent';
import { ToolCheckpoints } from '../toolCheckpoints';
import { diffOfTool, summarizeTool } from './claudeTools';

/** Claude Code's file tools and the input field naming the file each changes (checkpoints). */
const FILE_TOOLS: Readonly<Record<string, string>> = { Write: 'file_path', Edit: 'file_path', MultiEdit: 'file_path', NotebookEdit: 'notebook_path' };

/** Longest tool output journaled per invocation, in characters. */
const MAX_TOOL_OUTPUT_CHARS = 16_000;

/** The invocations of one attempt (see module docstring). */
export class ClaudeInvocations {
  private readonly handles = new Map<string, Promise<InvocationHandle | undefined>>();
  private readonly finished = new Set<string>();
  private readonly denied = new Set<string>();
  private readonly journalWrites: Promise<unknown>[] = [];
  private readonly checkpoints: ToolCheckpoints;

  constructor(
    private readonly ctx: AgentTurnContext,
    private readonly cwd: string,
    private readonly log: (line: string) => void,
  ) {
    this.checkpoints = new ToolCheckpoints(cwd, log);
  }

  /**
   * The tool was allowed and has not run yet (its permission answer is still ours to give):
   * journals the before image of the file a file tool changes.
   */
  async allowed(toolUseId: string, toolName: string, toolInput: Record<string, unknown>): Promise<void> {
    const field = FILE_TOOLS[toolName];
    const file = field ? toolInput[field] : undefined;
    if (typeof file !== 'string' || !file) return;
    await this.checkpoints.before(toolUseId, await this.handles.get(toolUseId), [file]);
  }

  /**
   * The invocation of `toolUseId`, started on first sight; undefined when the run is stopped
   * before it started, or when the journal refused it (logged).
   */
  ensure(toolUseId: string, toolName: string, toolInput: Record<string, unknown>): Promise<InvocationHandle | undefined> {
    let handle = this.handles.get(toolUseId);
    if (!handle && this.ctx.signal.aborted) return Promise.resolve(undefined);
    if (!handle) {
      const diff = diffOfTool(toolName, toolInput, this.cwd);
      handle = this.ctx.startInvocation(toolName, toolInput, summarizeTool(toolName, toolInput, this.cwd), diff).catch((error: Error) => {
        this.log(`[claude] could not journal the invocation of ${toolName}: ${error.message}`);
        return undefined;
      });
      this.handles.set(toolUseId, handle);
      this.journalWrites.push(handle);
    }
    return handle;
  }

  /** Marks `toolUseId` as denied: its result ends the invocation `denied`, without its output. */
  markDenied(toolUseId: string): void {
    this.denied.add(toolUseId);
  }

  /** Ends the invocation of `toolUseId` with its tool_result (once; nothing after Stop). */
  finish(toolUseId: string, output: string, isError: boolean): void {
    if (this.finished.has(toolUseId) || this.ctx.signal.aborted) return;
    this.finished.add(toolUseId);
    const handle = this.handles.get(toolUseId) ?? this.ensure(toolUseId, 'tool', {});
    this.journalWrites.push((async () => {
      const h = await handle;
      if (!h) return;
      const denied = this.denied.has(toolUseId);
      if (output && !denied) h.output(output.length > MAX_TOOL_OUTPUT_CHARS ? `${output.slice(0, MAX_TOOL_OUTPUT_CHARS)}\n… (output truncated)\n` : output);
      const files = await this.checkpoints.after(toolUseId);
      if (denied) await h.finish({ status: 'denied', message: 'The request was denied, so it did not run.', ...files });
      else if (isError) await h.finish({ status: 'failed', message: firstLine(output) || 'The tool failed.', ...files });
      else await h.finish({ status: 'completed', ...files });
    })().catch((error: Error) => this.log(`[claude] could not finish an invocation: ${error.message}`)));
  }

  /** Resolves once every journal write started so far has settled. */
  async settled(): Promise<void> {
    await Promise.allSettled(this.journalWrites);
  }
}

/** The first line of `text`, at most 200 characters. */
function firstLine(text: string): string {
  const line = text.trim().split('\n')[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
