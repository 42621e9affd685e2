/**
 * Matching the chat tabs VS Code shows to the journal's chats, by title.
 *
 * The tab API tells an extension only a webview tab's label (the panel's title, which is the chat's
 * title) and its view type — nothing a dead webview knew, such as its session id. So a tab no panel
 * of this extension host owns (restored by VS Code but not yet handed over, or left by an extension
 * host that died) is matched to a chat by its title, among the chats the journal records as having
 * tabs. Two chats with one title are told apart by nothing: either may take either tab, which shows
 * the user the same label either way.
 *
 * Pure module: no I/O, no `vscode`.
 */

/** A chat a tab may show: its session id and current title. */
export interface TabCandidate {
  readonly sessionId: string;
  readonly title: string;
}

/**
 * Gives each tab label (in order) the first unused candidate with that title, or undefined when
 * none is left. Each candidate is used at most once.
 * @param labels tab labels, e.g. in the order the tabs stand.
 * @param candidates in order of preference (e.g. journaled tabs before other chats).
 * @returns one session id (or undefined) per label, in the labels' order.
 */
export function matchTabsToChats(labels: readonly string[], candidates: readonly TabCandidate[]): (string | undefined)[] {
  const left = [...candidates];
  return labels.map((label) => {
    const i = left.findIndex((c) => c.title === label);
    return i < 0 ? undefined : left.splice(i, 1)[0]!.sessionId;
  });
}

/**
 * The journaled tabs this window should open because it shows no tab of them: every record whose
 * chat no panel of this window shows and that no unowned tab of the layout stands for (by title).
 * @param records journaled tabs with their chats' titles, oldest first.
 * @param shown session ids shown by this window's panels.
 * @param unownedLabels labels of the layout's chat tabs that no panel of this window owns yet.
 * @returns session ids to open, in the records' order.
 */
export function tabsToReopen(records: readonly TabCandidate[], shown: ReadonlySet<string>, unownedLabels: readonly string[]): string[] {
  const candidates = records.filter((r) => !shown.has(r.sessionId));
  const taken = new Set(matchTabsToChats(unownedLabels, candidates).filter((id): id is string => id !== undefined));
  return candidates.map((c) => c.sessionId).filter((id) => !taken.has(id));
}

/**
 * The tabs of one editor group that no panel owns: tab labels minus panel titles, as multisets.
 * The tab a visible panel stands in (the group's active tab) is owned by it first; with no panel
 * visible, the active tab is matched last.
 * @param tabs the group's chat tabs in order, `active` marking the group's active tab.
 * @param panels the titles of this window's panels in that group, `visible` marking the shown one.
 * @returns indexes into `tabs` of the unowned ones, ascending.
 */
export function unownedTabs(
  tabs: readonly { readonly label: string; readonly active: boolean }[],
  panels: readonly { readonly title: string; readonly visible: boolean }[],
): number[] {
  const titles = panels.map((p) => p.title);
  const owned = new Set<number>();
  const visible = panels.findIndex((p) => p.visible);
  const active = tabs.findIndex((t) => t.active);
  if (visible >= 0 && active >= 0) {
    owned.add(active);
    titles.splice(visible, 1);
  }
  // With no panel visible, the group's active tab is shown by none of them: hidden panels own the
  // other tabs of their title first (else a live tab of a title could be taken for the stale one).
  const order = tabs.map((_, i) => i);
  if (visible < 0 && active >= 0) order.push(...order.splice(active, 1));
  order.forEach((i) => {
    const tab = tabs[i]!;
    if (owned.has(i)) return;
    const j = titles.indexOf(tab.label);
    if (j >= 0) {
      owned.add(i);
      titles.splice(j, 1);
    }
  });
  return tabs.map((_, i) => i).filter((i) => !owned.has(i));
}

/**
 * True when a window on `windowKey` may reopen a tab recorded with `recordWorkspace` (both as
 * `ChatRuntime.workspaceKey` gives them): a record of its own folder, or one of an older build (null),
 * which names no folder.
 */
export function isTabOfWindow(recordWorkspace: string | null, windowKey: string | null): boolean {
  return recordWorkspace === null || recordWorkspace === windowKey;
}
