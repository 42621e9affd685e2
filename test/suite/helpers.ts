/**
 * Helpers of the extension suite (runs inside a real extension host).
 */
import * as vscode from 'vscode';
import type { NativeAgentChatsApi } from '../../src/host/extension';

/** The extension's id (publisher.name). */
export const EXTENSION_ID = 'native-agent-chats.native-agent-chats';

/** Activates the extension and returns its test API. @throws if it is not installed. */
export async function api(): Promise<NativeAgentChatsApi> {
  const ext = vscode.extensions.getExtension<NativeAgentChatsApi>(EXTENSION_ID);
  if (!ext) throw new Error(`${EXTENSION_ID} is not installed in this extension host`);
  return ext.activate();
}

/** Polls `probe` every 100 ms until it returns a value (not undefined). @throws after `timeoutMs` naming `what`. */
export async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What a quick pick showed: its placeholder and its items once filled (not busy). */
export interface ShownQuickPick {
  readonly placeholder: string;
  readonly items: readonly vscode.QuickPickItem[];
}

/**
 * Replaces `vscode.window.createQuickPick` by the real one, watched: once a picker is shown and
 * filled (not busy, with items), it is recorded and `answer` runs on it (default: hide it, which
 * dismisses it). Returns what was shown, a restore function, and `check`, which throws what `answer`
 * threw (the picker is hidden then, so the command ends).
 */
export function recordQuickPicks(answer: (picker: vscode.QuickPick<vscode.QuickPickItem>) => void | Promise<void> = (p) => p.hide()): { shown: ShownQuickPick[]; restore: () => void; check: () => void } {
  const failed: unknown[] = [];
  const win = vscode.window as unknown as { createQuickPick: () => vscode.QuickPick<vscode.QuickPickItem> };
  const original = win.createQuickPick;
  const shown: ShownQuickPick[] = [];
  win.createQuickPick = () => {
    const picker = original.call(vscode.window);
    const show = picker.show.bind(picker);
    picker.show = () => {
      show();
      const timer = setInterval(() => {
        if (picker.busy || picker.items.length === 0) return;
        clearInterval(timer);
        shown.push({ placeholder: picker.placeholder ?? '', items: [...picker.items] });
        Promise.resolve(answer(picker)).catch((error: unknown) => {
          failed.push(error);
          picker.hide();
        });
      }, 10);
    };
    return picker;
  };
  return {
    shown,
    restore: () => (win.createQuickPick = original),
    check: () => {
      if (failed.length > 0) throw failed[0];
    },
  };
}

/** The labels of quick pick items, separators as `-- label`. */
export function pickLabels(items: readonly vscode.QuickPickItem[]): string[] {
  return items.map((i) => (i.kind === vscode.QuickPickItemKind.Separator ? `-- ${i.label}` : i.label));
}
