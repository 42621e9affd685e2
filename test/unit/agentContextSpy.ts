/**
 * A recording `AgentTurnContext` for driving an agent's `runTurn` directly (no runtime, no journal):
 * every call the agent makes on it is appended, in order, to one log, with what a test-supplied
 * probe said at that moment (e.g. how many requests the model mock had received). Tests also append
 * their own observations (`note`, e.g. protocol trace lines) to the same log, so "A happened before
 * B" is an index comparison. Tools complete at once with output `ok`; boundary requests are approved.
 */
import type { AgentTurnContext, AgentTurnRequest, InvocationHandle } from '../../src/runtime/agent';

/** One entry of the log. `probe`: the probe's value when the agent made the call (undefined for notes). */
export interface SpyEntry {
  readonly call: 'promptDelivered' | 'text' | 'tools.run' | 'startInvocation' | 'requestBoundary' | 'setProviderState' | 'note';
  readonly detail: string;
  readonly probe?: number;
}

/** The recording context (see module docstring). */
export class ContextSpy {
  readonly log: SpyEntry[] = [];
  readonly abort = new AbortController();
  private invocations = 0;

  /** @param probe read at every call of the agent (e.g. `() => mock.requests.length`). */
  constructor(private readonly probe: () => number = () => 0) {}

  /** Appends an observation of the test (e.g. a protocol line) to the log. */
  note(detail: string): void {
    this.log.push({ call: 'note', detail });
  }

  /** Entries of one kind. */
  calls(call: SpyEntry['call']): SpyEntry[] {
    return this.log.filter((e) => e.call === call);
  }

  /** Index of the first entry of `call` (whose detail matches `detail`, if given); -1 if none. */
  indexOf(call: SpyEntry['call'], detail?: RegExp): number {
    return this.log.findIndex((e) => e.call === call && (!detail || detail.test(e.detail)));
  }

  /** All streamed text. */
  text(): string {
    return this.calls('text').map((e) => e.detail).join('');
  }

  /** The context an agent gets. */
  get context(): AgentTurnContext {
    const record = (call: SpyEntry['call'], detail = ''): void => {
      this.log.push({ call, detail, probe: this.probe() });
    };
    return {
      signal: this.abort.signal,
      text: (delta) => record('text', delta),
      tools: {
        run: async (call) => {
          record('tools.run', call.name);
          return { status: 'completed', output: 'ok', exitCode: 0 };
        },
      },
      startInvocation: async (tool): Promise<InvocationHandle> => {
        record('startInvocation', tool);
        return { id: `inv${++this.invocations}`, output: () => undefined, finish: async () => undefined };
      },
      requestBoundary: async (request) => {
        record('requestBoundary', request.subject);
        return { approved: true, decision: 'allow_once', requestId: `req${this.invocations}` };
      },
      setProviderState: async (state) => record('setProviderState', state),
      promptDelivered: async () => record('promptDelivered'),
    };
  }
}

/** A turn request for `prompt` in `cwd` with no history. */
export function turnRequest(prompt: string, cwd: string, providerState: string | null = null): AgentTurnRequest {
  return { sessionId: 'session-1', turnId: 'turn-1', prompt, origin: 'prompt', history: [], providerState, cwd };
}
