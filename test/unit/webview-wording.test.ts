/**
 * Small things a new user tripped on in the chat view (happy-dom): setting names in messages are
 * links to the Settings editor, a restart is stated once per turn, a running command's output
 * follows its end, the composer is named for what it is, and a restart banner is brought into sight.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EMPTY_TRANSCRIPT } from '../../src/core/transcript';
import { session, useHappyDom } from './happyDom';

const window = useHappyDom();

const turnCtx = { actionableIds: new Set<string>(), busyRequestIds: new Set<string>(), busyTurn: false, followedUp: false, running: false };

describe('a setting named in a message', () => {
  test('is a link that names the setting to open, in notices, invocation lines, banners and the error bar', async () => {
    const { renderNotice } = await import('../../webview/render/items');
    const notice = renderNotice('error', 'Claude Code was not found. Set `nativeAgentChats.claude.executablePath` or nativeAgentChats.claude.baseUrl.');
    const links = [...notice.querySelectorAll('a.setting-link[data-action="open-setting"]')];
    assert.deepEqual(links.map((a) => a.getAttribute('data-setting')), ['nativeAgentChats.claude.executablePath', 'nativeAgentChats.claude.baseUrl']);
    assert.equal(links[0]!.parentElement?.tagName, 'CODE', 'a setting in a code span stays code');
    assert.equal(notice.textContent, 'Claude Code was not found. Set nativeAgentChats.claude.executablePath or nativeAgentChats.claude.baseUrl.', 'the words are unchanged');
    assert.equal(renderNotice('info', 'see nativeAgentChats or editor.fontSize').querySelector('a'), null, 'only setting ids of this extension');
    const { settingToOpen } = await import('../../webview/settingLinks');
    assert.equal(settingToOpen(links[1]!.firstChild?.parentElement ?? null), 'nativeAgentChats.claude.baseUrl', 'a click on the link opens its setting');
    assert.equal(settingToOpen(notice), null, 'a click elsewhere opens nothing');
    links[0]!.setAttribute('data-setting', 'workbench.colorTheme');
    assert.equal(settingToOpen(links[0]!), null, 'nor a link made to name another extension\'s setting');

    const { buildSkeleton } = await import('../../webview/layout');
    const { ChatRenderer } = await import('../../webview/render');
    const { INITIAL_VIEW_STATE, IDLE_LIVE } = await import('../../webview/state');
    const sk = buildSkeleton(window.document.createElement('div') as unknown as HTMLElement);
    new ChatRenderer(sk).render({
      ...INITIAL_VIEW_STATE, mode: 'chat', session, transcript: EMPTY_TRANSCRIPT,
      live: { ...IDLE_LIVE, readOnlyReason: 'check nativeAgentChats.local.commandTimeoutMs' },
      error: { code: 'agent_unavailable', message: 'Change nativeAgentChats.codex.model.' },
    });
    assert.equal(sk.errorMessage.querySelector('a.setting-link')?.getAttribute('data-setting'), 'nativeAgentChats.codex.model', 'the final period is not part of it');
    assert.equal(sk.readonlyBar.querySelector('a.setting-link')?.getAttribute('data-setting'), 'nativeAgentChats.local.commandTimeoutMs');

    const { renderInvocation } = await import('../../webview/render/items');
    const failed = renderInvocation({ type: 'invocation', id: 'i1', tool: 'run', summary: 'x', status: 'failed', output: '', message: 'Timed out: raise nativeAgentChats.local.commandTimeoutMs' } as never);
    assert.ok(failed.querySelector('.invocation-message a.setting-link'));
  });
});

describe('a turn ended by a window reload or restart', () => {
  test('says so once, in its banner; the badge, the line and the card keep their words in a tooltip', async () => {
    // A fresh user counted it four times on one turn: badge, line under the command, card, banner.
    const { renderTurn } = await import('../../webview/render/turn');
    const el = renderTurn({
      id: 't1', prompt: 'run touch x && echo ok', origin: 'prompt', parentTurnId: null, status: 'failed', errorClass: 'sandbox_boundary_closed_by_restart',
      items: [
        { type: 'invocation', id: 'i1', tool: 'run', summary: 'touch x && echo ok', status: 'failed', failureClass: 'sandbox_boundary_closed_by_restart', output: '' },
        { type: 'boundary', id: 'r1', invocationId: 'i1', kind: 'command', subject: 'touch x && echo ok', why: 'w', status: 'denied', closureReason: 'host_restarted' },
      ],
    } as never, turnCtx);
    const saying = [...el.querySelectorAll('*')].filter((e) => [...e.childNodes].some((n) => n.nodeType === 3 && /reload|restart/i.test(n.textContent ?? '')));
    assert.ok(saying.length > 0);
    assert.deepEqual(saying.filter((e) => !e.closest('.restart-banner')).map((e) => `${e.className}: ${e.textContent}`), [], 'only the banner says it');
    assert.equal(el.querySelector('.invocation-message'), null);
    const outcome = el.querySelector('.boundary-outcome')!;
    assert.equal(outcome.textContent, 'Closed without an answer');
    assert.match(outcome.getAttribute('title') ?? '', /reloaded or restarted/, 'the card\'s own words on demand');
    assert.match(el.querySelector('.status-badge')?.getAttribute('title') ?? '', /reload or restart/);
    assert.ok(el.querySelector('.restart-banner [data-action="retry"]'), 'the banner offers Retry');
  });

  test('a command that recovery found still running and stopped says so under the banner', async () => {
    // The line under the invocation is left to the banner, which does not tell that a process was stopped.
    const { renderTurn } = await import('../../webview/render/turn');
    const { PROCESS_GROUP_STOPPED_TEXT } = await import('../../webview/labels');
    const el = renderTurn({
      id: 't1', prompt: 'run sleep 300', origin: 'prompt', parentTurnId: null, status: 'failed', errorClass: 'app_restarted',
      items: [{ type: 'invocation', id: 'i1', tool: 'run', summary: 'sleep 300', status: 'failed', failureClass: 'app_restarted', processGroupStopped: true, output: '' }],
    } as never, turnCtx);
    assert.ok(el.querySelector('.restart-banner'), 'precondition: the turn has its restart banner');
    assert.equal(el.querySelector('.invocation-message')?.textContent, PROCESS_GROUP_STOPPED_TEXT);
  });

  test('a card closed by a restart in a turn without a restart banner still says why', async () => {
    const { renderBoundary } = await import('../../webview/render/items');
    const card = renderBoundary({ type: 'boundary', id: 'r1', kind: 'command', subject: 's', why: 'w', status: 'denied', closureReason: 'host_restarted' } as never, { actionableIds: new Set(), busyRequestIds: new Set() });
    assert.match(card.querySelector('.boundary-outcome')?.textContent ?? '', /reloaded or restarted/);
  });
});

describe('a running command\'s output', () => {
  test('follows its end as it grows, unless the user scrolled up in it; a finished one stays where it was', async () => {
    // A long command showed its first lines while it ran: each update drew a new box scrolled to the top.
    const { buildSkeleton } = await import('../../webview/layout');
    const { ChatRenderer } = await import('../../webview/render');
    const { INITIAL_VIEW_STATE } = await import('../../webview/state');
    const proto = window.HTMLElement.prototype;
    // No layout here: a box is 100 px per character of text, and shows 300 px.
    Object.defineProperty(proto, 'scrollHeight', { get(this: HTMLElement) { return (this.textContent ?? '').length * 100; }, configurable: true });
    Object.defineProperty(proto, 'clientHeight', { get: () => 300, configurable: true });
    try {
      const sk = buildSkeleton(window.document.createElement('div') as unknown as HTMLElement);
      window.document.body.appendChild(sk.app as never);
      const renderer = new ChatRenderer(sk);
      const stateWith = (output: string, status: string) => ({
        ...INITIAL_VIEW_STATE, mode: 'chat' as const, session,
        live: { running: status === 'running', actionableRequestIds: [], readOnlyReason: null },
        transcript: { ...EMPTY_TRANSCRIPT, turns: [{ id: 't1', prompt: 'run make', origin: 'prompt', parentTurnId: null, status: 'running', errorClass: null, items: [{ type: 'invocation', id: 'i1', tool: 'run', summary: 'make', status, output }] }] } as never,
      });
      const box = () => sk.content.querySelector<HTMLElement>('pre.output')!;
      renderer.render(stateWith('line 1\n', 'running'));
      assert.equal(box().scrollTop, 700, 'a new box starts at its end');
      renderer.render(stateWith('line 1\nline 2\n', 'running'));
      assert.equal(box().scrollTop, 1400, 'and follows it as output comes');
      box().scrollTop = 400; // the user scrolls up to read, and the browser says so to the view
      box().dispatchEvent(new window.Event('scroll') as never);
      renderer.render(stateWith('line 1\nline 2\nline 3\n', 'running'));
      assert.equal(box().scrollTop, 400, 'a box the user scrolled up in stays there');
      renderer.render(stateWith('line 1\nline 2\nline 3\ndone\n', 'completed'));
      assert.equal(box().scrollTop, 400, 'a finished one keeps its position');
    } finally {
      delete (proto as unknown as Record<string, unknown>).scrollHeight;
      delete (proto as unknown as Record<string, unknown>).clientHeight;
    }
  });
});

describe('the composer', () => {
  test('is named "Message to the agent" even after the toolkit\'s text area names itself on connect', async () => {
    // @vscode/webview-ui-toolkit 1.4's text area sets aria-label "Text area" in connectedCallback
    // when it has no text content: a screen reader announced the composer as "Text area".
    class ToolkitTextArea extends window.HTMLElement {
      override connectedCallback(): void {
        this.setAttribute('aria-label', this.textContent || 'Text area');
      }
    }
    if (!window.customElements.get('vscode-text-area')) window.customElements.define('vscode-text-area', ToolkitTextArea as never);
    const { buildSkeleton, COMPOSER_LABEL } = await import('../../webview/layout');
    const app = window.document.createElement('div');
    window.document.body.appendChild(app);
    const sk = buildSkeleton(app as unknown as HTMLElement);
    assert.equal(COMPOSER_LABEL, 'Message to the agent');
    assert.equal(sk.composer.getAttribute('aria-label'), COMPOSER_LABEL);
  });
});

describe('a restart banner after a reload', () => {
  const banner = (turnId: string, actionable: boolean) => {
    const el = window.document.createElement('div');
    el.className = 'restart-banner banner';
    el.setAttribute('data-turn-id', turnId);
    if (actionable) {
      const button = window.document.createElement('button');
      button.setAttribute('data-action', 'retry');
      el.appendChild(button);
    }
    return el;
  };

  test('the newest one that still offers Retry or Continue is brought into sight, once per tab', async () => {
    const { bannerToReveal } = await import('../../webview/reveal');
    const root = window.document.createElement('div');
    root.append(banner('t1', true), banner('t2', true), banner('t3', false));
    assert.equal(bannerToReveal(root as never, undefined)?.getAttribute('data-turn-id'), 't2');
    assert.equal(bannerToReveal(root as never, 't2'), null, 'already shown to this tab');
    assert.equal(bannerToReveal(window.document.createElement('div') as never, undefined), null);
  });

  test('is scrolled into sight when below the visible part of the transcript, and left alone when visible', async () => {
    const { ScrollPin } = await import('../../webview/scroll');
    const box = window.document.createElement('div') as unknown as HTMLElement;
    const content = window.document.createElement('div') as unknown as HTMLElement;
    const target = window.document.createElement('div') as unknown as HTMLElement;
    const rect = (top: number, bottom: number) => ({ top, bottom, left: 0, right: 0, width: 0, height: bottom - top, x: 0, y: top, toJSON: () => ({}) });
    let offset = 0;
    box.getBoundingClientRect = () => rect(0, 500) as DOMRect;
    target.getBoundingClientRect = () => rect(1200 - offset, 1300 - offset) as DOMRect;
    const pin = new ScrollPin(box, content);
    pin.release(); // the tab went back to where the user read
    box.scrollTop = 100;
    pin.restore();
    assert.equal(box.scrollTop, 100, 'a view not following the bottom stays where it is');
    assert.equal(pin.reveal(target), true);
    assert.equal(box.scrollTop, 900, 'the banner\'s bottom is at the bottom of the box');
    offset = 800;
    assert.equal(pin.reveal(target), false, 'a visible banner is left alone');
  });
});
