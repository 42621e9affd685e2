/**
 * The chat quick pick (Open Chat…, and Rename/Delete/Export when no chat tab is active): the Agent
 * Chats view's own list (`ChatListSource`, kept current by runtime notifications), this workspace's
 * chats first, newest first, then the other folders' under a separator.
 *
 * It shows at once: when the view's list is loaded the items are there in the same turn; when not
 * (the view was never shown in this window), the picker shows the newest chats (`firstEntries`, a
 * read of those only, or `firstEntriesNow` when read ahead) and stays busy until the whole list
 * arrives, then shows that. It hands
 * VS Code at most `PICK_LIMIT` chats per filter text (src/core/chatPick.ts): typing narrows every
 * chat, not only those shown, so any chat is found by its title. A chat created, renamed or deleted
 * while the picker is open changes its items.
 *
 * Enter while the list loads and no row is there to take (the picker empty, or nothing of the first
 * page matching what was typed) is kept, not taken as a dismissal: once rows arrive that are
 * sure to be the list's first, the first row (the first match of what is typed by then) is opened.
 * With nothing typed the first page's first row is the whole list's (it holds the newest chats of
 * all and of this workspace); with text typed it waits for the whole list. Rows that match nothing
 * leave the picker open, saying so. Escape before then opens nothing.
 */
import * as vscode from 'vscode';
import { lastActiveWords, type ChatListEntry } from '../core/chatList';
import { PICK_LIMIT, pickRows } from '../core/chatPick';
import { PROVIDERS } from './providers';

/** The chat list the picker shows: the Agent Chats view's (`ChatTree`). */
export interface ChatListSource {
  /** This window's workspace key ('' without a folder): its chats come first. */
  readonly workspace: string;
  /** Whether the list is in memory (then `chatEntries` resolves without reading the journal). */
  readonly listLoaded: boolean;
  /** Every chat, current as of the notifications heard so far; reads the journal the first time. */
  chatEntries(): Promise<readonly ChatListEntry[]>;
  /** The newest `n` chats of all and of this workspace (a first page, read without the whole list). */
  firstEntries(n: number): Promise<readonly ChatListEntry[]>;
  /** That first page if it is in memory and current (read ahead), else undefined. */
  firstEntriesNow?(n: number): readonly ChatListEntry[] | undefined;
  /** Fires when a chat appears, goes or changes. */
  readonly onDidChangeList: vscode.Event<void>;
}

type Item = vscode.QuickPickItem & { readonly id?: string };

/**
 * Shows the picker; resolves the picked chat's session id, or undefined when dismissed. With no
 * chats at all it says so in a notification instead (no empty picker).
 */
export async function pickChat(source: ChatListSource, placeHolder: string): Promise<string | undefined> {
  const picker = vscode.window.createQuickPick<Item>();
  picker.placeholder = placeHolder;
  picker.matchOnDescription = true;
  const now = Date.now();
  const described = new Map<string, string>();
  const describe = (c: ChatListEntry): string => {
    let text = described.get(c.id);
    if (text === undefined) {
      text = `${lastActiveWords(c.updatedAt, now)} · ${PROVIDERS.find((p) => p.id === c.provider)?.label ?? c.provider}`;
      described.set(c.id, text);
    }
    return text;
  };
  let entries: readonly ChatListEntry[] = [];
  /** Fills the items from `entries` and the typed value; returns the first row's chat id. */
  const fill = (): string | undefined => {
    const rows = pickRows(entries, source.workspace, picker.value, describe);
    const item = (c: ChatListEntry): Item => ({ label: c.title, description: describe(c), id: c.id });
    const { mine, others } = rows;
    picker.items = [
      ...(mine.length > 0 && others.length > 0 ? [{ label: 'This workspace', kind: vscode.QuickPickItemKind.Separator }] : []),
      ...mine.map(item),
      ...(others.length > 0 ? [{ label: mine.length > 0 ? 'Other workspaces' : 'All workspaces', kind: vscode.QuickPickItemKind.Separator }] : []),
      ...others.map(item),
    ];
    return (mine[0] ?? others[0])?.id;
  };
  const disposables: vscode.Disposable[] = [picker];
  // Whether the whole list is still loading, and whether Enter came meanwhile with no row to take.
  let loading = false;
  let enterWaits = false;
  let settled = false;
  let take: (id: string | undefined) => void = () => undefined;
  let fail: (error: unknown) => void = () => undefined;
  const picked = new Promise<string | undefined>((resolve, reject) => {
    take = (id) => {
      settled = true;
      resolve(id);
    };
    fail = (error) => {
      settled = true;
      reject(error);
    };
  });
  /** Opens `first` if Enter waits for it and no later rows can come before it (`sure`). */
  const enterTakes = (first: string | undefined, sure: boolean): void => {
    if (!enterWaits || !sure) return;
    enterWaits = false;
    if (first === undefined) return;
    take(first);
    picker.hide();
  };
  /** After the list is there: typing and changes to the chats refill the items. */
  const follow = () =>
    disposables.push(
      picker.onDidChangeValue(fill),
      source.onDidChangeList(() => void source.chatEntries().then((current) => ((entries = current), fill()))),
    );
  try {
    disposables.push(
      picker.onDidAccept(() => {
        const id = picker.selectedItems[0]?.id ?? picker.activeItems[0]?.id;
        if (id === undefined && loading) {
          enterWaits = true;
          return;
        }
        take(id);
        picker.hide();
      }),
      picker.onDidHide(() => {
        enterWaits = false;
        take(undefined);
      }),
    );
    if (source.listLoaded) {
      entries = await source.chatEntries();
      if (entries.length === 0) return noChats();
      fill();
      picker.show();
      follow();
    } else {
      // A first page read ahead is shown with the picker itself, not in a second update after it.
      const ahead = source.firstEntriesNow?.(PICK_LIMIT);
      if (ahead && ahead.length > 0) {
        entries = ahead;
        fill();
      }
      picker.busy = true;
      loading = true;
      picker.show();
      // The first page is asked first: the journal worker answers in call order.
      const firstPage = ahead ? undefined : source.firstEntries(PICK_LIMIT);
      const whole = source.chatEntries();
      let wholeArrived = false;
      void whole.then(() => (wholeArrived = true), () => undefined);
      // Not awaited: a chat picked (or Enter taken) from the first page opens without waiting for the whole list.
      void (async () => {
        const first = await firstPage;
        if (settled) return;
        if (first && !wholeArrived && first.length > 0) {
          entries = first;
          enterTakes(fill(), picker.value.trim() === '');
          if (settled) return;
        }
        try {
          entries = await whole;
        } finally {
          loading = false;
        }
        if (settled) return;
        picker.busy = false;
        if (entries.length === 0) {
          take(noChats());
          picker.hide();
          return;
        }
        enterTakes(fill(), true);
        if (!settled) follow();
      })().catch((error: unknown) => {
        if (settled) return;
        fail(error);
        picker.hide();
      });
    }
    return await picked;
  } finally {
    for (const d of disposables) d.dispose();
  }
}

function noChats(): undefined {
  void vscode.window.showInformationMessage('There are no chats yet. Use "Agent Chats: New Chat" to start one.');
  return undefined;
}
