/**
 * The agent picker of New Chat (src/host/providers.ts `pickProvider`): the default agent first, and
 * a picker that stays open when the focus moves (a chat tab's webview taking the focus back a moment
 * after the palette closed dismissed it under load, and New Chat then made no chat).
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { vscodeStub } from './vscodeStub';

// Loaded after the stand-in is in place (a static import would load the real `vscode` first).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pickProvider } = require('../../src/host/providers') as typeof import('../../src/host/providers');

interface Shown {
  items: { label: string; id: string }[];
  options: { placeHolder?: string; ignoreFocusOut?: boolean };
}

describe('the agent picker of New Chat', () => {
  it('lists the default agent first and stays open when the focus moves', async () => {
    const shown: Shown[] = [];
    Object.assign(vscodeStub.window, {
      showQuickPick: async (items: Shown['items'], options: Shown['options']) => {
        shown.push({ items, options });
        return items.find((i) => i.id === 'codex');
      },
    });
    Object.assign(vscodeStub, { lm: { selectChatModels: async () => [] } });
    assert.equal(await pickProvider('claude'), 'codex');
    assert.equal(shown.length, 1);
    assert.equal(shown[0]!.items[0]!.id, 'claude');
    assert.equal(shown[0]!.options.placeHolder, 'Which agent should this chat use?');
    assert.equal(shown[0]!.options.ignoreFocusOut, true);
  });
});
