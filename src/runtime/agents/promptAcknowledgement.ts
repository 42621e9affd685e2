/**
 * How an agent tells the runtime that its provider has the turn's prompt (`ctx.promptDelivered`,
 * which makes the turn's delivery `delivered`): once per turn, at the provider's own
 * acknowledgement, which each agent names in its docstring (the table is in docs/ARCHITECTURE.md,
 * "Agents"). A provider that answered the request with an error has not acknowledged it: the turn
 * fails at once (`agent_error` / `agent_unavailable`), and only the user's Retry sends it again.
 */
import type { AgentTurnContext } from '../agent';

/**
 * A function that calls `ctx.promptDelivered()` on its first call and does nothing after, so an
 * agent that makes several attempts or model calls in one turn acknowledges the prompt once.
 * It does not wait for the journal: `promptDelivered` never rejects, the runtime orders the write
 * with the run's other events, and the provider's answer need not wait for the disk.
 */
export function acknowledgeOnce(ctx: Pick<AgentTurnContext, 'promptDelivered'>): () => void {
  let acknowledged = false;
  return () => {
    if (acknowledged) return;
    acknowledged = true;
    void ctx.promptDelivered();
  };
}
