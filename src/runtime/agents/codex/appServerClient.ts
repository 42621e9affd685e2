/**
 * A client for `codex app-server`: one child process speaking JSON-RPC over stdio, one JSON object
 * per line, without a "jsonrpc" field (Codex's dialect; see `codex app-server generate-ts`).
 *
 * Three kinds of lines arrive on stdout:
 * - responses `{id, result}` / `{id, error}` to our requests,
 * - notifications `{method, params}` (turn and item events),
 * - server requests `{id, method, params}` (approvals), which the handler answers exactly once.
 *
 * The client never hangs on a dead process: every pending request is rejected when the process
 * exits or its stdout closes, and requests may carry a timeout. `close()` ends stdin, then signals
 * the process group (POSIX) so helper processes (sandboxed commands) go too.
 * Vscode-free; no dependency beyond Node.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

/** An error answer from the server, or a failure of the transport (`code` -1: exited, -2: timeout). */
export class AppServerError extends Error {
  constructor(
    message: string,
    readonly code: number,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'AppServerError';
  }
}

/** How the process ended: an exit code or signal, or a spawn error (e.g. ENOENT). */
export interface AppServerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Set when the process could not be started at all. */
  readonly spawnError?: NodeJS.ErrnoException;
}

/** A request the server sent us (an approval, a user-input question, …). */
export interface ServerRequest {
  readonly id: number | string;
  readonly method: string;
  readonly params: unknown;
}

/** What starts the process. */
export interface AppServerSpawnOptions {
  /** The `codex` executable (native binary, or the npm shim). */
  readonly executable: string;
  /** Arguments, normally `['app-server']`. */
  readonly args: readonly string[];
  /** The full child environment (not merged here). */
  readonly env: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Each stderr line and protocol trouble, for the extension's log. */
  readonly log?: (line: string) => void;
  /** Also log every protocol line in both directions (diagnostics). */
  readonly trace?: boolean;
}

/** Bytes of stderr kept for error messages. */
const STDERR_TAIL_BYTES = 4096;

interface Pending {
  readonly method: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly timer?: NodeJS.Timeout;
}

/** One `codex app-server` process (see module docstring). */
export class AppServerClient {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, Pending>();
  private readonly notificationListeners = new Set<(method: string, params: unknown) => void>();
  private requestHandler: (request: ServerRequest) => void = (r) => this.respondError(r.id, -32601, `Method not supported by this client: ${r.method}`);
  private nextId = 1;
  private buffer = '';
  private stderrTail = '';
  private exitInfo: AppServerExit | undefined;
  private readonly log: (line: string) => void;
  private readonly trace: boolean;
  /** Resolves once the process has exited (or could not start). Never rejects. */
  readonly exited: Promise<AppServerExit>;

