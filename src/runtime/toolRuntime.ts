/**
 * The product's own tool runtime: executes `run`, `read` and `write` tool calls under the sandbox
 * policy (`core/sandboxPolicy.ts`). It is shared by every agent whose tools this product runs
 * (the local agent, OpenAI-compatible servers, VS Code language models).
 *
 * For each call: journal an invocation; if the policy says the call crosses the sandbox, raise a
 * boundary request and wait for its decision; a denial ends the invocation as `denied` and nothing
 * runs; otherwise execute, streaming command output into the invocation.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SandboxAction } from '../core/sandboxPolicy';
import { lineCounts, sameImage } from '../core/checkpoints';
import { fileErrorWords } from '../core/fileErrorWords';
import { unifiedDiff } from '../core/unifiedDiff';
import type { FileChangeInput } from '../journal/operations/checkpoints';
import { processStartTime } from '../journal/processInfo';
import type { AgentTurnContext, InvocationHandle, ToolCall, ToolResult, ToolRunner } from './agent';
import { checkpointPath, imageOfBytes, readImage, type DiskImage } from './fileImages';
import { COMMAND_MARK_ENV } from './orphanedCommands';
import { classifyWhereItLeads } from './whereItLeads';

/** Options of the tool runtime. */
export interface ToolRuntimeOptions {
  /** Workspace folder (absolute), or undefined when no folder is open (then every tool refuses). */
  readonly workspaceRoot: string | undefined;
  /** Kill a `run` command after this many ms. */
  readonly commandTimeoutMs: number;
  /** Largest file `read` returns, in bytes. */
  readonly maxReadBytes?: number;
  /** Most output characters kept for the agent from one command. */
  readonly maxOutputChars?: number;
  /** Checkpoint writes (default true); off only to measure what checkpoints cost (`npm run bench -- --checkpoints`). */
  readonly checkpoints?: boolean;
}

/** Tool runner bound to one run's context (see module docstring). */
export class SandboxedToolRunner implements ToolRunner {
  constructor(
    private readonly ctx: Pick<AgentTurnContext, 'signal' | 'startInvocation' | 'requestBoundary'>,
    private readonly options: ToolRuntimeOptions,
  ) {}

  /** Executes one call; never throws (failures come back as `failed` results). */
  async run(call: ToolCall): Promise<ToolResult> {
    const root = this.options.workspaceRoot;
    const summary = call.name === 'run' ? call.input.command : call.input.path;
    // A write shows what it changes (a unified diff against the file as it is now) and is
    // checkpointed: the file before and after, journaled with the invocation, before it runs.
    const checkpoints = this.options.checkpoints !== false;
    const planned = call.name === 'write' && root ? await planWrite(root, call.input.path, call.input.content, checkpoints) : undefined;
    const diff = planned?.diff;
    const checkpoint = checkpoints ? planned : undefined;
    const handle = await this.ctx.startInvocation(call.name, journaledInput(call, checkpoint), summary, diff, checkpoint ? [checkpoint.change] : undefined);
    if (!root) {
      const message = 'No folder is open, so the agent has no workspace to work in. Open a folder and try again.';
      await handle.finish({ status: 'failed', message });
      return { status: 'failed', output: '', message };
    }
    const { refused, asked } = await this.askIfCrossing(call, root, handle, diff);
    if (refused) return refused;
    if (this.ctx.signal.aborted) {
      await handle.finish({ status: 'stopped', message: 'Stopped before it ran.', fileChangesApplied: false });
      return { status: 'failed', output: '', message: 'Stopped' };
    }
    try {
      if (checkpoint && asked) await recheckBefore(root, checkpoint, handle);
      return await this.execute(call, root, handle);
    } catch (error) {
      const message = call.name === 'run' ? (error as Error).message : fileErrorWords(error, call.name, call.input.path);
      await handle.finish({ status: 'failed', message });
      return { status: 'failed', output: '', message };
    }
  }

