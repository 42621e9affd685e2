/**
 * The Claude agent's configuration, its settings and fixed words, the provider state it journals,
 * and the environment of the Claude Code process (see claudeAgent.ts for the whole agent).
 */

import { providerStateField } from '../providerState';

/** The part of the SDK module this agent uses (injectable for a bundle that loads it differently). */
export type ClaudeSdk = Pick<typeof import('@anthropic-ai/claude-agent-sdk'), 'query'>;

/** The setting that names the Claude Code executable (shown in messages). */
export const CLAUDE_EXECUTABLE_SETTING = 'nativeAgentChats.claude.executablePath';
/** The setting that names the model server's base URL (shown in messages). */
export const CLAUDE_BASE_URL_SETTING = 'nativeAgentChats.claude.baseUrl';
/** How to install Claude Code (shown in messages). */
export const CLAUDE_INSTALL_HINT = 'npm install -g @anthropic-ai/claude-code';

/**
 * Built-in tools removed from Claude's context: ones that need a UI this product does not have
 * (AskUserQuestion, plan mode) or that schedule work outside a turn (cron, wake-ups).
 */
export const CLAUDE_DISALLOWED_TOOLS: readonly string[] = [
  'AskUserQuestion', 'EnterPlanMode', 'ExitPlanMode', 'CronCreate', 'CronDelete', 'CronList', 'ScheduleWakeup',
];

/** What Continue asks Claude (the resumed session holds the interrupted reply). */
export const CLAUDE_CONTINUE_PROMPT =
  'VS Code restarted while you were working on my last request, so your reply was cut off. Please continue where you left off.';

/** The deny message Claude receives when the user denies a permission. */
export const CLAUDE_DENY_MESSAGE = 'The user denied this.';

/**
 * Configuration of the Claude agent. Read at the start of every run (pass a function to
 * `createClaudeAgent` to follow settings changes).
 */
export interface ClaudeAgentConfig {
  /** Configured path of the `claude` executable (setting `nativeAgentChats.claude.executablePath`); empty = search PATH. */
  readonly executablePath?: string;
  /** PATH to search when no path is configured (default `process.env.PATH`). */
  readonly searchPath?: string;
  /** Model server base URL → `ANTHROPIC_BASE_URL` (default: Claude Code's own, api.anthropic.com). */
  readonly baseUrl?: string;
  /** Model name → `model` (default: Claude Code's default model). */
  readonly model?: string;
  /** Anthropic API key (e.g. from SecretStorage) → `ANTHROPIC_API_KEY`; undefined keeps the user's own login or environment. */
  readonly apiKey?: () => Promise<string | undefined>;
  /**
   * Claude Code's config dir → `CLAUDE_CONFIG_DIR` (sessions, settings, credentials), e.g. a folder
   * under the extension's global storage. Undefined: the user's own `~/.claude` (their login works,
   * and sessions are kept there). Resuming needs the same dir and the same workspace folder.
   */
  readonly configDir?: string;
  /** Extra environment variables for the CLI (applied over `process.env`, under the privacy switches). */
  readonly env?: Readonly<Record<string, string>>;
  /** API retries of the CLI → `CLAUDE_CODE_MAX_RETRIES` (Claude Code's default is 10, with backoff). */
  readonly maxRetries?: number;
  /** Tools removed from Claude's context (default `CLAUDE_DISALLOWED_TOOLS`). */
  readonly disallowedTools?: readonly string[];
  /** After Stop, how long (ms) the interrupted CLI may take to end before it is closed (default 3000). */
  readonly stopGraceMs?: number;
  /** Diagnostics (stderr lines, retries, stops). */
  readonly log?: (line: string) => void;
  /** Loads the SDK (default: `import('@anthropic-ai/claude-agent-sdk')`). */
  readonly loadSdk?: () => Promise<ClaudeSdk>;
}

/** What this agent stores with `setProviderState` (JSON). */
export interface ClaudeProviderState {
  /** Claude Code session id (a UUID chosen by this agent). */
  readonly sessionId: string;
}

/** Parses provider state written by this agent; undefined for anything else. */
export function parseClaudeProviderState(state: string | null): ClaudeProviderState | undefined {
  const sessionId = providerStateField(state, 'sessionId');
  return sessionId ? { sessionId } : undefined;
}

/**
 * The environment of the Claude Code process (the SDK's `env` replaces it whole): `process.env`,
 * then `config.env`, then the API key, base URL, config dir and retries when configured, then the
 * switches that keep Claude Code off every host but the model endpoint. `CLAUDECODE` (set when this
 * editor was started from a Claude Code shell) is removed so the CLI does not think it is nested.
 */
export function claudeEnvironment(config: ClaudeAgentConfig, apiKey: string | undefined, base: NodeJS.ProcessEnv = process.env): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...base, ...config.env };
  delete env.CLAUDECODE;
  if (apiKey) env.ANTHROPIC_API_KEY = apiKey;
  if (config.baseUrl?.trim()) env.ANTHROPIC_BASE_URL = config.baseUrl.trim();
  if (config.configDir) env.CLAUDE_CONFIG_DIR = config.configDir;
  if (config.maxRetries !== undefined) env.CLAUDE_CODE_MAX_RETRIES = String(config.maxRetries);
  env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = '1';
  env.DISABLE_TELEMETRY = '1';
  env.DISABLE_AUTOUPDATER = '1';
  env.DISABLE_ERROR_REPORTING = '1';
  env.CLAUDE_AGENT_SDK_CLIENT_APP = 'native-agent-chats';
  return env;
}

