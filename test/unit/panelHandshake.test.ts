/**
 * A chat panel's handshake (src/host/panelHandshake.ts): the rules of `Handshake` (what answers a
 * view's `ready` before and after the early snapshot, and after the view spoke; a reveal that waits
 * for a view) and what its handlers ask of the panel, in order (`ready`, `resync`, `ping`). The
 * module loads no `vscode`: the panel is a stand-in that records what it was asked.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import type { PanelContext } from '../../src/host/panelContext';
import { Handshake, handshakeHandlers, viewHeard } from '../../src/host/panelHandshake';

describe("a chat panel's handshake rules", () => {
  it('answers ready with a snapshot when no early snapshot was sent', () => {
    const h = new Handshake();
    assert.deepEqual(h.ready(), { snapshot: true });
    assert.deepEqual(h.ready(), { snapshot: true }, 'every ready of a new view');
  });

  it('answers the ready after an early snapshot with the live state only, and the next ready with a snapshot', () => {
    const h = new Handshake();
    h.earlySnapshotSent();
    assert.deepEqual(h.ready(), { snapshot: false });
    assert.deepEqual(h.ready(), { snapshot: true }, 'a later ready is a new view, which never got the early snapshot');
  });

  it('takes a view that spoke (any message but ready) for loaded: its early snapshot arrived, a later ready is a new view', () => {
    const h = new Handshake();
    assert.equal(h.heard('ready'), false, 'ready is not the view speaking');
    h.earlySnapshotSent();
    assert.equal(h.heard('ping'), true);
    assert.deepEqual(h.ready(), { snapshot: true });
    h.earlySnapshotSent();
    assert.equal(h.heard('ready'), false);
    assert.deepEqual(h.ready(), { snapshot: false }, 'a ready heard does not end the early snapshot by itself');
  });

  it('keeps a reveal asked while the tab is hidden for the next ready, with a snapshot even after an early one, once', () => {
    const h = new Handshake();
    assert.equal(h.reveal({ turnId: 't1', terms: ['a'] }, false), undefined, 'hidden: nothing to post now');
    assert.equal(h.reveal({ turnId: 't2', terms: ['b'] }, false), undefined);
    h.earlySnapshotSent();
    assert.deepEqual(h.ready(), { snapshot: true, reveal: { turnId: 't2', terms: ['b'] } }, 'the newest reveal, after a snapshot');
    assert.deepEqual(h.ready(), { snapshot: true }, 'sent once');
  });

  it('posts a reveal at once while the tab shows, dropping one that waited', () => {
    const h = new Handshake();
    h.reveal({ turnId: 't1', terms: [] }, false);
    assert.deepEqual(h.reveal({ turnId: 't2', terms: ['x'] }, true), { turnId: 't2', terms: ['x'] });
    assert.deepEqual(h.ready(), { snapshot: true }, 'no reveal waits any more');
  });
});

/** A stand-in panel recording what the handshake's handlers ask of it, in order. */
function recordingPanel() {
  const calls: string[] = [];
  const handshake = new Handshake();
  const panel = {
    handshake,
    mentions: { viewReady: () => void calls.push('viewReady'), viewSpoke: () => void calls.push('viewSpoke') },
    sendSnapshot: async () => void calls.push('snapshot'),
    sendLive: async () => void calls.push('live'),
    postReveal: (r: { turnId: string }) => void calls.push(`reveal ${r.turnId}`),
    postNow: (m: { type: string }) => void calls.push(`now ${m.type}`),
  } as unknown as PanelContext;
  return { calls, handshake, panel };
}

describe("a chat panel's handshake handlers", () => {
  it('answers ready with a snapshot, then lets what waited for the view follow', async () => {
    const { calls, panel } = recordingPanel();
    await handshakeHandlers.ready({ type: 'ready' }, panel);
    assert.deepEqual(calls, ['snapshot', 'viewReady']);
  });

  it('answers the ready after an early snapshot with the live state, after what waited for the view', async () => {
    const { calls, handshake, panel } = recordingPanel();
    handshake.earlySnapshotSent();
    await handshakeHandlers.ready({ type: 'ready' }, panel);
    assert.deepEqual(calls, ['viewReady', 'live']);
  });

  it('posts a waiting reveal after the snapshot that answers ready', async () => {
    const { calls, handshake, panel } = recordingPanel();
    handshake.reveal({ turnId: 't1', terms: ['w'] }, false);
    await handshakeHandlers.ready({ type: 'ready' }, panel);
    assert.deepEqual(calls, ['snapshot', 'reveal t1', 'viewReady']);
  });

  it('answers resync with a snapshot whatever the handshake holds, and ping with a pong outside the queue', async () => {
    const { calls, handshake, panel } = recordingPanel();
    handshake.earlySnapshotSent();
    await handshakeHandlers.resync({ type: 'resync' }, panel);
    await handshakeHandlers.ping({ type: 'ping' }, panel);
    assert.deepEqual(calls, ['snapshot', 'now pong']);
  });

  it('tells the mentions a view spoke at any message but ready (viewHeard)', () => {
    const { calls, handshake, panel } = recordingPanel();
    handshake.earlySnapshotSent();
    viewHeard('ready', panel);
    assert.deepEqual(calls, []);
    viewHeard('complete', panel);
    assert.deepEqual(calls, ['viewSpoke']);
    assert.deepEqual(handshake.ready(), { snapshot: true }, 'the early snapshot ended when the view spoke');
  });
});
