/**
 * `TabRepair`: makes the chat tabs VS Code shows agree with this extension host and the journal.
 *
 * Two things go wrong without it:
 * - An extension host that dies (crash, kill) leaves its chat tabs on screen: VS Code starts a new
 *   host but never hands it the tabs the old one had (it hands over only tabs it restores from its
 *   saved layout), so they stay frozen — a live-looking Stop, buttons that do nothing. A chat tab
 *   that stands visible in its group while no panel of this host shows it for `STALE_TAB_GRACE_MS`
 *   marks such a host restart; then every chat tab of the window that no panel owns is replaced in
 *   place (same group, same position) by a fresh panel of its chat, which shows the recovered state.
 * - VS Code's saved layout can be older than the journal's tab records (code-server saves it at a
 *   window reload, not when its server stops; a new browser profile has none): on start, the
 *   journaled tabs of this workspace folder that no tab of this window stands for are opened in the
 *   background, unless another live extension host exists (another window may be showing them: a
 *   tab is never pulled into this window from a live one). A tab closed by hand has no record.
 *
 * A tab is matched to its chat by title (`src/core/tabMatch.ts`): the tab API says no more.
 */
import * as vscode from 'vscode';
import { isTabOfWindow, matchTabsToChats, tabsToReopen, type TabCandidate } from '../core/tabMatch';
import type { ChatRuntime } from '../runtime/chatRuntime';
import type { ChatPanel } from './chatPanel';
import { isChatTab, unrestoredChatTabs } from './unrestoredTabs';
import type { ChatPanels } from './chatPanels';

/**
 * How long (ms) a visible chat tab may stand without a panel of this host before it counts as left
 * by a dead host. VS Code hands a restored visible tab to the serializer as the extension activates;
 * the grace covers that round trip on a loaded machine.
 */
export const STALE_TAB_GRACE_MS = 3000;

/** How often (ms) the visible chat tabs are checked. */
const CHECK_INTERVAL_MS = 1000;

