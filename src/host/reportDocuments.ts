/**
 * Read-only Markdown documents the extension writes for the user to read (Check Journal's report,
 * and any later report), served by a `TextDocumentContentProvider` on the `agent-chats-report`
 * scheme. Unlike an untitled document, a report cannot be edited by mistake and closing it never
 * asks to save; File > Save As still writes a copy.
 *
 * A report's text lives in memory while its document is open and is dropped when VS Code closes the
 * document. A report tab restored after a window reload has no text left to show: it says so and
 * names the command that makes a fresh one.
 */
import * as vscode from 'vscode';

/** The URI scheme of report documents. */
export const REPORT_SCHEME = 'agent-chats-report';

/** Serves report documents' text (see module docstring). */
class ReportProvider implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();

  /** The text of `uri`, or a sentence saying it is gone (reload) and how to make it again. */
  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? `# ${uri.path.replace(/^\//, '').replace(/\.md$/, '')}\n\nThis report was not kept after the window reloaded. Run the command that made it again (for a journal check: **Agent Chats: Check Journal**).\n`;
  }

  /** Keeps `text` for `uri` until its document closes. */
  set(uri: vscode.Uri, text: string): void {
    this.texts.set(uri.toString(), text);
  }

  /** Forgets `uri`'s text (its document closed). */
  forget(uri: vscode.Uri): void {
    this.texts.delete(uri.toString());
  }
}

const provider = new ReportProvider();
let counter = 0;

/** Registers the report scheme's provider; disposed with `context.subscriptions`. Call once at activation. */
export function registerReportDocuments(context: vscode.ExtensionContext): void {
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, provider),
    vscode.workspace.onDidCloseTextDocument((document) => {
      if (document.uri.scheme === REPORT_SCHEME) provider.forget(document.uri);
    }),
  );
}

/**
 * Opens `markdown` as a read-only Markdown document titled `title` (the editor tab shows
 * `title.md`; a second report of the same title gets its own document). Resolves the document.
 */
export async function showReport(title: string, markdown: string): Promise<vscode.TextDocument> {
  counter += 1;
  // The query keeps two reports of one title apart; the tab shows only the path's last segment.
  const uri = vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/${title.replace(/[\\/]/g, '-')}.md`, query: String(counter) });
  provider.set(uri, markdown);
  const document = await vscode.workspace.openTextDocument(uri);
  const markdownDocument = document.languageId === 'markdown' ? document : await vscode.languages.setTextDocumentLanguage(document, 'markdown');
  await vscode.window.showTextDocument(markdownDocument, { preview: false });
  return markdownDocument;
}
