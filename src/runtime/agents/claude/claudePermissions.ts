/**
 * Claude Code's permission prompts answered with sandbox boundary requests: `canUseTool` starts the
 * tool's invocation, asks the runtime (`ctx.requestBoundary`, see claudeTools.ts for kinds,
 * subjects and scope keys) and answers `allow` with the input unchanged, or `deny`. On Stop the
 * answer is deny + interrupt; a request Claude Code withdraws (its own abort signal) is denied.
 */
import type { CanUseTool, PermissionResult } from '@anthropic-ai/claude-agent-sdk';
import type { AgentTurnContext } from '../../agent';
import { ABORTED, unlessAborted } from '../abortRace';
import { CLAUDE_DENY_MESSAGE } from './claudeConfig';
import type { ClaudeInvocations } from './claudeInvocations';
import { describeToolRequest } from './claudeTools';

/**
 * The `canUseTool` callback of one attempt. Never throws: a request that cannot be shown to the
 * user is denied (and logged).
 */
export function claudeCanUseTool(ctx: AgentTurnContext, cwd: string, invocations: ClaudeInvocations, log: (line: string) => void): CanUseTool {
  return async (toolName, toolInput, options): Promise<PermissionResult> => {
    const stopped: PermissionResult = { behavior: 'deny', message: 'The user stopped the run.', interrupt: true };
    if (ctx.signal.aborted) return stopped;
    try {
      const view = describeToolRequest(toolName, toolInput, cwd, options);
      const handle = await invocations.ensure(options.toolUseID, toolName, toolInput);
      const decision = ctx.requestBoundary({
        ...(handle ? { invocationId: handle.id } : {}),
        kind: view.kind, subject: view.subject, why: view.why, scopeKey: view.scopeKey,
        ...(view.detail ? { detail: view.detail } : {}),
      });
      const outcome = await unlessAborted(options.signal, decision);
      if (outcome === ABORTED) {
        invocations.markDenied(options.toolUseID);
        return { behavior: 'deny', message: 'The permission request was withdrawn.' };
      }
      if (outcome.approved) {
        // Checkpoints: the file as it is before the tool runs, journaled before Claude Code hears the answer.
        await invocations.allowed(options.toolUseID, toolName, toolInput);
        return { behavior: 'allow', updatedInput: toolInput };
      }
      invocations.markDenied(options.toolUseID);
      return ctx.signal.aborted ? stopped : { behavior: 'deny', message: CLAUDE_DENY_MESSAGE };
    } catch (error) {
      log(`[claude] permission request for ${toolName} failed: ${(error as Error).message}`);
      invocations.markDenied(options.toolUseID);
      return { behavior: 'deny', message: 'The permission request could not be shown to the user, so it was denied.' };
    }
  };
}
