/**
 * `UndrawnTabSearch`: finds this window's tab of a chat among the tabs VS Code restored but has not
 * drawn yet, by showing them (unrestoredTabs.ts) and reading what each turns out to be.
 *
 * VS Code hands a background tab to the serializer only when the tab is first shown, and the tab API
 * tells only its label; so the search shows the likely tabs one by one and waits, for each, for what
 * drawing it brought: the panel handed to the serializer (its own identity names its chat:
 * tabIdentity.ts) or a panel of this window that stood in it already. `ChatPanels` tells it of both
 * (`tabShown`).
 */
import * as vscode from 'vscode';
import type { SessionRecord } from '../core/events';
import { Sequencer } from '../core/sequencer';
import type { ChatPanel } from './chatPanel';
import { isChatTab, showTab, unrestoredChatTabs } from './unrestoredTabs';

/** A panel VS Code handed to the serializer: the chat it names, and its adoption (undefined: none). */
export interface Restoring {
  readonly panel: vscode.WebviewPanel;
  readonly sessionId: string | undefined;
  readonly adopted: Promise<ChatPanel | undefined>;
}

/**
 * What showing a chat tab brought: the panel VS Code handed to the serializer as it drew the tab, or
 * a panel of this window that stood in the tab already (drawn before, hidden).
 */
export type TabShown = { readonly restored: Restoring } | { readonly drawn: ChatPanel };

/**
 * How long (ms) the search waits for VS Code to hand over an undrawn tab it showed; VS Code hands
 * it over as it draws it, in well under a second here unless the machine is loaded.
 */
export const SHOW_TAB_WAIT_MS = 5000;

/** What the search needs from the window. */
export interface UndrawnTabDeps {
  /** This window's chat panels, adopted or being restored. */
  panels(): vscode.WebviewPanel[];
  /** The title of every chat in the journal. */
  titles(): Promise<string[]>;
  log(line: string): void;
}

/** See module docstring. */
export class UndrawnTabSearch {
  /** Waiting searches, told of each tab handed over or shown. */
  private readonly listeners = new Set<(shown: TabShown) => void>();

  constructor(private readonly deps: UndrawnTabDeps) {}

  /** A tab was handed to the serializer, or an adopted panel's tab was shown. */
  tabShown(shown: TabShown): void {
    for (const listener of [...this.listeners]) listener(shown);
  }

  /**
   * Shows, one by one, the layout's undrawn chat tabs labelled with the chat's title until one turns
   * out to be the chat's (VS Code hands it over and its own identity says so); resolves that panel,
   * or undefined when none is (the label is only a hint of which tab to try: a tab of another chat of
   * that title restores as itself, and which of two same-titled tabs a drawn panel stands in the tab
   * API does not say, so a tab tried may turn out to be a drawn panel's: each try rules one out);
   * then, the same way, those labelled with a title no chat has now (renamed while undrawn).
   * One search at a time in a window: a tab shown by another search before VS Code drew this one's
   * would hide it, and VS Code would never hand it over.
   */
  show(session: SessionRecord): Promise<ChatPanel | undefined> {
    return this.tabSearches.run(() => this.searchUndrawnTabs(session));
  }

  /** Searches for undrawn tabs in turn (`show`). */
  private readonly tabSearches = new Sequencer();

  private async searchUndrawnTabs(session: SessionRecord): Promise<ChatPanel | undefined> {
    const found = await this.showUndrawnTabOf(session, (t) => t.label === session.title);
    if (found || unrestoredChatTabs(this.deps.panels()).length === 0) return found;
    // A tab keeps the title its chat had when the layout was saved: a chat renamed while its tab
    // was undrawn is behind a label no chat has now. Only such tabs are tried next (each, once
    // drawn, takes its chat's title), never every undrawn tab of the window.
    const titles = new Set(await this.deps.titles());
    return this.showUndrawnTabOf(session, (t) => !titles.has(t.label));
  }

  /** `show` over the undrawn chat tabs `labelled` accepts. */
  private async showUndrawnTabOf(session: SessionRecord, labelled: (tab: vscode.Tab) => boolean): Promise<ChatPanel | undefined> {
    const candidates = () => unrestoredChatTabs(this.deps.panels()).filter(labelled);
    const tabsOfTitle = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => isChatTab(t) && labelled(t)).length;
    for (let tries = tabsOfTitle; tries > 0; tries--) {
      const tab = candidates()[0];
      if (!tab) return undefined;
      // What the tab shown turns out to be (or any tab handed over naming the chat): another tab
      // handed over meanwhile (a group's visible tab restored as the window starts) is not the answer.
      const column = tab.group.viewColumn;
      const standsIn = (panel: vscode.WebviewPanel) => panel.viewColumn === column && panel.title === tab.label;
      const shown = this.nextTabShown(SHOW_TAB_WAIT_MS, (s) => ('drawn' in s ? standsIn(s.drawn.panel) : s.restored.sessionId === session.id || standsIn(s.restored.panel)));
      if (!(await showTab(tab))) {
        shown.cancel();
        return undefined;
      }
      const answer = await shown.promise;
      if (!answer) {
        this.deps.log(`[tabs] the tab "${tab.label}" was shown but VS Code did not hand it over within ${SHOW_TAB_WAIT_MS} ms: opening another`);
        return undefined;
      }
      if ('drawn' in answer) {
        // Another chat's tab of the title, drawn before: it now stands visible, no candidate any more.
        if (answer.drawn.sessionId === session.id) return answer.drawn;
        continue;
      }
      if (answer.restored.sessionId !== session.id) continue;
      const chat = await answer.restored.adopted;
      if (chat?.sessionId === session.id) return chat;
    }
    return undefined;
  }

  /**
   * Resolves with the next tab shown (`tabShown`) that `wanted` accepts, or undefined after `ms`;
   * `cancel` resolves it with undefined at once.
   */
  private nextTabShown(ms: number, wanted: (shown: TabShown) => boolean): { promise: Promise<TabShown | undefined>; cancel(): void } {
    let cancel = (): void => undefined;
    const promise = new Promise<TabShown | undefined>((resolve) => {
      const done = (shown: TabShown | undefined) => {
        if (shown && !wanted(shown)) return;
        clearTimeout(timer);
        this.listeners.delete(done);
        resolve(shown);
      };
      const timer = setTimeout(() => done(undefined), ms);
      this.listeners.add(done);
      cancel = () => done(undefined);
    });
    return { promise, cancel };
  }
}
