/**
 * The one place the five providers are wired to their agents: the built-in local agent, the VS Code
 * language model agent, and Claude, Codex and the OpenAI-compatible agent built from this
 * extension's settings and SecretStorage at each turn (so a changed setting or key applies to the
 * next turn). An id without an agent answers undefined: the runtime refuses the prompt with a
 * sentence naming the provider.
 */
import * as vscode from 'vscode';
import type { Agent } from '../runtime/agent';
import { createClaudeAgent } from '../runtime/agents/claude/claudeAgent';
import { createCodexAgent } from '../runtime/agents/codex/codexAgent';
import { LocalAgent } from '../runtime/agents/localAgent';
import { OPENAI_COMPATIBLE_DEFAULT_BASE_URL, createOpenAICompatibleAgent } from '../runtime/agents/openaiCompatible/openaiCompatibleAgent';
import { apiKeySecretName, setting } from './providers';
import { VscodeLmAgent } from './vscodeLmAgent';

/** Delay between the local agent's streamed chunks (ms), so its replies read as a stream. */
const LOCAL_CHUNK_DELAY_MS = 15;

/**
 * Claude Code's API retries: it retries a failing API 10 times with growing delays by default;
 * a chat should fail in seconds instead.
 */
const CLAUDE_MAX_RETRIES = 2;

/** Builds the provider id → agent lookup of this extension host; `log` receives the agents' diagnostics. */
export function createAgentRegistry(context: vscode.ExtensionContext, log: (line: string) => void): (provider: string) => Agent | undefined {
  const apiKey = (provider: 'claude' | 'codex' | 'openai-compatible') => () => Promise.resolve(context.secrets.get(apiKeySecretName(provider)));
  const local = new LocalAgent({ chunkDelayMs: LOCAL_CHUNK_DELAY_MS });
  const lm = new VscodeLmAgent(() => ({ vendor: setting('vscodeLm.vendor', ''), family: setting('vscodeLm.family', '') }));
  return (provider) => {
    switch (provider) {
      case 'local':
        return local;
      case 'vscode-lm':
        return lm;
      case 'claude':
        return createClaudeAgent({
          executablePath: setting('claude.executablePath', ''),
          baseUrl: setting('claude.baseUrl', ''),
          model: setting('claude.model', ''),
          apiKey: apiKey('claude'),
          maxRetries: CLAUDE_MAX_RETRIES,
          log,
        });
      case 'codex':
        return createCodexAgent({
          executablePath: setting('codex.executablePath', ''),
          codexHome: vscode.Uri.joinPath(context.globalStorageUri, 'codex-home').fsPath,
          baseUrl: setting('codex.baseUrl', '') || undefined,
          model: setting('codex.model', '') || undefined,
          apiKey: apiKey('codex'),
          log,
        });
      case 'openai-compatible':
        return createOpenAICompatibleAgent({
          baseUrl: setting('openaiCompatible.baseUrl', OPENAI_COMPATIBLE_DEFAULT_BASE_URL),
          model: setting('openaiCompatible.model', ''),
          apiKey: apiKey('openai-compatible'),
          log,
        });
      default:
        return undefined;
    }
  };
}
