/**
 * Which agent serves a provider id in this window. Only the offline local agent exists so far;
 * real providers (issue #4) register here behind the same `Agent` interface.
 */
import type { Agent } from '../runtime/agent';
import { LocalAgent } from '../runtime/agents/localAgent';

/** Builds the provider → agent lookup. `chunkDelayMs` paces the local agent's streaming. */
export function createAgentRegistry(options: { readonly chunkDelayMs: number }): (provider: string) => Agent | undefined {
  const local = new LocalAgent({ chunkDelayMs: options.chunkDelayMs });
  return (provider) => (provider === 'local' ? local : undefined);
}
