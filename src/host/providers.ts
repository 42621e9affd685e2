/**
 * The agents a chat can use, as VS Code presents them: names for the picker and the tab, what each
 * still lacks on this machine, where each provider's settings and API key come from. The lookup
 * from a provider id to its `Agent` is agentRegistry.ts.
 */
import * as net from 'node:net';
import * as vscode from 'vscode';
import type { ProviderId } from '../core/vocabulary';
import { findExecutable } from '../runtime/agents/executables';
import { OPENAI_COMPATIBLE_DEFAULT_BASE_URL } from '../runtime/agents/openaiCompatible/openaiCompatibleAgent';

/** One provider as the user sees it. */
export interface ProviderInfo {
  readonly id: ProviderId;
  readonly label: string;
  readonly detail: string;
  /** Whether an API key (SecretStorage) is used. */
  readonly usesApiKey: boolean;
}

/**
 * Every provider, in picker order. `label` and `detail` are plain text: a quick pick shows markdown
 * such as backticks literally.
 */
export const PROVIDERS: readonly ProviderInfo[] = [
  { id: 'local', label: 'Local agent', detail: 'Built in, offline, no account: run, read, write, help', usesApiKey: false },
  { id: 'claude', label: 'Claude', detail: 'Claude Agent SDK with your Claude Code installation', usesApiKey: true },
  { id: 'codex', label: 'Codex', detail: 'OpenAI Codex through its app server (the codex CLI)', usesApiKey: true },
  { id: 'openai-compatible', label: 'OpenAI-compatible server', detail: 'Ollama, LM Studio, vLLM, llama.cpp server', usesApiKey: true },
  { id: 'vscode-lm', label: 'VS Code language model', detail: 'A model another extension provides, e.g. GitHub Copilot', usesApiKey: false },
];

/** Key under which a provider's API key is kept in SecretStorage (never in settings or the journal). */
export function apiKeySecretName(provider: ProviderId): string {
  return `nativeAgentChats.apiKey.${provider}`;
}

/** Reads a setting of this extension, with a default. */
export function setting<T>(key: string, fallback: T): T {
  return vscode.workspace.getConfiguration('nativeAgentChats').get<T>(key, fallback);
}

/** Longest the picker waits for VS Code to list its language models, or for a server to accept a connection (ms). */
const LM_CHECK_MS = 500;

/**
 * True when something accepts a TCP connection at `url`'s host and port within LM_CHECK_MS (no
 * request is sent: a picker only needs to know whether a server is there). False for a URL that
 * cannot be parsed.
 */
function answers(url: string): Promise<boolean> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(false);
  }
  const port = Number(target.port) || (target.protocol === 'https:' ? 443 : 80);
  return new Promise((resolve) => {
    const socket = net.connect({ host: target.hostname.replace(/^\[|\]$/g, ''), port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(LM_CHECK_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * What a provider still lacks on this machine, in a few words for the picker, or '' when nothing
 * is known to be missing: the `claude` / `codex` CLI (configured path, else PATH), a language model
 * for the VS Code LM provider, a server accepting connections for the OpenAI-compatible provider
 * (which otherwise names the server it will call). Waits at most LM_CHECK_MS. Never throws.
 */
export async function providerReadiness(id: ProviderId): Promise<string> {
  const cli = (name: string, settingKey: string) => {
    const configured = setting(settingKey, '').trim();
    const found = findExecutable(name, configured, { tool: name, setting: `nativeAgentChats.${settingKey}`, install: '' });
    if (found.ok) return '';
    return configured ? `$(warning) ${name} not found at ${configured}` : `$(warning) ${name} not found on PATH`;
  };
  try {
    if (id === 'claude') return cli('claude', 'claude.executablePath');
    if (id === 'codex') return cli('codex', 'codex.executablePath');
    if (id === 'openai-compatible') {
      const url = setting('openaiCompatible.baseUrl', '').trim() || OPENAI_COMPATIBLE_DEFAULT_BASE_URL;
      return (await answers(url)) ? `server ${url}` : `$(warning) nothing answers at ${url}`;
    }
    if (id === 'vscode-lm') {
      const vendor = setting('vscodeLm.vendor', '');
      const family = setting('vscodeLm.family', '');
      const models = await Promise.race([
        vscode.lm.selectChatModels({ ...(vendor ? { vendor } : {}), ...(family ? { family } : {}) }),
        new Promise<undefined>((resolve) => setTimeout(resolve, LM_CHECK_MS)),
      ]);
      if (models === undefined) return ''; // no answer in time: say nothing rather than hold the picker
      return models.length > 0 ? '' : '$(warning) no language model available (e.g. install GitHub Copilot Chat)';
    }
  } catch {
    /* a check that fails says nothing: the chat itself explains what is missing */
  }
  return '';
}

/**
 * Quick pick of providers, the default first; each says what it still lacks here
 * (`providerReadiness`), so a user learns it before the first message fails. Resolves undefined
 * when dismissed.
 */
export async function pickProvider(defaultId: string): Promise<ProviderId | undefined> {
  const sorted = [...PROVIDERS].sort((a, b) => Number(b.id === defaultId) - Number(a.id === defaultId));
  const notes = await Promise.all(sorted.map((p) => providerReadiness(p.id)));
  const picked = await vscode.window.showQuickPick(
    sorted.map((p, i) => ({
      label: p.label,
      description: [p.id === defaultId ? 'default' : '', notes[i]].filter(Boolean).join(' · '),
      detail: p.detail,
      id: p.id,
    })),
    // Kept open when the focus moves: the palette that ran New Chat hands the focus back to the
    // editor as it closes, and a chat tab's webview can take it a moment after the picker opened
    // (late on a loaded machine), which closed the picker with nothing chosen and no chat made.
    { placeHolder: 'Which agent should this chat use?', matchOnDetail: true, ignoreFocusOut: true },
  );
  return picked?.id;
}

/** Asks for a provider and its API key, and stores the key in SecretStorage (empty input clears it). */
export async function promptForApiKey(secrets: vscode.SecretStorage): Promise<void> {
  const candidates = PROVIDERS.filter((p) => p.usesApiKey);
  const picked = await vscode.window.showQuickPick(candidates.map((p) => ({ label: p.label, detail: p.detail, id: p.id })), {
    placeHolder: 'Set the API key of which agent?',
  });
  if (!picked) return;
  const key = await vscode.window.showInputBox({
    prompt: `API key for ${picked.label} (kept in VS Code's secret storage; leave empty to remove it)`,
    password: true,
    ignoreFocusOut: true,
  });
  if (key === undefined) return;
  if (key.trim() === '') {
    await secrets.delete(apiKeySecretName(picked.id));
    void vscode.window.showInformationMessage(`Removed the API key for ${picked.label}.`);
  } else {
    await secrets.store(apiKeySecretName(picked.id), key.trim());
    void vscode.window.showInformationMessage(`Saved the API key for ${picked.label}.`);
  }
}
