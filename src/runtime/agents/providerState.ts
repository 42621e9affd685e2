/**
 * Reading back the provider state an agent journaled with `ctx.setProviderState` (a JSON object
 * that names the agent's own session, e.g. `{"sessionId":…}` or `{"threadId":…}`).
 */

/**
 * The non-empty string `field` of the JSON object `state`; undefined when there is no state, it is
 * not JSON, or the field is missing, empty or not a string (state written by another agent or an
 * older build is ignored rather than trusted).
 */
export function providerStateField(state: string | null, field: string): string | undefined {
  if (!state) return undefined;
  try {
    const value = (JSON.parse(state) as Record<string, unknown> | null)?.[field];
    return typeof value === 'string' && value ? value : undefined;
  } catch {
    return undefined;
  }
}
