/**
 * What each provider offers in a chat's model picker, and the model its settings name, for the
 * host (`vscode`): VS Code's language models for the vendor/family in use (`vscode.lm.selectChatModels`),
 * the OpenAI-compatible server's `/models`, and for Claude and Codex their `model` setting plus a
 * short known list (runtime/agents/modelLists.ts says why). The local agent offers none.
 */
import * as vscode from 'vscode';
import type { ModelList } from '../runtime/agents/modelLists';
import { CLAUDE_KNOWN_MODELS, CODEX_KNOWN_MODELS, openAICompatibleModels, withConfigured } from '../runtime/agents/modelLists';
import { OPENAI_COMPATIBLE_DEFAULT_BASE_URL } from '../runtime/agents/openaiCompatible/openaiCompatibleAgent';
import { apiKeySecretName, setting } from './providers';

/** The `model` setting of each provider that has one (under `nativeAgentChats.`). */
const MODEL_SETTINGS: Readonly<Record<string, string>> = {
  'openai-compatible': 'openaiCompatible.model',
  claude: 'claude.model',
  codex: 'codex.model',
};

/**
 * The model the settings name for `provider` (trimmed), or null when they name none or the
 * provider has no such setting (VS Code LM's vendor/family select models, they do not name one).
 */
export function settingModel(provider: string): string | null {
  const key = MODEL_SETTINGS[provider];
  return (key && setting(key, '').trim()) || null;
}

/**
 * The models `provider` offers here (never throws; a list that could not be read comes with a
 * `note`). `secrets`: where API keys are kept (the OpenAI-compatible server may need one to list).
 */
export async function modelsOffered(provider: string, secrets: vscode.SecretStorage): Promise<ModelList> {
  switch (provider) {
    case 'vscode-lm':
      return vscodeLmModels();
    case 'openai-compatible':
      return openAICompatibleModels({
        baseUrl: setting('openaiCompatible.baseUrl', OPENAI_COMPATIBLE_DEFAULT_BASE_URL),
        apiKey: (await secrets.get(apiKeySecretName('openai-compatible')))?.trim(),
        configured: settingModel(provider) ?? '',
      });
    case 'claude':
      return { models: withConfigured(settingModel(provider) ?? '', CLAUDE_KNOWN_MODELS) };
    case 'codex':
      return { models: withConfigured(settingModel(provider) ?? '', CODEX_KNOWN_MODELS) };
    default:
      return { models: [] };
  }
}

/** VS Code's chat models matching the vendor/family settings (empty: any), by id. */
async function vscodeLmModels(): Promise<ModelList> {
  const vendor = setting('vscodeLm.vendor', '').trim();
  const family = setting('vscodeLm.family', '').trim();
  try {
    const models = await vscode.lm.selectChatModels({ ...(vendor ? { vendor } : {}), ...(family ? { family } : {}) });
    return { models: models.map((m) => ({ id: m.id, label: m.name && m.name !== m.id ? `${m.name} (${m.id})` : m.id })) };
  } catch (error) {
    return { models: [], note: `VS Code could not list its language models: ${(error as Error).message}` };
  }
}
