/**
 * The status-bar item of a window's chat tabs (src/host/chatStatus.ts `statusOf`): shown while an
 * agent works or waits, a chat waiting for an approval first, the others counted.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { LiveState } from '../../src/protocol/messages';
import './vscodeStub';

// Loaded after the stand-in is in place (a static import would load the real `vscode` first).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { statusOf } = require('../../src/host/chatStatus') as typeof import('../../src/host/chatStatus');

const idle: LiveState = { running: false, actionableRequestIds: [], readOnlyReason: null };
const working: LiveState = { running: true, actionableRequestIds: [], readOnlyReason: null };
const waiting: LiveState = { running: true, actionableRequestIds: ['r1'], readOnlyReason: null };
const tab = (sessionId: string, live: LiveState | undefined, active = false) => ({ sessionId, title: `Chat ${sessionId}`, active, live });

describe('the chat status-bar item', () => {
  it('is hidden while no agent works', () => {
    assert.equal(statusOf([tab('a', idle, true), tab('b', undefined)]), undefined);
    assert.equal(statusOf([]), undefined);
  });

  it('names a working chat and goes to it', () => {
    assert.deepEqual(statusOf([tab('a', idle), tab('b', working)]), {
      text: '$(loading~spin) Agent working', tooltip: 'The agent is working on “Chat b”. Click to show it.', sessionId: 'b',
    });
  });

  it('puts a chat waiting for an approval first and counts the others', () => {
    const shown = statusOf([tab('a', working), tab('b', waiting), tab('c', working)]);
    assert.equal(shown?.sessionId, 'b');
    assert.equal(shown?.text, '$(bell-dot) Agent waiting for approval (+2)');
  });
});
