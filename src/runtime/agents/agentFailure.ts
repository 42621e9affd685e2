/**
 * The one way an agent turns an error it did not expect into a turn's end: failed, error class
 * `agent_error`, and a sentence that names the agent and the error's message. Agents' `runTurn`
 * never throws; each wraps its run in `failedWith`.
 */
import type { AgentTurnOutcome } from '../agent';

/** The outcome of a turn that failed with `error`; `who` names the agent ("Codex", "The Claude agent"). */
export function agentFailure(who: string, error: unknown): AgentTurnOutcome {
  return { status: 'failed', errorClass: 'agent_error', message: `${who} failed: ${(error as Error)?.message ?? String(error)}` };
}

/** Runs `turn`, turning anything it throws into `agentFailure(who, error)`. */
export async function failedWith(who: string, turn: () => Promise<AgentTurnOutcome>): Promise<AgentTurnOutcome> {
  try {
    return await turn();
  } catch (error) {
    return agentFailure(who, error);
  }
}
