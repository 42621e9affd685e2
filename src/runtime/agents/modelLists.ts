/**
 * The models a chat's header offers per provider (no `vscode`; the host adds VS Code's own models).
 *
 * - OpenAI-compatible: what the server lists at `GET {baseUrl}/models` (the `openai` client's
 *   `models.list()`), within `timeoutMs`;
 * - Claude and Codex: their CLIs have no cheap listing without starting a run, so the header offers
 *   the `model` setting's value (when set) and a short list of names each CLI accepts
 *   (`CLAUDE_KNOWN_MODELS`: Claude Code's aliases, which follow Anthropic's newest models;
 *   `CODEX_KNOWN_MODELS`); a name typed in the setting is always offered too.
 * Every list starts with the setting's value when it names a model, and holds each id once.
 */
import OpenAI from 'openai';
import { NO_API_KEY } from './openaiCompatible/openaiCompatibleAgent';

import type { ModelOption } from '../../protocol/messages';

export type { ModelOption } from '../../protocol/messages';

/** What a provider offers: its models, and a sentence when the list could not be read (the picker still works). */
export interface ModelList {
  readonly models: readonly ModelOption[];
  readonly note?: string;
}

/** Claude Code's model aliases (`--model`): each names the newest model of that kind. */
export const CLAUDE_KNOWN_MODELS: readonly ModelOption[] = [
  { id: 'sonnet', label: 'Sonnet (Claude Code alias)' },
  { id: 'opus', label: 'Opus (Claude Code alias)' },
  { id: 'haiku', label: 'Haiku (Claude Code alias)' },
];

/** Models the Codex CLI is commonly run with (its `-m`); the server behind `codex.baseUrl` decides what exists. */
export const CODEX_KNOWN_MODELS: readonly ModelOption[] = [
  { id: 'gpt-5-codex', label: 'gpt-5-codex' },
  { id: 'gpt-5', label: 'gpt-5' },
  { id: 'o4-mini', label: 'o4-mini' },
];

/** Longest wait for a server's model list, ms: the picker opens without it after that. */
export const MODEL_LIST_TIMEOUT_MS = 3000;

/** `configured` (trimmed, when set) first, then `options`, each id once. */
export function withConfigured(configured: string, options: readonly ModelOption[]): ModelOption[] {
  const name = configured.trim();
  const all = name ? [{ id: name, label: `${name} (setting)` }, ...options] : [...options];
  const seen = new Set<string>();
  return all.filter((m) => !seen.has(m.id) && seen.add(m.id));
}

/**
 * The models an OpenAI-compatible server lists (`GET {baseUrl}/models` through the `openai`
 * client), sorted by id, after the configured one. Never throws: a server that cannot be reached,
 * refuses or answers late gives the configured model alone and a `note` saying why.
 */
export async function openAICompatibleModels(
  config: { readonly baseUrl: string; readonly apiKey?: string; readonly configured: string; readonly timeoutMs?: number },
): Promise<ModelList> {
  const baseURL = config.baseUrl.trim().replace(/\/+$/, '');
  try {
    const client = new OpenAI({ apiKey: config.apiKey || NO_API_KEY, baseURL, organization: null, project: null, maxRetries: 0, timeout: config.timeoutMs ?? MODEL_LIST_TIMEOUT_MS });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    ids.sort();
    return { models: withConfigured(config.configured, ids.map((id) => ({ id, label: id }))) };
  } catch (error) {
    return { models: withConfigured(config.configured, []), note: `The server at ${baseURL} did not list its models: ${(error as Error).message}` };
  }
}