  /**
   * When the policy says the call crosses the sandbox, raises a boundary request and waits for its
   * decision. `refused`: the result of a call that may not run (denied, or stopped meanwhile; its
   * invocation finished), undefined when it may run; `asked`: whether it waited for a decision.
   */
  private async askIfCrossing(call: ToolCall, root: string, handle: InvocationHandle, diff: string | undefined): Promise<{ refused?: ToolResult; asked: boolean }> {
    const action: SandboxAction =
      call.name === 'run' ? { type: 'command', command: call.input.command } : { type: call.name, path: call.input.path };
    // Paths are judged where they really lead: a symlink inside the workspace that points outside
    // it is outside (the policy itself only does path arithmetic).
    const verdict = classifyWhereItLeads(action, root);
    if (verdict.type !== 'boundary') return { asked: false };
    const outcome = await this.ctx.requestBoundary({
      invocationId: handle.id,
      kind: verdict.kind,
      subject: verdict.subject,
      why: verdict.why,
      scopeKey: verdict.scopeKey,
      grants: verdict.grants,
      ...(call.name === 'write' ? { detail: diff ?? call.input.content.slice(0, 4000) } : {}),
      ...(call.rerun ? { ignoreSessionGrant: true } : {}),
    });
    if (!outcome.approved && this.ctx.signal.aborted) {
      // Stop closed the request: the invocation was stopped, not denied (a fresh user saw a card
      // "Closed because the run was stopped" under a "Denied" badge).
      await handle.finish({ status: 'stopped', message: 'Stopped before it ran.', fileChangesApplied: false });
      return { refused: { status: 'failed', output: '', message: 'Stopped' }, asked: true };
    }
    if (!outcome.approved) {
      const message = 'The request was denied, so it did not run.';
      await handle.finish({ status: 'denied', message });
      return { refused: { status: 'denied', message }, asked: true };
    }
    return { asked: true };
  }

  /** Executes a call the policy lets run and finishes its invocation; throws on a failed read or write. */
  private async execute(call: ToolCall, root: string, handle: InvocationHandle): Promise<ToolResult> {
    switch (call.name) {
      case 'run':
        return this.runInWorkspace(call.input.command, root, handle);
      case 'read': {
        const file = path.resolve(root, call.input.path);
        const max = this.options.maxReadBytes ?? 256 * 1024;
        const stat = await fs.promises.stat(file);
        if (stat.size > max) throw new Error(`${call.input.path} is ${stat.size} bytes; the limit is ${max} bytes`);
        const text = await fs.promises.readFile(file, 'utf8');
        handle.output(text);
        await handle.finish({ status: 'completed' });
        return { status: 'completed', output: text };
      }
      case 'write': {
        const file = path.resolve(root, call.input.path);
        await fs.promises.mkdir(path.dirname(file), { recursive: true });
        await fs.promises.writeFile(file, call.input.content, 'utf8');
        // Named as VS Code names a workspace file (relative, `/`); one outside the workspace, absolutely.
        const note = `Wrote ${Buffer.byteLength(call.input.content)} bytes to ${checkpointPath(root, file)}`;
        handle.output(note);
        await handle.finish({ status: 'completed' });
        return { status: 'completed', output: note };
      }
    }
  }

  /** Runs a `run` command in the workspace, streaming its output into the invocation. */
  private async runInWorkspace(command: string, root: string, handle: InvocationHandle): Promise<ToolResult> {
    const result = await runCommand(command, root, this.options.commandTimeoutMs, this.ctx.signal, (chunk) => handle.output(chunk), (pid, marker) => {
      // Journaled so that recovery can end the command if this host dies while it runs.
      const startTime = processStartTime(pid);
      if (startTime !== null) handle.processStarted?.({ pid, startTime, hostname: os.hostname(), marker });
    });
    const output = result.output.slice(-(this.options.maxOutputChars ?? 16_000));
    const ok = result.exitCode === 0;
    const message = result.timedOut
      ? `Timed out after ${this.options.commandTimeoutMs} ms`
      : result.aborted
        ? 'Stopped'
        : ok ? undefined : `Exited with code ${result.exitCode}`;
    await handle.finish({ status: ok ? 'completed' : result.aborted ? 'stopped' : 'failed', exitCode: result.exitCode, ...(message ? { message } : {}) });
    return ok ? { status: 'completed', output, exitCode: 0 } : { status: 'failed', output, message: message ?? 'failed', exitCode: result.exitCode };
  }
}

/** Largest existing file (bytes) a write is diffed against; larger ones show only the new content. */
const MAX_DIFF_SOURCE_BYTES = 256 * 1024;

/** A write about to run: its diff for the card, its checkpoint, and the before and after images it was taken from. */
interface PlannedWrite {
  readonly diff: string | undefined;
  readonly change: FileChangeInput;
  readonly before: DiskImage | undefined;
  /** The image of the content to write (absent when checkpoints are off). */
  readonly after: DiskImage | undefined;
}

