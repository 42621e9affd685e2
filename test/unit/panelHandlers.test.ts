/**
 * The host's table of the view's messages (src/host/panelHandlers.ts, typed by
 * src/protocol/hostHandlers.ts): the compiler checks that every `WebviewMessage` type has a handler;
 * this checks the same at run time against the decoder's own list of types, that no type is in two
 * concerns' parts (a spread would silently keep the later one), and that a dispatch calls the
 * handler of the message's type only. The table is host code: `vscode` is the stand-in (vscodeStub.ts).
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
// Before anything that loads `vscode`: it installs the stand-in.
import './vscodeStub';
import { PANEL_HANDLER_PARTS, PANEL_HANDLERS } from '../../src/host/panelHandlers';
import { webviewMessageSchema } from '../../src/protocol/decode';
import { dispatchMessage } from '../../src/protocol/handlerTable';
import type { WebviewMessageHandlers } from '../../src/protocol/hostHandlers';
import type { WebviewMessage } from '../../src/protocol/messages';

/** Every type the decoder lets through, from its schema. */
const decodedTypes = webviewMessageSchema.options.map((option) => option.shape.type.value).sort();

describe("the host's table of the view's messages", () => {
  it('has a handler for every type the decoder lets through, and for no other', () => {
    // The list is read from the schema: a sample of it guards against reading nothing.
    for (const type of ['ready', 'send', 'decide', 'attachUris']) assert.ok(decodedTypes.includes(type as never), `the decoder lists ${type}`);
    assert.deepEqual(Object.keys(PANEL_HANDLERS).sort(), decodedTypes);
    for (const type of decodedTypes) assert.equal(typeof PANEL_HANDLERS[type], 'function', type);
  });

  it('is composed of disjoint parts, one per concern, that cover it', () => {
    const seen = new Map<string, string>();
    for (const [concern, part] of Object.entries(PANEL_HANDLER_PARTS)) {
      for (const type of Object.keys(part)) {
        assert.equal(seen.get(type), undefined, `${type} is in ${seen.get(type)} and ${concern}`);
        seen.set(type, concern);
        assert.equal(PANEL_HANDLERS[type as keyof typeof PANEL_HANDLERS], part[type as keyof typeof part], `${type}: the table holds ${concern}'s handler`);
      }
    }
    assert.deepEqual([...seen.keys()].sort(), decodedTypes);
  });

  it("dispatches a message to its type's handler only, with the context", async () => {
    const calls: string[] = [];
    const table = Object.fromEntries(decodedTypes.map((type) => [type, (m: WebviewMessage, c: string[]) => void c.push(`${type}: ${JSON.stringify(m)}`)])) as unknown as WebviewMessageHandlers<string[]>;
    await dispatchMessage(table, { type: 'retry', turnId: 't1' }, calls);
    await dispatchMessage(table, { type: 'stop' }, calls);
    assert.deepEqual(calls, ['retry: {"type":"retry","turnId":"t1"}', 'stop: {"type":"stop"}']);
  });
});
