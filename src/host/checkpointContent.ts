/**
 * The journal's checkpoint content as read-only documents, for VS Code's own diff editor: a
 * `TextDocumentContentProvider` of the scheme `nativeAgentChats-checkpoint`, whose URIs name a
 * file's path (the document's name, so the editor picks its language) and a content hash in the
 * query (`hash=<sha256>`, or `absent` for a file that did not exist: an empty document).
 * `openFileDiff` opens `vscode.diff` between a turn's before and after images of a file.
 */
import * as vscode from 'vscode';
import type { FileImage } from '../core/checkpoints';
import type { ChatRuntime } from '../runtime/chatRuntime';

/** The URI scheme of checkpoint documents. */
export const CHECKPOINT_SCHEME = 'nativeAgentChats-checkpoint';

/** The URI of `image` of the file at `path` (a checkpoint path: workspace-relative or absolute). */
export function checkpointUri(path: string, image: FileImage | null, side: 'before' | 'after'): vscode.Uri {
  const query = image && image.exists && image.hash ? `hash=${image.hash}` : image ? 'absent' : 'unknown';
  return vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${side}/${path.replace(/^\/+/, '')}`, query });
}

/**
 * Serves checkpoint documents from the journal, through the runtime (`ChatRuntime.files`). Text is decoded as UTF-8 (bytes that are not UTF-8
 * show as replacement characters: the diff is for reading; undo restores the exact bytes).
 */
export class CheckpointContentProvider implements vscode.TextDocumentContentProvider {
  /** @param ready resolves once the journal is open (a restored diff editor may ask before). */
  constructor(private readonly ready: Promise<ChatRuntime>) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const query = new URLSearchParams(uri.query);
    const hash = query.get('hash');
    if (!hash) return uri.query === 'unknown' ? '(The content after this change was not recorded: the write was cut short.)\n' : '';
    const runtime = await this.ready;
    const bytes = await runtime.files.content(hash);
    if (!bytes) return '(This content is not in the journal: the file was over the 5 MB checkpoint limit.)\n';
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/**
 * Opens VS Code's diff editor between the file's content before `turnId` and after it. Resolves
 * false when the turn did not change that file.
 */
export async function openFileDiff(runtime: ChatRuntime, sessionId: string, turnId: string, path: string): Promise<boolean> {
  const file = (await runtime.files.filesOfTurn(sessionId, turnId)).find((f) => f.path === path);
  if (!file) return false;
  const name = path.split('/').pop() ?? path;
  const title = `${name} (${file.kind === 'created' ? 'created' : file.kind === 'deleted' ? 'deleted' : 'before ↔ after'} by the agent)`;
  await vscode.commands.executeCommand('vscode.diff', checkpointUri(path, file.before, 'before'), checkpointUri(path, file.after, 'after'), title, { preview: true });
  return true;
}
