import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { decodeWebviewMessage, sessionIdFromState } from '../../src/protocol/decode';
import { MAX_ID_CHARS, MAX_PROMPT_CHARS, MAX_VIEW_ERROR_CHARS } from '../../src/protocol/messages';

describe('webview protocol decoding', () => {
  it('accepts each well-formed message', () => {
    for (const m of [
      { type: 'ready' },
      { type: 'send', text: 'run ls', clientId: '6f1c2a7e-0b8d-4c3e-9a51-2f7d9e4b1c60' },
      { type: 'editQueued', clientId: 'c1', text: 'run ls -la' },
      { type: 'discardQueued', clientId: 'c1' },
      { type: 'sendQueued', clientId: 'c1' },
      { type: 'stop' },
      { type: 'decide', requestId: 'r1', decision: 'allow_session' },
      { type: 'retry', turnId: 't1' },
      { type: 'continue', turnId: 't1' },
      { type: 'pickSession' },
      { type: 'viewError', message: 'turn t1: TypeError: x is undefined' },
      { type: 'openSetting', id: 'nativeAgentChats.claude.executablePath' },
      { type: 'ping' },
      { type: 'listModels' },
      { type: 'send', text: 'run ls -la', clientId: 'c2', replacesTurnId: 't1' },
      { type: 'setModel', model: 'qwen2.5-coder:7b' },
      { type: 'setModel', model: null },
    ]) {
      const d = decodeWebviewMessage(m);
      assert.ok(d.ok, JSON.stringify(m));
      assert.deepEqual(d.value, m);
    }
  });

  it('rejects malformed messages with a sentence that names the field', () => {
    const cases: [unknown, RegExp][] = [
      [null, /Malformed message/],
      ['send', /Malformed message/],
      [{ type: 'launchMissiles' }, /at "type"/],
      [{ type: 'send' }, /at "text"/],
      [{ type: 'send', text: '   ', clientId: 'c1' }, /at "text"/],
      // A message without its id could make a second turn when a rebuilt view posts it again.
      [{ type: 'send', text: 'run ls' }, /at "clientId"/],
      [{ type: 'send', text: 'run ls', clientId: '' }, /at "clientId"/],
      [{ type: 'send', text: 'run ls', clientId: 'c'.repeat(MAX_ID_CHARS + 1) }, /at "clientId"/],
      [{ type: 'send', text: 'x'.repeat(MAX_PROMPT_CHARS + 1), clientId: 'c1' }, /at "text"/],
      [{ type: 'editQueued', clientId: 'c1', text: ' \n ' }, /at "text"/],
      [{ type: 'editQueued', clientId: 'c1', text: 'x'.repeat(MAX_PROMPT_CHARS + 1) }, /at "text"/],
      [{ type: 'editQueued', text: 'run ls' }, /at "clientId"/],
      [{ type: 'discardQueued', clientId: 7 }, /at "clientId"/],
      [{ type: 'sendQueued', clientId: 'c1', now: true }, /Malformed message/],
      [{ type: 'decide', requestId: 'r', decision: 'allow_forever' }, /at "decision"/],
      [{ type: 'stop', extra: true }, /Malformed message/],
      [{ type: 'retry', turnId: '' }, /at "turnId"/],
      // A view error report is for the log: bounded, never empty.
      [{ type: 'viewError', message: '' }, /at "message"/],
      [{ type: 'viewError', message: 'x'.repeat(MAX_VIEW_ERROR_CHARS + 1) }, /at "message"/],
      [{ type: 'viewError' }, /at "message"/],
      // Only ids shaped like this extension's settings; the host also checks it contributes them.
      [{ type: 'openSetting', id: 'editor.fontSize' }, /at "id"/],
      [{ type: 'openSetting', id: 'nativeAgentChats' }, /at "id"/],
      [{ type: 'openSetting', id: 'nativeAgentChats.claude.' }, /at "id"/],
      [{ type: 'openSetting', id: 'nativeAgentChats.x; rm -rf' }, /at "id"/],
      [{ type: 'openSetting', id: `nativeAgentChats.${'a'.repeat(300)}` }, /at "id"/],
      [{ type: 'ping', at: 1 }, /Malformed message/],
      [{ type: 'pong' }, /at "type"/],
      // A model name is shown in the header and sent to the provider: bounded, one line, present.
      [{ type: 'setModel' }, /at "model"/],
      [{ type: 'setModel', model: '  ' }, /at "model"/],
      [{ type: 'setModel', model: 'a\nb' }, /at "model"/],
      [{ type: 'setModel', model: 'm'.repeat(201) }, /at "model"/],
      [{ type: 'setModel', model: 7 }, /at "model"/],
      [{ type: 'listModels', provider: 'x' }, /Malformed message/],
      // Edit and resend names the turn it replaces by id.
      [{ type: 'send', text: 'run ls', clientId: 'c1', replacesTurnId: '' }, /at "replacesTurnId"/],
      [{ type: 'send', text: 'run ls', clientId: 'c1', replacesTurnId: 7 }, /at "replacesTurnId"/],
    ];
    for (const [raw, pattern] of cases) {
      const d = decodeWebviewMessage(raw);
      assert.equal(d.ok, false, JSON.stringify(raw));
      assert.match(!d.ok ? d.message : '', pattern);
    }
  });

  it('bounds what it accepts exactly at the limits', () => {
    const longest = decodeWebviewMessage({ type: 'send', text: 'x'.repeat(MAX_PROMPT_CHARS), clientId: 'c'.repeat(MAX_ID_CHARS) });
    assert.ok(longest.ok);
    assert.deepEqual(longest.value, { type: 'send', text: 'x'.repeat(MAX_PROMPT_CHARS), clientId: 'c'.repeat(MAX_ID_CHARS) });
    // Edges of blanks are not part of a message (the same text posted again is the same text).
    assert.deepEqual(decodeWebviewMessage({ type: 'editQueued', clientId: 'c1', text: '  run ls \n' }), { ok: true, value: { type: 'editQueued', clientId: 'c1', text: 'run ls' } });
  });

  it('refuses junk of any size with a short sentence, reading a text\'s length before trimming it', () => {
    // zod's own sentence names every unexpected key: for these, over a megabyte, logged and posted to the view.
    const keys = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, 1]));
    const many = decodeWebviewMessage({ type: 'ready', ...keys });
    assert.deepEqual(many, { ok: false, message: 'Malformed message from the chat view: Unrecognized keys: "k0", "k1", "k2" and 99,997 more' });
    const long = decodeWebviewMessage({ type: 'stop', ['x'.repeat(1_000_000)]: 1 });
    assert.deepEqual(long, { ok: false, message: `Malformed message from the chat view: Unrecognized key: "${'x'.repeat(40)}…"` });
    // 10 MB of blanks: too long as the view counts it (it refuses such a text before posting it), not trimmed first.
    const blank = decodeWebviewMessage({ type: 'send', clientId: 'c1', text: ' '.repeat(10 * 1024 * 1024) });
    assert.deepEqual(blank, { ok: false, message: `Malformed message from the chat view at "text": Too big: expected string to have <=${MAX_PROMPT_CHARS} characters` });
  });

  it('reads a session id from webview state only when well-formed', () => {
    assert.equal(sessionIdFromState({ sessionId: 'abc' }), 'abc');
    assert.equal(sessionIdFromState(undefined), undefined);
    assert.equal(sessionIdFromState({ sessionId: 42 }), undefined);
    assert.equal(sessionIdFromState('abc'), undefined);
  });
});
