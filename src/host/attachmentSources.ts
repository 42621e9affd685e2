/**
 * What only VS Code can tell about an attachment, read when the message is sent: the lines of a
 * selection as its editor holds them (unsaved changes included) and the problems (diagnostics) of a
 * file or of the whole workspace, as text. Files and folders are read by the runtime from the disk
 * (src/runtime/attachments/readAttachments.ts). Paths are relative to the first workspace folder
 * ('/'-separated), or absolute outside it.
 */
import * as vscode from 'vscode';
import type { AttachmentRef, LineRange } from '../core/attachments';
import type { AttachmentRequest } from '../runtime/attachments/readAttachments';

/** The workspace folder attachments are relative to (the first), or undefined. */
function rootUri(): vscode.Uri | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri;
}

/** The URI of an attachment's path. */
export function uriOfAttachmentPath(path: string): vscode.Uri {
  const root = rootUri();
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path) || !root ? vscode.Uri.file(path) : vscode.Uri.joinPath(root, ...path.split('/'));
}

/** An attachment's path for a URI: relative to the workspace folder with '/', or the absolute path outside it. */
export function attachmentPathOf(uri: vscode.Uri): string {
  const root = rootUri();
  if (root && uri.scheme === root.scheme) {
    const rel = vscode.workspace.asRelativePath(uri, false);
    if (rel !== uri.fsPath && rel !== uri.path) return rel.replace(/\\/g, '/');
  }
  return uri.fsPath;
}

/** A document's lines `range` (1-based, inclusive, clamped to the document). */
function linesOf(doc: vscode.TextDocument, range: LineRange): string {
  const last = Math.min(range.endLine, doc.lineCount) - 1;
  const first = Math.min(range.startLine - 1, last);
  return doc.getText(new vscode.Range(first, 0, last, doc.lineAt(last).text.length));
}

const SEVERITY = ['error', 'warning', 'info', 'hint'] as const;

/** Diagnostics as lines `path:line:column severity: message (source)`, or a line saying there are none. */
export function problemsText(entries: readonly (readonly [vscode.Uri, readonly vscode.Diagnostic[]])[]): string {
  const lines: string[] = [];
  for (const [uri, diagnostics] of entries) {
    for (const d of diagnostics) {
      const source = d.source ? ` (${d.source})` : '';
      lines.push(`${attachmentPathOf(uri)}:${d.range.start.line + 1}:${d.range.start.character + 1} ${SEVERITY[d.severity]}: ${d.message}${source}`);
    }
  }
  return lines.length ? lines.join('\n') : 'No problems reported.';
}

/** One reference with the text the host reads for it (selections and problems); others as they are. */
async function requestOf(ref: AttachmentRef): Promise<AttachmentRequest> {
  if (ref.kind === 'problems') {
    const text = ref.path ? problemsText([[uriOfAttachmentPath(ref.path), vscode.languages.getDiagnostics(uriOfAttachmentPath(ref.path))]]) : problemsText(vscode.languages.getDiagnostics());
    return { ...ref, text };
  }
  if (ref.kind !== 'selection') return ref;
  const uri = uriOfAttachmentPath(ref.path);
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString()) ?? (await vscode.workspace.openTextDocument(uri));
  return { ...ref, text: ref.range ? linesOf(doc, ref.range) : doc.getText() };
}

/**
 * The requests the runtime reads (see module docstring). A selection whose file cannot be opened
 * passes without text, as an empty attachment would mislead: it is sent as a file's lines instead.
 */
export async function attachmentRequests(refs: readonly AttachmentRef[]): Promise<AttachmentRequest[]> {
  const out: AttachmentRequest[] = [];
  for (const ref of refs) {
    try {
      out.push(await requestOf(ref));
    } catch {
      out.push(ref.kind === 'selection' ? { kind: 'file', path: ref.path, ...(ref.range ? { range: ref.range } : {}) } : ref);
    }
  }
  return out;
}
