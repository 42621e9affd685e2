/**
 * **Agent Chats: Search Chats…**: a quick pick that searches every transcript as the user types
 * (the journal's full-text index, `ChatRuntime.searchChats`), one result per turn, newest first: the chat's
 * title, what matched (prompt, reply, command output…) and when, and a snippet around the match.
 * Enter opens the chat at that turn.
 *
 * Searches run one at a time: a query typed while one runs waits and only the latest waiting one
 * runs, so a fast typist never queues a search per key. Results are shown as they are (`alwaysShow`):
 * the index matched them, VS Code's own fuzzy filter must not hide them; it still highlights the
 * typed words it finds.
 *
 * Enter while a search runs and no result is there to take (the first search of a large journal) is
 * kept, not taken as a dismissal: when the latest query's results arrive, the first one opens; none
 * found leaves the search open, saying so. Escape before then opens nothing.
 */
import * as vscode from 'vscode';
import { lastActiveWords } from '../core/chatList';
import type { ChatRuntime, SearchRefusal, SearchResult } from '../runtime/chatRuntime';
import type { Result } from '../core/result';

/** What each kind of match is called in a result. */
const KIND_WORDS: Record<SearchResult['kind'], string> = {
  prompt: 'prompt', reply: 'reply', output: 'command output', tool: 'tool call', notice: 'notice',
};

interface ResultItem extends vscode.QuickPickItem {
  readonly result: SearchResult;
}

/**
 * Shows the search; resolves the result the user picked (undefined when dismissed). `workspace`:
 * search only that folder's chats, unset: every chat.
 */
export function searchChats(runtime: ChatRuntime, options: { workspace?: string; initial?: string } = {}): Promise<SearchResult | undefined> {
  const pick = vscode.window.createQuickPick<ResultItem>();
  pick.title = 'Search Chats';
  pick.placeholder = 'Words in prompts, replies or command output';
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  let running = false;
  let waiting: string | undefined;
  // Enter came while a search ran, with no result to take: the latest query's first result opens.
  let enterWaits = false;
  const run = async (query: string): Promise<void> => {
    if (running) {
      waiting = query;
      return;
    }
    running = true;
    pick.busy = true;
    try {
      const found = await runtime.searchChats(query, { limit: 30, ...(options.workspace !== undefined ? { workspace: options.workspace } : {}) });
      if (waiting === undefined) {
        show(pick, query, found);
        if (enterWaits) {
          enterWaits = false;
          const first = pick.items[0];
          if (first) accept(first.result);
        }
      }
    } finally {
      running = false;
      pick.busy = false;
      const next = waiting;
      waiting = undefined;
      if (next !== undefined) void run(next);
    }
  };
  let accept: (result: SearchResult) => void = () => undefined;
  return new Promise((resolve) => {
    let picked: SearchResult | undefined;
    pick.onDidChangeValue((value) => void run(value));
    accept = (result) => {
      picked = result;
      pick.hide();
    };
    pick.onDidAccept(() => {
      const item = pick.selectedItems[0] ?? pick.activeItems[0];
      if (item) accept(item.result);
      else if (running) enterWaits = true;
      else pick.hide();
    });
    pick.onDidHide(() => {
      enterWaits = false;
      pick.dispose();
      resolve(picked);
    });
    pick.show();
    if (options.initial) {
      pick.value = options.initial;
      void run(options.initial);
    }
  });
}

function show(pick: vscode.QuickPick<ResultItem>, query: string, result: Result<SearchResult[], SearchRefusal>): void {
  if (!result.ok) {
    pick.items = [];
    pick.placeholder = query.trim() ? result.message : 'Words in prompts, replies or command output';
    return;
  }
  const now = Date.now();
  pick.items = result.value.map((r) => ({
    label: r.title,
    description: `${KIND_WORDS[r.kind]} · ${lastActiveWords(r.createdAt, now)}`,
    detail: r.snippet,
    alwaysShow: true,
    result: r,
  }));
  if (result.value.length === 0) pick.placeholder = `Nothing found for “${query.trim()}”`;
}
