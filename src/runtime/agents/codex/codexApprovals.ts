/**
 * Codex's approval requests answered with sandbox boundary requests: `item/commandExecution/
 * requestApproval` → kind `command` (scope `codex:command:<program>`) or `network` when Codex asks
 * for a host; `item/fileChange/requestApproval` → kind `file_change` (scope `codex:file_change`,
 * detail = the item's diff). The answer is `accept` or `decline` (`cancel` once the run is
 * stopped), sent once; any other server request is answered with a JSON-RPC error.
 */
import type { AgentTurnContext } from '../../agent';
import { programOf } from '../commandLine';
import type { AppServerClient, ServerRequest } from './appServerClient';
import { displayCommand, unifiedDiff, type CommandApprovalParams, type FileChangeApprovalParams } from './codexItems';
import type { CodexInvocations } from './codexInvocations';

type Decision = 'accept' | 'decline' | 'cancel';

/** Answers the server requests of one run (see module docstring). */
export class CodexApprovals {
  /** @param stopped true once the run is stopped (read at each step). */
  constructor(
    private readonly client: AppServerClient,
    private readonly ctx: AgentTurnContext,
    private readonly invocations: CodexInvocations,
    private readonly cwd: string,
    private readonly stopped: () => boolean,
    private readonly log: (line: string) => void,
  ) {}

  /** Answers one server request; never throws (a failure declines, or cancels after Stop). */
  async answer(request: ServerRequest): Promise<void> {
    let answered = false;
    const answer = (decision: Decision): void => {
      if (answered) return;
      answered = true;
      this.client.respond(request.id, { decision });
    };
    try {
      switch (request.method) {
        case 'item/commandExecution/requestApproval':
          answer(await this.approveCommand(request.params as CommandApprovalParams));
          return;
        case 'item/fileChange/requestApproval':
          answer(await this.approveFileChange(request.params as FileChangeApprovalParams));
          return;
        default:
          this.log(`[codex] unsupported server request ${request.method}; answered with an error`);
          this.client.respondError(request.id, -32601, `Native Agent Chats does not support ${request.method}.`);
          return;
      }
    } catch (error) {
      this.log(`[codex] approval failed: ${(error as Error).message}`);
      answer(this.stopped() ? 'cancel' : 'decline');
    }
  }

  private async approveCommand(params: CommandApprovalParams): Promise<Decision> {
    if (this.stopped()) return 'cancel';
    const command = displayCommand(params.command ?? '');
    const handle = await (this.invocations.get(params.itemId)
      ?? this.invocations.start(params.itemId, 'run', { command: params.command ?? '', cwd: params.cwd ?? this.cwd }, command));
    await this.invocations.drain();
    const network = params.networkApprovalContext;
    const outcome = await this.ctx.requestBoundary({
      ...(handle ? { invocationId: handle.id } : {}),
      ...(network
        ? {
            kind: 'network' as const,
            subject: `${network.protocol}://${network.host}`,
            why: params.reason ?? `Codex asks to reach ${network.host}.`,
            scopeKey: `codex:network:${network.host}`,
          }
        : {
            kind: 'command' as const,
            subject: command,
            why: params.reason ?? 'Codex asks to run this command outside its sandbox.',
            scopeKey: `codex:command:${programOf(command, 'command')}`,
          }),
    });
    if (this.stopped() || this.ctx.signal.aborted) return 'cancel';
    return outcome.approved ? 'accept' : 'decline';
  }

  private async approveFileChange(params: FileChangeApprovalParams): Promise<Decision> {
    if (this.stopped()) return 'cancel';
    const changes = this.invocations.changesOf(params.itemId);
    const diff = unifiedDiff(changes, this.cwd);
    const subject = this.invocations.filesSubject(changes);
    const handle = await (this.invocations.get(params.itemId)
      ?? this.invocations.start(params.itemId, 'edit', { files: changes.map((c) => c.path) }, subject, diff));
    await this.invocations.drain();
    const outcome = await this.ctx.requestBoundary({
      ...(handle ? { invocationId: handle.id } : {}),
      kind: 'file_change',
      subject: subject || (params.grantRoot ? `files under ${params.grantRoot}` : 'files'),
      why: params.reason ?? 'Codex asks to change these files.',
      scopeKey: 'codex:file_change',
      ...(diff ? { detail: diff } : {}),
    });
    if (this.stopped() || this.ctx.signal.aborted) return 'cancel';
    // Checkpoints: the files as they are before the change, journaled before Codex hears the answer.
    if (outcome.approved) await this.invocations.beforeChange(params.itemId);
    return outcome.approved ? 'accept' : 'decline';
  }
}
