/**
 * Opens a file a chat links to (a path in a reply, a tool's header, a diff), at its line when known,
 * for the view's `openFile`: only inside the workspace folders (`resolveInWorkspace`, the path as
 * written) and only where the file really is inside one (`realPathInside`, symlinks followed), so a
 * link can never open `/etc/passwd` or a symlink leading out. A refusal is a sentence for the chat's
 * error bar; nothing is opened silently.
 */
import * as vscode from 'vscode';
import type { FileReference } from '../core/fileLinks';
import { resolveInWorkspace } from '../core/workspacePaths';
import { realPathInside } from './realPaths';

/** Why a file was not opened (`outside_workspace`: outside the workspace; `not_found`: no such file), or null when it was. */
export type OpenFileRefusal = { readonly reason: 'outside_workspace' | 'not_found'; readonly message: string } | null;

/**
 * Opens `ref` in an editor (a folder is revealed in the Explorer), its line selected and shown;
 * `roots`: the workspace folders (absolute paths). Never throws.
 */
export async function openWorkspaceFile(ref: FileReference, roots: readonly string[]): Promise<OpenFileRefusal> {
  const resolved = resolveInWorkspace(roots, ref.path);
  if (!resolved.ok) return { reason: 'outside_workspace', message: resolved.message };
  const real = await realPathInside(roots, resolved.absolute, ref.path);
  if (!real.ok) return { reason: real.reason, message: real.message };
  const uri = vscode.Uri.file(resolved.absolute);
  try {
    if (real.directory) {
      await vscode.commands.executeCommand('revealInExplorer', uri);
      return null;
    }
    const position = new vscode.Position(Math.max(0, (ref.line ?? 1) - 1), Math.max(0, (ref.column ?? 1) - 1));
    const at = new vscode.Range(position, position);
    const editor = await vscode.window.showTextDocument(uri, { preview: true, ...(ref.line ? { selection: at } : {}) });
    if (ref.line) editor.revealRange(at, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
    return null;
  } catch (error) {
    return { reason: 'not_found', message: `${ref.path} could not be opened: ${(error as Error).message}` };
  }
}
