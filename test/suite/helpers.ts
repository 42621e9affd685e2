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