/** Repairs this window's chat tabs (see module docstring). */
export class TabRepair implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  /** Since when (ms) each group's visible chat tab has had no panel, by view column. */
  private readonly unownedSince = new Map<vscode.ViewColumn, number>();
  private busy = false;
  private disposed = false;

  constructor(
    private readonly panels: ChatPanels,
    private readonly runtime: ChatRuntime,
    private readonly log: (line: string) => void,
  ) {}

  /** Reopens the journaled tabs missing here, then watches for tabs left by a dead host. */
  async start(): Promise<void> {
    await this.exclusive(() => this.reopenMissing());
    const timer = setInterval(() => void this.check(), CHECK_INTERVAL_MS);
    this.disposables.push({ dispose: () => clearInterval(timer) });
  }

  /** Stops watching (the extension host is shutting down). */
  dispose(): void {
    this.disposed = true;
    for (const d of this.disposables.splice(0)) d.dispose();
  }

  /** One check: a visible chat tab unowned for the grace time starts a repair of every group. */
  private async check(now = Date.now()): Promise<void> {
    if (this.busy || this.disposed) return;
    const panels = this.panels.webviewPanels();
    let stale = false;
    for (const group of vscode.window.tabGroups.all) {
      const tab = group.activeTab;
      const owned = panels.some((p) => p.visible && p.viewColumn === group.viewColumn);
      if (!tab || !isChatTab(tab) || owned) {
        this.unownedSince.delete(group.viewColumn);
        continue;
      }
      const since = this.unownedSince.get(group.viewColumn) ?? now;
      this.unownedSince.set(group.viewColumn, since);
      if (now - since >= STALE_TAB_GRACE_MS) stale = true;
    }
    if (!stale) return;
    this.unownedSince.clear();
    await this.exclusive(() => this.replaceStale());
  }

  private async exclusive(work: () => Promise<void>): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await work();
    } catch (error) {
      this.log(`[tabs] repair failed: ${(error as Error).stack ?? error}`);
    } finally {
      this.busy = false;
    }
  }

  /** The layout's chat tabs no panel owns, per group, in tab order. */
  private unowned(): { group: vscode.TabGroup; tabs: vscode.Tab[] }[] {
    const tabs = unrestoredChatTabs(this.panels.webviewPanels());
    return vscode.window.tabGroups.all
      .map((group) => ({ group, tabs: tabs.filter((t) => t.group.viewColumn === group.viewColumn) }))
      .filter((g) => g.tabs.length > 0);
  }

  /**
   * Journaled tabs of this window's workspace folder (or of no known folder) whose chats no panel of
   * this window shows, with their titles, oldest first.
   */
  private async journaledCandidates(): Promise<TabCandidate[]> {
    const shown = new Set(this.panels.openSessionIds());
    const workspace = this.runtime.workspaceKey;
    const out: TabCandidate[] = [];
    for (const record of await this.runtime.listTabs()) {
      if (shown.has(record.sessionId) || !isTabOfWindow(record.workspace, workspace)) continue;
      const session = await this.runtime.getSession(record.sessionId);
      if (session) out.push({ sessionId: session.id, title: session.title });
    }
    return out;
  }

  /** Opens, in the background, the journaled tabs no tab of this window stands for. */
  private async reopenMissing(): Promise<void> {
    const unownedLabels = this.unowned().flatMap((g) => g.tabs.map((t) => t.label));
    const records = await this.journaledCandidates();
    const missing = tabsToReopen(records, new Set(this.panels.openSessionIds()), unownedLabels);
    if (missing.length === 0) return;
    // An undrawn tab labelled with a title no chat has now is a chat renamed while it was undrawn:
    // it may stand for any of the records left, and reopening would give that chat a second tab.
    const titles = new Set((await this.runtime.listSessions()).map((s) => s.title));
    const stale = unownedLabels.filter((l) => !titles.has(l)).length;
    if (stale > 0) {
      this.log(`[tabs] ${missing.length} journaled tab(s) not matched to this window's tabs left alone: ${stale} tab(s) here have a title no chat has now (renamed while not drawn), which may stand for them`);
      return;
    }
    const others = await this.runtime.otherLiveInstances();
    if (others > 0) {
      this.log(`[tabs] ${missing.length} journaled tab(s) not in this window left alone: ${others} other extension host(s) live, which may show them`);
      return;
    }
    const group = vscode.window.tabGroups.activeTabGroup;
    const activeBefore = group.activeTab;
    for (const sessionId of missing) {
      const session = await this.runtime.getSession(sessionId);
      if (session) await this.panels.open(session, { viewColumn: group.viewColumn, preserveFocus: true }, false);
    }
    await this.reactivate(group.viewColumn, activeBefore);
    this.log(`[tabs] reopened ${missing.length} journaled tab(s) VS Code did not restore: ${missing.join(', ')}`);
  }

  /** Replaces every unowned chat tab by a fresh panel of its chat, keeping group and position. */
  private async replaceStale(): Promise<void> {
    const groups = this.unowned();
    // An active chat tab of a hidden group (a maximized other group) has an invisible panel: nothing
    // is stale then, and no journal read or log line is owed.
    if (groups.length === 0) return;
    const candidates = await this.journaledCandidates();
    // A chat whose tab record is gone (closed in another window meanwhile) is still better than a picker.
    const shown = new Set([...this.panels.openSessionIds(), ...candidates.map((c) => c.sessionId)]);
    const others = (await this.runtime.listSessions()).filter((s) => !shown.has(s.id)).map((s) => ({ sessionId: s.id, title: s.title }));
    const labels = groups.flatMap((g) => g.tabs.map((t) => t.label));
    const ids = matchTabsToChats(labels, [...candidates, ...others]);
    let n = 0;
    for (const { group, tabs } of groups) {
      const column = group.viewColumn;
      const activeBefore = group.activeTab;
      let activeReplacement: ChatPanel | undefined;
      for (const tab of tabs) {
        const replacement = await this.replaceOne(column, tab, ids[n++]);
        if (tab === activeBefore) activeReplacement = replacement;
      }
      if (activeReplacement) activeReplacement.panel.reveal(column, true);
      else await this.reactivate(column, activeBefore);
    }
    this.log(`[tabs] replaced ${labels.length} chat tab(s) left by an extension host that ended: ${ids.map((id) => id ?? '(picker)').join(', ')}`);
  }

  /** Closes one stale tab and opens its chat at the same position of the same group. */
  private async replaceOne(column: vscode.ViewColumn, tab: vscode.Tab, sessionId: string | undefined): Promise<ChatPanel> {
    // The API's tab objects may have been replaced by the changes made so far: find it again.
    const current = this.unowned().find((g) => g.group.viewColumn === column)?.tabs.find((t) => t.label === tab.label) ?? tab;
    const index = current.group.tabs.indexOf(current);
    await vscode.window.tabGroups.close(current, true);
    const show = { viewColumn: column, preserveFocus: true };
    const session = sessionId ? await this.runtime.getSession(sessionId) : undefined;
    const chat = session ? await this.panels.open(session, show, false) : this.panels.openOrphan(show);
    // A new editor opens next to the group's active one; put it where the old tab stood. The
    // command moves the active editor of the active group, so only there.
    if (index >= 0 && vscode.window.tabGroups.activeTabGroup.viewColumn === column) {
      await vscode.commands.executeCommand('moveActiveEditor', { to: 'position', by: 'tab', value: index + 1 });
    }
    return chat;
  }

  /** Shows `tab` again as its group's active editor (opening others made them active), keeping the focus. */
  private async reactivate(column: vscode.ViewColumn, tab: vscode.Tab | undefined): Promise<void> {
    if (!tab) return;
    const input = tab.input;
    const panel = this.panels.webviewPanels().find((p) => p.viewColumn === column && p.title === tab.label && isChatTab(tab));
    if (panel) panel.reveal(column, true);
    else if (input instanceof vscode.TabInputText) await vscode.window.showTextDocument(input.uri, { viewColumn: column, preserveFocus: true, preview: tab.isPreview });
    else if (vscode.window.tabGroups.activeTabGroup.viewColumn === column) {
      const index = vscode.window.tabGroups.activeTabGroup.tabs.findIndex((t) => t.label === tab.label);
      if (index >= 0) await vscode.commands.executeCommand('workbench.action.openEditorAtIndex', index);
    }
  }
}
