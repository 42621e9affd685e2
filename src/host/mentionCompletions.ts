/**
 * The `@` list's items, answered by the host (the view never walks the disk): the open editors
 * first, then the workspace's files and folders, fuzzy-filtered (`src/core/fuzzyMatch.ts`), and
 * `@problems` (the active file's diagnostics, or the workspace's without one) and `@selection` (the
 * active editor's selected lines) when their word matches: right after the open editors, or first
 * when the query starts their word (`@prob`).
 *
 * The workspace's paths come from VS Code's own file search (`workspace.findFiles`, its default
 * excludes, at most MAX_INDEXED_FILES, cancellable) once, then are kept (`WorkspaceFiles`) and
 * filtered in memory per keystroke; a file created or deleted marks them stale, and the next `@`
 * reads them again while the stale list answers meanwhile.
 */
import * as vscode from 'vscode';
import { attachmentLabel, type AttachmentRef } from '../core/attachments';
import { candidateOf, candidatesOf, fuzzyRank, type FuzzyCandidate } from '../core/fuzzyMatch';
import { orderMentionItems } from '../core/mentionOrder';
import { MAX_COMPLETION_ITEMS, type CompletionItem } from '../protocol/messages';
import { attachmentPathOf } from './attachmentSources';

/** Most files the index reads from VS Code's file search. */
export const MAX_INDEXED_FILES = 200_000;

/** The workspace's files and folders as match candidates (see module docstring). */
export class WorkspaceFiles implements vscode.Disposable {
  private list: Promise<FuzzyCandidate[]> | undefined;
  private stale = false;
  private readonly watcher: vscode.FileSystemWatcher;
  /**
   * The reads' own cancellation, only at dispose: never a keystroke's. A read cancelled by the next
   * keystroke's request resolved with no files, which was then kept (in code-server the list stayed
   * empty: "0 files indexed in 71 ms").
   */
  private readonly reads = new vscode.CancellationTokenSource();

  constructor(private readonly log: (line: string) => void) {
    this.watcher = vscode.workspace.createFileSystemWatcher('**/*', false, true, false);
    this.watcher.onDidCreate(() => (this.stale = true));
    this.watcher.onDidDelete(() => (this.stale = true));
  }

  /**
   * The candidates: folders first, then files (read once, again when stale: see module docstring).
   * A request whose `token` is cancelled stops waiting (answering none); the read goes on for the next.
   */
  candidates(token: vscode.CancellationToken): Promise<FuzzyCandidate[]> {
    if (!this.list) {
      this.list = this.read();
      this.list.catch(() => (this.list = undefined));
    } else if (this.stale) {
      this.stale = false;
      const next = this.read();
      next.then((l) => (this.list = Promise.resolve(l)), () => undefined);
    }
    const list = this.list;
    return new Promise((resolve, reject) => {
      const off = token.onCancellationRequested(() => resolve([]));
      list.then(resolve, reject).finally(() => off.dispose());
    });
  }

  private async read(): Promise<FuzzyCandidate[]> {
    const started = Date.now();
    const uris = await vscode.workspace.findFiles('**/*', undefined, MAX_INDEXED_FILES, this.reads.token);
    const files = uris.map(attachmentPathOf).sort();
    this.log(`[mentions] ${files.length} files indexed in ${Date.now() - started} ms`);
    return candidatesOf(files);
  }

  dispose(): void {
    this.reads.cancel();
    this.reads.dispose();
    this.watcher.dispose();
  }
}

/** An item for a match of a path. */
function pathItem(c: FuzzyCandidate, matches: readonly number[], where: string): CompletionItem {
  const folder = c.path.slice(0, Math.max(0, c.nameStart - 1));
  return { ref: { kind: c.folder ? 'folder' : 'file', path: c.path }, label: c.path.slice(c.nameStart), detail: [folder, where].filter(Boolean).join(' · '), matches };
}

/** The paths of the text editors open in tabs, most recently active group first. */
function openEditorPaths(): string[] {
  const paths: string[] = [];
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) if (tab.input instanceof vscode.TabInputText && tab.input.uri.scheme === 'file') paths.push(attachmentPathOf(tab.input.uri));
  }
  return [...new Set(paths)];
}

/** `@problems` and `@selection` as the active editor has them (selection only when one is made). */
function specialItems(): { word: string; ref: AttachmentRef; detail: string }[] {
  const editor = vscode.window.activeTextEditor;
  const path = editor && editor.document.uri.scheme === 'file' ? attachmentPathOf(editor.document.uri) : '';
  const items = [{ word: 'problems', ref: { kind: 'problems', path } as AttachmentRef, detail: path ? `the problems of ${path}` : 'the problems of the workspace' }];
  if (editor && path && !editor.selection.isEmpty) {
    const s = editor.selection;
    const endLine = s.end.character === 0 && s.end.line > s.start.line ? s.end.line : s.end.line + 1;
    const ref: AttachmentRef = { kind: 'selection', path, range: { startLine: s.start.line + 1, endLine } };
    items.push({ word: 'selection', ref, detail: attachmentLabel(ref) });
  }
  return items;
}

/** The `@` list for `query` (see module docstring), at most MAX_COMPLETION_ITEMS. */
export async function mentionItems(query: string, files: WorkspaceFiles, token: vscode.CancellationToken): Promise<CompletionItem[]> {
  const specials = specialItems().flatMap((s) => fuzzyRank(query, [candidateOf(s.word)], 1).map((m) => ({ ref: s.ref, label: s.word, detail: s.detail, matches: m.matches })));
  const open = openEditorPaths().map((p) => candidateOf(p));
  const openItems = fuzzyRank(query, open, MAX_COMPLETION_ITEMS).map((m) => pathItem(m.candidate, m.matches, 'open editor'));
  const openSet = new Set(open.map((c) => c.path));
  const all = (await files.candidates(token)).filter((c) => !openSet.has(c.path));
  const fileItems = fuzzyRank(query, all, MAX_COMPLETION_ITEMS).map((m) => pathItem(m.candidate, m.matches, ''));
  return orderMentionItems(query, specials, openItems, fileItems).slice(0, MAX_COMPLETION_ITEMS);
}

/**
 * The attachments of dropped URIs (see `attachUris`): a folder as a folder, anything else as a
 * file; URIs that are not files VS Code can stat are left out. A remote window's workbench names
 * the files of its Explorer `vscode-remote://<authority>/<path>`; the extension host runs on that
 * remote, where the same file is `file:///<path>` (taken as it was, its path stayed absolute and its
 * chip read `/tmp/…/workspace/package.json`: found in code-server).
 */
export async function refsOfUris(uris: readonly string[]): Promise<AttachmentRef[]> {
  const refs: AttachmentRef[] = [];
  for (const text of uris) {
    try {
      const dropped = vscode.Uri.parse(text.trim(), true);
      const uri = dropped.scheme === 'vscode-remote' ? vscode.Uri.file(dropped.path) : dropped;
      const stat = await vscode.workspace.fs.stat(uri);
      refs.push({ kind: stat.type & vscode.FileType.Directory ? 'folder' : 'file', path: attachmentPathOf(uri) });
    } catch {
      // not a file or folder here (a URL, a deleted file): nothing to attach
    }
  }
  return refs;
}
