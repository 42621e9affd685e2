/**
 * The `config.toml` this product writes into the `CODEX_HOME` it gives Codex (a folder under the
 * extension's global storage, never the user's `~/.codex`), and the environment Codex runs with.
 *
 * Measured with codex 0.171.0 (strace of every `connect`, and the request headers the model server
 * received): with the keys below, one turn contacts nothing but the configured model endpoint.
 * - `[features] plugins/apps/remote_plugin = false`: otherwise Codex contacts outside hosts at startup.
 * - `[features] unbounded_connection_retries = false`: otherwise an unreachable model server makes
 *   Codex wait "for network" forever (the turn never ends); with it the turn fails at once with
 *   `httpConnectionFailed`.
 * - `[features] shell_snapshot = false`: no login shell at every app-server start to capture the
 *   user's environment (commands still run in a login shell). With one process per run, that snapshot
 *   shell was often still running when the run ended; ending it mid-way left `pyenv rehash`'s lock
 *   file behind, after which every login shell on the machine waited 60 s.
 * - `[analytics] enabled = false`, `[feedback] enabled = false`, `[otel] exporter = "none"`,
 *   `check_for_update_on_startup = false`: no usage analytics, feedback uploads, telemetry export or
 *   update checks (the turn metadata header then says `analytics_enabled: false`).
 * - `web_search = "disabled"`: no hosted web search tool (fetches outside the workspace the user
 *   never approved, and OpenAI-compatible local servers reject the tool type).
 * - the model provider: Codex speaks only the Responses API (`wire_api = "responses"`; "chat" is
 *   rejected), retries 0 so a failing server fails the turn promptly and honestly.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Id of the model provider this product defines in `config.toml`. */
export const CODEX_PROVIDER_ID = 'native_agent_chats';

/** Environment variable that carries the API key to Codex (`env_key` of the provider). */
export const CODEX_API_KEY_ENV = 'NATIVE_AGENT_CHATS_CODEX_API_KEY';

/** The OpenAI endpoint used when no base URL is configured. */
export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/** What `config.toml` depends on. */
export interface CodexHomeConfig {
  /** Model server base URL including `/v1` (e.g. `http://127.0.0.1:11434/v1`); unset: OpenAI. */
  readonly baseUrl?: string;
  /** True when an API key will be passed in `CODEX_API_KEY_ENV` (else no `env_key`: no auth header). */
  readonly hasApiKey: boolean;
}

/** A TOML basic string (JSON string escapes are valid TOML escapes). */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

/** The `config.toml` text (pure). */
export function codexConfigToml(config: CodexHomeConfig): string {
  const baseUrl = (config.baseUrl?.trim() || OPENAI_BASE_URL).replace(/\/+$/, '');
  return [
    '# Written by Native Agent Chats for each Codex run; edits here are overwritten.',
    `model_provider = ${tomlString(CODEX_PROVIDER_ID)}`,
    'check_for_update_on_startup = false',
    'web_search = "disabled"',
    '',
    `[model_providers.${CODEX_PROVIDER_ID}]`,
    'name = "Native Agent Chats"',
    `base_url = ${tomlString(baseUrl)}`,
    'wire_api = "responses"',
    ...(config.hasApiKey ? [`env_key = ${tomlString(CODEX_API_KEY_ENV)}`] : []),
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[features]',
    'plugins = false',
    'apps = false',
    'remote_plugin = false',
    'unbounded_connection_retries = false',
    'shell_snapshot = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[feedback]',
    'enabled = false',
    '',
    '[otel]',
    'exporter = "none"',
    '',
  ].join('\n');
}

/** Creates `codexHome` if needed and (re)writes its `config.toml` (atomically: temp file + rename). */
export function writeCodexHome(codexHome: string, config: CodexHomeConfig): void {
  fs.mkdirSync(codexHome, { recursive: true });
  const file = path.join(codexHome, 'config.toml');
  const text = codexConfigToml(config);
  try {
    if (fs.readFileSync(file, 'utf8') === text) return;
  } catch {
    // not there yet
  }
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, text, { mode: 0o600 });
  fs.renameSync(temp, file);
}
