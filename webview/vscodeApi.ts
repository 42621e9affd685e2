/**
 * The typed handle on VS Code's webview API. `acquireVsCodeApi` may be called only once per page,
 * so the entry point calls `connectHost` once and passes the result around.
 */
import type { WebviewMessage, WebviewPersistedState } from '../src/protocol/messages';

/** What `acquireVsCodeApi()` returns (the parts this view uses). */
interface VsCodeApi {
  postMessage(message: unknown): void;
  setState(state: unknown): void;
  getState(): unknown;
}

declare global {
  /** Injected by VS Code into every webview. */
  function acquireVsCodeApi(): VsCodeApi;
}

/** A typed channel to the extension host. */
export interface HostChannel {
  /** Posts a protocol message to the host. */
  post(message: WebviewMessage): void;
  /** Persists the panel's state (its session, read back by the host's serializer on restore; its draft). */
  persist(state: WebviewPersistedState): void;
  /** The state last persisted by this panel (before its view was hidden or the window reloaded), if any. */
  restore(): WebviewPersistedState | undefined;
}

/** Acquires the VS Code API (once) and wraps it in a typed channel. */
export function connectHost(): HostChannel {
  const vscode = acquireVsCodeApi();
  return {
    post: (message) => vscode.postMessage(message),
    persist: (state) => vscode.setState(state),
    restore: () => {
      const state = vscode.getState();
      return state && typeof state === 'object' ? (state as WebviewPersistedState) : undefined;
    },
  };
}
