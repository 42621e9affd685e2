/**
 * The VS Code Language Model API provider (`vscode.lm`): any chat model another extension offers
 * (GitHub Copilot, a local-model extension) drives the chat, and its tool calls run in this
 * product's own tool runtime under the same sandbox policy as the local agent.
 *
 * Lives in src/host because it needs the `vscode` module; the loop mirrors the OpenAI-compatible
 * agent: send the conversation with the product tools, stream text, run tool calls, send the
 * results back (`LanguageModelToolResultPart`), until the model answers without tool calls.
 * API shapes from the VS Code Language Model API (`vscode.lm.selectChatModels`, `sendRequest`).
 *
 * Delivery: the prompt is acknowledged (`ctx.promptDelivered`) when the first `sendRequest` resolved,
 * the earliest answer the API gives: the model's provider has the request then (no consent or no
 * such model rejects it instead). An error the provider raises on it comes later, through the
 * stream: the prompt was delivered, and the turn fails (`agent_error`).
 */
import { promptWithAttachments } from '../core/attachments';
import * as vscode from 'vscode';
import type { Agent, AgentTurnContext, AgentTurnOutcome, AgentTurnRequest } from '../runtime/agent';
import { withFileNote } from '../runtime/agent';
import { PRODUCT_TOOLS, decodeToolCall, toolResultText } from '../runtime/agents/productTools';
import { acknowledgeOnce } from '../runtime/agents/promptAcknowledgement';

/** Which model to use; empty fields match any model. */
export interface VscodeLmSelection {
  readonly vendor?: string;
  readonly family?: string;
  readonly id?: string;
}

/** Most model round trips in one turn. */
export const MAX_LM_ROUNDS = 25;

/** The agent (see module docstring). `selection` is read at every turn (settings may change). */
export class VscodeLmAgent implements Agent {
  readonly provider = 'vscode-lm' as const;
  readonly label = 'VS Code language model';

  constructor(private readonly selection: () => VscodeLmSelection) {}

  async runTurn(request: AgentTurnRequest, ctx: AgentTurnContext): Promise<AgentTurnOutcome> {
    const wanted = this.selection();
    const selector: vscode.LanguageModelChatSelector = {
      ...(wanted.vendor ? { vendor: wanted.vendor } : {}),
      ...(wanted.family ? { family: wanted.family } : {}),
      // A model picked for the chat (its id, from `selectChatModels`) is that model, whatever the settings say.
      ...(request.model ? { id: request.model } : wanted.id ? { id: wanted.id } : {}),
    };
    let models: vscode.LanguageModelChat[];
    try {
      models = await vscode.lm.selectChatModels(selector);
    } catch (error) {
      return { status: 'failed', errorClass: 'agent_unavailable', message: `VS Code could not list language models: ${(error as Error).message}` };
    }
    const model = models[0];
    if (!model) {
      const which = Object.entries(selector).map(([k, v]) => `${k} "${v}"`).join(', ') || 'any';
      return {
        status: 'failed',
        errorClass: 'agent_unavailable',
        message: `No VS Code language model matches (${which}). Install an extension that provides one (for example GitHub Copilot Chat), or change the settings nativeAgentChats.vscodeLm.vendor / .family.`,
      };
    }
    const messages: vscode.LanguageModelChatMessage[] = request.history.map((h) =>
      h.role === 'user' ? vscode.LanguageModelChatMessage.User(h.text) : vscode.LanguageModelChatMessage.Assistant(h.text),
    );
    messages.push(
      vscode.LanguageModelChatMessage.User(
        promptWithAttachments(
          withFileNote(request, request.origin === 'continue'
            ? `Your previous reply to "${request.prompt}" was interrupted by a VS Code restart. Continue where you left off.`
            : request.prompt),
          request.attachments ?? [],
        ),
      ),
    );
    const tools: vscode.LanguageModelChatTool[] = PRODUCT_TOOLS.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters }));
    const cancel = new vscode.CancellationTokenSource();
    const onAbort = () => cancel.cancel();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    const delivered = acknowledgeOnce(ctx);
    try {
      for (let round = 0; round < MAX_LM_ROUNDS; round++) {
        const response = await model.sendRequest(messages, { tools, justification: 'Native Agent Chats uses the model you chose for this chat.' }, cancel.token);
        delivered();
        const calls: vscode.LanguageModelToolCallPart[] = [];
        const said: vscode.LanguageModelTextPart[] = [];
        for await (const part of response.stream) {
          if (ctx.signal.aborted) return { status: 'completed' };
          if (part instanceof vscode.LanguageModelTextPart) {
            said.push(part);
            ctx.text(part.value);
          } else if (part instanceof vscode.LanguageModelToolCallPart) {
            calls.push(part);
          }
        }
        if (calls.length === 0) return { status: 'completed' };
        messages.push(vscode.LanguageModelChatMessage.Assistant([...said, ...calls]));
        const results: vscode.LanguageModelToolResultPart[] = [];
        for (const call of calls) {
          const decoded = decodeToolCall(call.name, call.input);
          const text = decoded.ok ? toolResultText(await ctx.tools.run(decoded.call)) : decoded.message;
          results.push(new vscode.LanguageModelToolResultPart(call.callId, [new vscode.LanguageModelTextPart(text)]));
          if (ctx.signal.aborted) return { status: 'completed' };
        }
        messages.push(vscode.LanguageModelChatMessage.User(results));
      }
      ctx.text(`\n\n(Stopped after ${MAX_LM_ROUNDS} tool rounds in one reply.)`);
      return { status: 'completed' };
    } catch (error) {
      if (ctx.signal.aborted) return { status: 'completed' };
      if (error instanceof vscode.LanguageModelError) {
        const unavailable = error.code === vscode.LanguageModelError.NoPermissions.name || error.code === vscode.LanguageModelError.NotFound.name;
        return { status: 'failed', errorClass: unavailable ? 'agent_unavailable' : 'agent_error', message: `The language model refused the request (${error.code}): ${error.message}` };
      }
      return { status: 'failed', errorClass: 'agent_error', message: `The language model failed: ${(error as Error).message}` };
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      cancel.dispose();
    }
  }
}
