/**
 * The Codex agent's configuration: the settings its messages name, the configuration the host
 * builds from settings and SecretStorage, and the provider state it journals.
 */
import { providerStateField } from '../providerState';

/** Setting names the messages point at (the host contributes them). */
export const CODEX_SETTINGS = {
  executablePath: 'nativeAgentChats.codex.executablePath',
  baseUrl: 'nativeAgentChats.codex.baseUrl',
  model: 'nativeAgentChats.codex.model',
} as const;

/** How to install Codex, for messages. */
export const CODEX_INSTALL_HINT = 'npm install -g @openai/codex';

/**
 * Configuration of the Codex agent (plain values; the host maps settings and SecretStorage to it).
 */
export interface CodexAgentConfig {
  /** Setting `nativeAgentChats.codex.executablePath`: the `codex` executable; empty/unset → PATH. */
  readonly executablePath?: string;
  /** PATH to search when `executablePath` is unset (default `process.env.PATH`). */
  readonly envPath?: string;
  /**
   * Folder used as Codex's `CODEX_HOME` (created if missing; e.g. `<globalStorage>/codex-home`).
   * Holds the config.toml this agent writes and Codex's threads, which Retry/Continue resume.
   */
  readonly codexHome: string;
  /** Model server base URL including `/v1` (Responses API); unset → `https://api.openai.com/v1`. */
  readonly baseUrl?: string;
  /** Model name passed to Codex (e.g. `gpt-5.2-codex`); unset → Codex's default. */
  readonly model?: string;
  /** The API key (from SecretStorage); undefined → none. Required when `baseUrl` is unset. */
  readonly apiKey: () => Promise<string | undefined>;
  /** Codex's own sandbox: `read-only` (default) or `workspace-write`. */
  readonly sandbox?: 'read-only' | 'workspace-write';
  /** Extra environment for the app-server process (merged over `process.env`). */
  readonly env?: Readonly<Record<string, string>>;
  /** Diagnostics (stderr lines of Codex, protocol trouble). */
  readonly log?: (line: string) => void;
  /** Also log every JSON-RPC line exchanged with the app-server (verbose diagnostics). */
  readonly traceProtocol?: boolean;
  /** How long initialize + thread start/resume may take, ms (default 30000). */
  readonly startupTimeoutMs?: number;
  /** After Stop: how long to wait for Codex to confirm the interrupt before ending the process, ms (default 3000). */
  readonly interruptTimeoutMs?: number;
}

/** What this agent journals with `setProviderState` (JSON). */
export interface CodexProviderState {
  readonly threadId: string;
}

/** Reads `{threadId}` from the journaled provider state, or undefined. */
export function parseProviderState(state: string | null): CodexProviderState | undefined {
  const threadId = providerStateField(state, 'threadId');
  return threadId ? { threadId } : undefined;
}