  constructor(options: AppServerSpawnOptions) {
    this.log = options.log ?? (() => undefined);
    this.trace = options.trace === true;
    const windowsShim = process.platform === 'win32' && /\.(cmd|bat)$/i.test(options.executable);
    this.child = spawn(windowsShim ? `"${options.executable}"` : options.executable, [...options.args], {
      env: options.env,
      cwd: options.cwd,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Own process group on POSIX, so close() can end the helpers (sandboxed commands) with it.
      detached: process.platform !== 'win32',
      shell: windowsShim,
      windowsHide: true,
    });
    let settle!: (exit: AppServerExit) => void;
    this.exited = new Promise((resolve) => (settle = resolve));
    const finish = (exit: AppServerExit): void => {
      if (this.exitInfo) return;
      this.exitInfo = exit;
      this.failPending(describeExit(exit, this.stderrTail));
      settle(exit);
    };
    this.child.on('error', (error: NodeJS.ErrnoException) => finish({ code: null, signal: null, spawnError: error }));
    // 'close' comes after stdout is drained, so a last notification is never lost to 'exit'; a
    // grandchild holding stdout open must not delay the verdict for long, though.
    this.child.on('close', (code, signal) => finish({ code, signal }));
    this.child.on('exit', (code, signal) => setTimeout(() => finish({ code, signal }), 500).unref());
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.onStdout(chunk));
    // A closed stdout means no answer can ever come: fail what waits, even before 'exit'.
    this.child.stdout.on('close', () => this.failPending(describeExit(this.exitInfo ?? { code: null, signal: null }, this.stderrTail)));
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
      for (const line of chunk.split('\n')) if (line.trim()) this.log(`[codex stderr] ${stripAnsi(line)}`);
    });
    // Writes after the process died must not throw out of the client.
    this.child.stdin.on('error', (error) => this.log(`[codex] stdin: ${error.message}`));
  }

  /** The child's process id (undefined if it could not start). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** How the process ended, once it has. */
  get exit(): AppServerExit | undefined {
    return this.exitInfo;
  }

  /** The last few KB of stderr, without terminal colour codes. */
  get stderr(): string {
    return stripAnsi(this.stderrTail);
  }

  /** Subscribes to notifications; returns an unsubscribe function. */
  onNotification(listener: (method: string, params: unknown) => void): () => void {
    this.notificationListeners.add(listener);
    return () => this.notificationListeners.delete(listener);
  }

  /** Sets the handler of server requests; it must answer each with `respond` or `respondError`. */
  onServerRequest(handler: (request: ServerRequest) => void): void {
    this.requestHandler = handler;
  }

  /**
   * Sends a request and resolves with its `result`. Rejects with `AppServerError` on an error
   * answer, on exit of the process, or after `timeoutMs` (if given).
   */
  request<T = unknown>(method: string, params: unknown, timeoutMs?: number): Promise<T> {
    if (this.exitInfo) return Promise.reject(describeExit(this.exitInfo, this.stderrTail));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            this.pending.delete(id);
            reject(new AppServerError(`Codex did not answer ${method} within ${Math.round(timeoutMs / 1000)} s.`, -2));
          }, timeoutMs);
      this.pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject, timer });
      this.write({ id, method, params });
    });
  }

  /** Sends a notification (no answer). */
  notify(method: string, params?: unknown): void {
    this.write(params === undefined ? { method } : { method, params });
  }

  /** Answers a server request. */
  respond(id: number | string, result: unknown): void {
    this.write({ id, result });
  }

  /** Answers a server request with an error. */
  respondError(id: number | string, code: number, message: string): void {
    this.write({ id, error: { code, message } });
  }

  /**
   * Ends the process: closes stdin (app-server exits on EOF); if it is still there after `graceMs`,
   * SIGTERM to its process group, then SIGKILL after another `graceMs`. Helpers left in the group
   * after the leader exited get SIGTERM first (a login shell killed outright can leave lock files
   * behind, e.g. pyenv's), then SIGKILL. Resolves when the process has exited.
   */
  async close(graceMs = 1500): Promise<AppServerExit> {
    if (!this.exitInfo) {
      try {
        this.child.stdin.end();
      } catch {
        // already closed
      }
    }
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      if (await this.exitedWithin(graceMs)) break;
      this.kill(signal);
    }
    await this.exitedWithin(graceMs);
    if (this.groupAlive()) {
      this.killGroup('SIGTERM');
      for (let waited = 0; waited < graceMs && this.groupAlive(); waited += 50) await delay(50);
      if (this.groupAlive()) this.killGroup('SIGKILL');
    }
    return this.exitInfo ?? { code: null, signal: null };
  }

  private async exitedWithin(ms: number): Promise<boolean> {
    if (this.exitInfo) return true;
    return Promise.race([this.exited.then(() => true), delay(ms).then(() => false)]);
  }

  /** True while any process of the child's group lives (POSIX; false elsewhere). */
  private groupAlive(): boolean {
    if (process.platform === 'win32' || !this.child.pid) return false;
    try {
      process.kill(-this.child.pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  /** Sends `signal` to the process (and its group on POSIX). */
  kill(signal: NodeJS.Signals): void {
    if (!this.killGroup(signal)) {
      try {
        this.child.kill(signal);
      } catch {
        // gone
      }
    }
  }

  private killGroup(signal: NodeJS.Signals): boolean {
    if (process.platform === 'win32' || !this.child.pid) return false;
    try {
      process.kill(-this.child.pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  private write(message: unknown): void {
    if (this.exitInfo || !this.child.stdin.writable) return;
    const line = JSON.stringify(message);
    if (this.trace) this.log(`[codex →] ${line}`);
    this.child.stdin.write(`${line}\n`);
  }

  private failPending(error: AppServerError): void {
    for (const [id, p] of [...this.pending]) {
      this.pending.delete(id);
      if (p.timer) clearTimeout(p.timer);
      p.reject(error);
    }
  }

  private onStdout(chunk: string): void {
    this.buffer += chunk;
    for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n')) {
      const line = this.buffer.slice(0, nl).trim();
      this.buffer = this.buffer.slice(nl + 1);
      if (line) this.onLine(line);
    }
  }

  private onLine(line: string): void {
    if (this.trace) this.log(`[codex ←] ${line}`);
    let message: { id?: number | string; method?: string; params?: unknown; result?: unknown; error?: { code?: number; message?: string; data?: unknown } };
    try {
      message = JSON.parse(line);
    } catch {
      this.log(`[codex] not JSON on stdout: ${line.slice(0, 200)}`);
      return;
    }
    if (typeof message !== 'object' || message === null) return;
    if (message.method !== undefined && message.id !== undefined) {
      try {
        this.requestHandler({ id: message.id, method: message.method, params: message.params });
      } catch (error) {
        this.respondError(message.id, -32603, (error as Error).message);
      }
      return;
    }
    if (message.method !== undefined) {
      for (const listener of [...this.notificationListeners]) {
        try {
          listener(message.method, message.params);
        } catch (error) {
          this.log(`[codex] notification listener failed on ${message.method}: ${(error as Error).message}`);
        }
      }
      return;
    }
    if (typeof message.id !== 'number') return;
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    if (pending.timer) clearTimeout(pending.timer);
    if (message.error) {
      pending.reject(new AppServerError(message.error.message ?? `${pending.method} failed`, message.error.code ?? -32000, message.error.data));
    } else {
      pending.resolve(message.result);
    }
  }
}

function describeExit(exit: AppServerExit, stderr: string): AppServerError {
  if (exit.spawnError) return new AppServerError(`Codex could not be started: ${exit.spawnError.message}`, -1);
  const how = exit.signal ? `was killed (${exit.signal})` : exit.code === null ? 'closed its output' : `exited with code ${exit.code}`;
  const tail = lastLines(stripAnsi(stderr), 3);
  return new AppServerError(`The Codex app-server ${how}${tail ? `: ${tail}` : '.'}`, -1);
}

/** The last `n` non-empty lines of `text`, joined by " / ". */
export function lastLines(text: string, n: number): string {
  return text.split('\n').map((l) => l.trim()).filter(Boolean).slice(-n).join(' / ');
}

function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}
