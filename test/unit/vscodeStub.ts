/**
 * The one stand-in for the `vscode` module in plain Node (no VS Code): installed for
 * `require('vscode')` when this module loads, so import it (or a fake that imports it:
 * fakePanels.ts, fakeQuickPick.ts) before anything that loads host code, and load that host code
 * with `require` after the import (a static import of it could be hoisted above the stand-in).
 *
 * It holds the little of the API the host code under test touches. What a test plays is set on it:
 * `vscodeStub.window.createWebviewPanel` and `createQuickPick` (left unset here, they throw until a
 * fake sets them), the editor layout and commands in `layout`; what the host said to the user is
 * recorded in `said`.
 */
import Module from 'node:module';

/** What the host said outside its views: notifications (`showInformationMessage`) and status bar messages with their time (ms). */
export const said = { notifications: [] as string[], statusBar: [] as { text: string; ms: number }[] };

/** A tab of the stand-in layout (`layout.groups`), as the tab API gives it. */
export interface FakeTab {
  readonly label: string;
  readonly input: unknown;
  /** Whether it is its group's active tab (a test showing another tab sets it). */
  isActive: boolean;
  readonly group: FakeTabGroup;
}

/** An editor group of the stand-in layout. */
export interface FakeTabGroup {
  readonly viewColumn: number;
  readonly tabs: FakeTab[];
}

/** The stand-in `TabInputWebview` (the host tells chat tabs by `instanceof` and `viewType`). */
export class FakeTabInputWebview {
  constructor(readonly viewType: string) {}
}

/**
 * The stand-in's editor layout and workbench commands: set `groups` for `vscode.window.tabGroups`,
 * and `onCommand` to play what a command does (the calls are in `commands`).
 */
export const layout = {
  groups: [] as FakeTabGroup[],
  commands: [] as { id: string; args: unknown[] }[],
  onCommand: (_id: string, ..._args: unknown[]): unknown => undefined,
};

/** A chat tab of VS Code's (its internal view type) in group `group`, labelled `label`. */
export function chatTab(group: FakeTabGroup, label: string, isActive = false): FakeTab {
  const tab = { label, input: new FakeTabInputWebview('mainThreadWebview-nativeAgentChats.chat'), isActive, group };
  group.tabs.push(tab);
  return tab;
}

/** A member a fake sets when it loads: until then, calling it says which fake to load. */
function unset(name: string, fake: string): () => never {
  return () => {
    throw new Error(`the vscode stand-in has no ${name} until ${fake} is loaded`);
  };
}

/** The stand-in `vscode` module itself; tests and fakes set the members they play (see the module docstring). */
export const vscodeStub = {
  Uri: { joinPath: (base: { path?: string } | undefined, ...segments: string[]) => ({ path: [base?.path ?? '', ...segments].join('/') }) },
  TabInputWebview: FakeTabInputWebview,
  TabInputText: class {},
  ViewColumn: { Active: -1 },
  StatusBarAlignment: { Left: 1 },
  QuickPickItemKind: { Separator: -1, Default: 0 },
  window: {
    createWebviewPanel: unset('window.createWebviewPanel', 'fakePanels.ts') as (...args: unknown[]) => unknown,
    createQuickPick: unset('window.createQuickPick', 'fakeQuickPick.ts') as (...args: unknown[]) => unknown,
    createStatusBarItem: () => ({ show: () => undefined, hide: () => undefined, dispose: () => undefined }),
    showInformationMessage: async (text: string) => void said.notifications.push(text),
    setStatusBarMessage: (text: string, ms: number) => (said.statusBar.push({ text, ms }), { dispose: () => undefined }),
    tabGroups: {
      get all() { return layout.groups; },
      get activeTabGroup() { return layout.groups[0] ?? { viewColumn: 1, tabs: [] }; },
    },
  },
  commands: {
    executeCommand: async (id: string, ...args: unknown[]) => {
      layout.commands.push({ id, args });
      return layout.onCommand(id, ...args);
    },
  },
  /** Every setting reads as its default (the `fallback` the code passes). */
  workspace: { getConfiguration: () => ({ get: <T>(_key: string, fallback?: T) => fallback }) },
};

type Loader = (request: string, parent: unknown, isMain: boolean) => unknown;
const moduleWithLoad = Module as unknown as { _load: Loader };
const realLoad = moduleWithLoad._load;
moduleWithLoad._load = (request, parent, isMain) => (request === 'vscode' ? vscodeStub : realLoad(request, parent, isMain));
