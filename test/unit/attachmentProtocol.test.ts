/**
 * The `send` message's attachments as the host decodes them (src/protocol/decode.ts): well-formed
 * references pass as sent; malformed ones are refused with a sentence naming the field, and the
 * refusal still carries the message's client id, so the view gives the user the message back.
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { MAX_ATTACHMENT_PATH_CHARS, MAX_ATTACHMENTS } from '../../src/core/attachments';
import { clientIdOf } from '../../src/host/panelOutbox';
import { decodeWebviewMessage } from '../../src/protocol/decode';
import { MAX_COMPLETION_QUERY_CHARS } from '../../src/protocol/messages';

const send = (attachments: unknown) => ({ type: 'send', text: 'explain', clientId: 'c1', attachments });

describe('send with attachments: decoding', () => {
  it('accepts files, folders, selections with ranges and the problems of the workspace', () => {
    const m = send([
      { kind: 'file', path: 'src/a.ts' },
      { kind: 'file', path: '/etc/hosts', range: { startLine: 1, endLine: 2 } },
      { kind: 'folder', path: 'src' },
      { kind: 'selection', path: 'src/a.ts', range: { startLine: 3, endLine: 3 } },
      { kind: 'problems', path: '' },
    ]);
    const d = decodeWebviewMessage(m);
    assert.ok(d.ok);
    assert.deepEqual(d.value, m);
  });

  it('refuses malformed attachments with a sentence naming the field, and the refusal keeps the client id', () => {
    const cases: [unknown, RegExp][] = [
      [send([{ kind: 'image', path: 'a.png' }]), /at "attachments\.0\.kind"/],
      [send([{ kind: 'file' }]), /at "attachments\.0\.path"/],
      [send([{ kind: 'file', path: '' }]), /at "attachments\.0".*needs a path/],
      [send([{ kind: 'file', path: 'a', range: { startLine: 5, endLine: 2 } }]), /at "attachments\.0\.range".*ends before it starts/],
      [send([{ kind: 'file', path: 'a', range: { startLine: 0, endLine: 2 } }]), /at "attachments\.0\.range\.startLine"/],
      [send([{ kind: 'file', path: 'a', text: 'content from the view' }]), /Unrecognized key/],
      [send([{ kind: 'file', path: 'p'.repeat(MAX_ATTACHMENT_PATH_CHARS + 1) }]), /at "attachments\.0\.path"/],
      [send(Array.from({ length: MAX_ATTACHMENTS + 1 }, () => ({ kind: 'file', path: 'a' }))), /at "attachments"/],
      [send('src/a.ts'), /at "attachments"/],
    ];
    for (const [raw, expected] of cases) {
      const d = decodeWebviewMessage(raw);
      assert.ok(!d.ok, JSON.stringify(raw).slice(0, 120));
      assert.match(d.message, expected);
      assert.equal(clientIdOf(raw), 'c1');
    }
  });

  it('the @ list\'s request and a drop\'s URIs pass when well-formed, and are refused with the field named', () => {
    for (const m of [{ type: 'complete', requestId: 3, query: 'src/ut' }, { type: 'complete', requestId: 0, query: '' }, { type: 'attachUris', uris: ['file:///w/a.ts'] }]) {
      const d = decodeWebviewMessage(m);
      assert.ok(d.ok, JSON.stringify(m));
      assert.deepEqual(d.value, m);
    }
    const cases: [unknown, RegExp][] = [
      [{ type: 'complete', requestId: -1, query: 'a' }, /at "requestId"/],
      [{ type: 'complete', requestId: 1, query: 'q'.repeat(MAX_COMPLETION_QUERY_CHARS + 1) }, /at "query"/],
      [{ type: 'attachUris', uris: [] }, /at "uris"/],
      [{ type: 'attachUris', uris: [''] }, /at "uris\.0"/],
    ];
    for (const [raw, expected] of cases) {
      const d = decodeWebviewMessage(raw);
      assert.ok(!d.ok, JSON.stringify(raw).slice(0, 80));
      assert.match(d.message, expected);
    }
  });
});