/**
 * The input journaled with a call: as given, except that a checkpointed write whose content is
 * stored as its after image names that content by hash and size instead of holding it a second time
 * (`{ path, contentHash, contentBytes }`): the bytes are in the content store once.
 */
export function journaledInput(call: ToolCall, planned: PlannedWrite | undefined): unknown {
  const after = planned?.after;
  if (call.name !== 'write' || !after?.bytes || !after.image.hash) return call.input;
  return { path: call.input.path, contentHash: after.image.hash, contentBytes: after.image.size };
}

/**
 * Reads the file a write of `content` to `target` replaces, once, for both the unified diff it
 * makes (`/dev/null` for a new file) and its checkpoint (before and after images, +/- counts). A
 * file that cannot be read (a folder at the path) gets no checkpoint and the diff of a new file.
 * With `images` false (checkpoints off) the file is read without hashing, as for the diff alone.
 */
async function planWrite(root: string, target: string, content: string, images: boolean): Promise<PlannedWrite> {
  const file = path.resolve(root, target);
  const label = checkpointPath(root, file);
  let before: DiskImage | undefined;
  try {
    before = images ? await readImage(root, file) : await readForDiff(file);
  } catch {
    before = undefined;
  }
  const beforeText = before?.bytes && before.bytes.byteLength <= MAX_DIFF_SOURCE_BYTES ? Buffer.from(before.bytes).toString('utf8') : undefined;
  const exists = before?.image.exists ?? false;
  const diff = exists && beforeText === undefined ? undefined : unifiedDiff(beforeText ?? '', content, exists ? label : '/dev/null', label);
  const counts = lineCounts(diff);
  const after = images ? imageOfBytes(new Uint8Array(Buffer.from(content, 'utf8'))) : undefined;
  const change: FileChangeInput = {
    path: label, before: before?.input ?? { exists: false }, after: after?.input ?? { exists: false }, ...(counts ? { added: counts.added, removed: counts.removed } : {}),
  };
  return { diff, change, before, after };
}

/** The file's bytes for the diff only (checkpoints off): no hash, absent when missing. */
async function readForDiff(file: string): Promise<DiskImage> {
  try {
    const bytes = new Uint8Array(await fs.promises.readFile(file));
    return { input: { exists: true, bytes }, image: { exists: true, hash: null, size: bytes.byteLength }, bytes };
  } catch {
    return { input: { exists: false }, image: { exists: false, hash: null, size: 0 }, bytes: null };
  }
}

/**
 * Reads the file again right before the write when it may have changed since the invocation was
 * journaled (an approval was awaited), and journals the image it really replaces.
 */
async function recheckBefore(root: string, planned: PlannedWrite, handle: InvocationHandle): Promise<void> {
  const now = await readImage(root, planned.change.path);
  if (planned.before && sameImage(now.image, planned.before.image)) return;
  await handle.recordFileChanges?.([{ path: planned.change.path, before: now.input, added: null, removed: null }]);
}

/** Result of `runCommand`. `exitCode` is null when the process was killed. */
export interface CommandResult {
  readonly exitCode: number | null;
  readonly output: string;
  readonly timedOut: boolean;
  readonly aborted: boolean;
}

/**
 * Runs `command` with `/bin/sh -c` in `cwd`, streaming stdout and stderr (UTF-8) to `onChunk`.
 * The shell leads a process group of its own (`detached`), whose id is its pid, passed to `onSpawn`
 * once it started with the mark its environment carries (`COMMAND_MARK_ENV`, a fresh UUID). Kills the whole group (SIGKILL; the shell's children too) after `timeoutMs` ms
 * or when `signal` aborts. Never rejects for a failing command; rejects only if the shell cannot be
 * spawned.
 */
export function runCommand(
  command: string,
  cwd: string,
  timeoutMs: number,
  signal: AbortSignal,
  onChunk: (chunk: string) => void,
  onSpawn?: (pid: number, marker: string) => void,
): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const marker = randomUUID();
    const env = { ...process.env, [COMMAND_MARK_ENV]: marker };
    const child = spawn('/bin/sh', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid !== undefined) onSpawn?.(child.pid, marker);
    let output = '';
    let timedOut = false;
    let aborted = false;
    const kill = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    const onAbort = () => {
      aborted = true;
      kill();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const onData = (data: Buffer) => {
      const text = data.toString('utf8');
      output += text;
      if (output.length > 1_000_000) output = output.slice(-500_000);
      onChunk(text);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('error', (error) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve({ exitCode: timedOut || aborted ? null : code, output, timedOut, aborted });
    });
  });
}
