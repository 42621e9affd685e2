/**
 * How one Claude Code `query()` ended, as the turn's outcome: a stopped run is completed; a session
 * the CLI cannot find is reported so the agent can start it again; a successful result completes
 * the turn; a CLI that never started, a model server that cannot be reached, or failed
 * authentication is `agent_unavailable` with what to fix; anything else `agent_error` with Claude
 * Code's text.
 */
import type { SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import type { AgentTurnOutcome } from '../../agent';
import { CLAUDE_BASE_URL_SETTING, CLAUDE_EXECUTABLE_SETTING, CLAUDE_INSTALL_HINT, type ClaudeAgentConfig } from './claudeConfig';
import type { ClaudeStreamFacts } from './claudeStream';

/** The end of one attempt. */
export interface AttemptResult {
  readonly outcome: AgentTurnOutcome;
  /** The CLI found no session to resume. */
  readonly sessionMissing: boolean;
}

/** What an attempt knows once the query's iteration ended. */
export interface AttemptEnd {
  readonly aborted: boolean;
  readonly facts: ClaudeStreamFacts;
  /** What the iteration threw (it does after an HTTP error), if anything. */
  readonly thrown: unknown;
  /** The last lines Claude Code wrote to stderr. */
  readonly stderrTail: readonly string[];
  /** The CLI's path, for messages. */
  readonly executable: string;
}

/** The attempt's result (see module docstring). */
export function attemptResult(end: AttemptEnd, config: Pick<ClaudeAgentConfig, 'baseUrl'>): AttemptResult {
  const { facts, thrown } = end;
  if (end.aborted) return { outcome: { status: 'completed' }, sessionMissing: false };
  const errorText = resultErrorText(facts.result) ?? (thrown !== undefined ? (thrown as Error).message ?? String(thrown) : undefined);
  if (errorText !== undefined && /No conversation found with session ID/i.test(errorText)) {
    return { outcome: { status: 'failed', errorClass: 'agent_error', message: errorText }, sessionMissing: true };
  }
  if (facts.result && facts.result.subtype === 'success' && !facts.result.is_error) return { outcome: { status: 'completed' }, sessionMissing: false };
  if (!facts.sawInit && !facts.result && thrown !== undefined) {
    const stderr = end.stderrTail.length ? ` (${end.stderrTail.slice(-3).join(' ')})` : '';
    return {
      outcome: unavailable(
        `Claude Code (${end.executable}) could not be started: ${(thrown as Error).message ?? String(thrown)}${stderr}. ` +
          `Check ${CLAUDE_EXECUTABLE_SETTING}, or install Claude Code (${CLAUDE_INSTALL_HINT}).`,
      ),
      sessionMissing: false,
    };
  }
  const text = facts.apiErrorText ?? errorText ?? 'Claude Code ended without a result.';
  return { outcome: classifyFailure(text, facts.result, config, facts.apiErrorCode), sessionMissing: false };
}

/** A failed turn with error class `agent_unavailable` (something to install or configure). */
export function unavailable(message: string): AgentTurnOutcome {
  return { status: 'failed', errorClass: 'agent_unavailable', message };
}

/** The error text of an unsuccessful result message, or undefined for a success. */
function resultErrorText(result: SDKResultMessage | undefined): string | undefined {
  if (!result) return undefined;
  if (result.subtype === 'success') return result.is_error ? result.result || 'Claude Code reported an error.' : undefined;
  return result.errors?.length ? result.errors.join('; ') : `Claude Code ended with ${result.subtype}.`;
}

/**
 * A failed run as the user should read it: an unreachable model server or failed authentication is
 * `agent_unavailable` (something to configure), anything else `agent_error` with Claude Code's text.
 */
export function classifyFailure(
  text: string,
  result: SDKResultMessage | undefined,
  config: Pick<ClaudeAgentConfig, 'baseUrl'>,
  /** The `error` code of Claude Code's synthetic assistant message, e.g. `authentication_failed`. */
  errorCode?: string,
): AgentTurnOutcome {
  const status = result && result.subtype === 'success' ? result.api_error_status : undefined;
  if (/ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|Connection refused|Unable to connect|fetch failed/i.test(text)) {
    const where = config.baseUrl?.trim() ? ` at ${config.baseUrl.trim()}` : '';
    return unavailable(`Claude Code could not reach the model server${where}: ${text}. Check the network, or the base URL (${CLAUDE_BASE_URL_SETTING}).`);
  }
  if (errorCode === 'authentication_failed' || status === 401 || status === 403 || /authenticat|invalid api key|x-api-key|\/login/i.test(text)) {
    return unavailable(`Claude Code could not authenticate: ${text}. Set an Anthropic API key for Native Agent Chats, or run \`claude\` in a terminal and log in.`);
  }
  return { status: 'failed', errorClass: 'agent_error', message: `Claude Code reported an error: ${text}` };
}
