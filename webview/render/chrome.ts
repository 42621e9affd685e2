/**
 * The parts around the transcript: the header (title, provider badge, running ring), the welcome
 * text of an empty chat, and the orphan message.
 */
import type { SessionRecord } from '../../src/core/events';
import { h } from '../dom';
import { providerName } from '../labels';

/**
 * Renders the header contents: `.session-title`, `span.badge.provider-badge`, `vscode-progress-ring.running-indicator`.
 * The provider's badge is a span with the view's own badge style, not the toolkit's `vscode-badge`,
 * whose template writes a `style` attribute that the page's Content Security Policy refuses.
 */
export function renderHeader(session: SessionRecord | null, running: boolean): HTMLElement[] {
  return [
    h('span', { class: 'session-title', title: session?.title ?? '' }, session?.title ?? 'Loading chat…'),
    session ? h('span', { class: 'badge provider-badge', title: `Agent: ${session.provider}` }, providerName(session.provider)) : null,
    running ? h('vscode-progress-ring', { class: 'running-indicator', 'aria-label': 'The agent is working' }) : null,
  ].filter((el): el is HTMLElement => el !== null);
}

/** Renders `.welcome`: what the built-in local agent understands, or how another agent works here. */
export function renderWelcome(provider = 'local'): HTMLElement {
  const cmd = (text: string) => h('code', {}, text);
  if (provider !== 'local') {
    return h(
      'div',
      { class: 'welcome' },
      h('h2', {}, `Start a chat with ${providerName(provider)}`),
      h('p', {}, 'Ask for what you need in this workspace. Whenever the agent wants to run a command, change files or go outside the workspace, a card asks you first: Allow once, Allow for this session, or Deny.'),
      h('p', {}, 'If the window reloads or VS Code restarts while a card waits, the request is denied and the chat offers Retry.'),
      h('p', { class: 'hint' }, 'Enter sends, Shift+Enter adds a new line. While the agent works, Enter queues your message for when it is done.'),
    );
  }
  return h(
    'div',
    { class: 'welcome' },
    h('h2', {}, 'Start a chat'),
    h('p', {}, 'Type a message below. The built-in local agent works offline and understands:'),
    h(
      'ul',
      {},
      h('li', {}, cmd('help'), ' — list what it can do'),
      h('li', {}, cmd('run <command>'), ' — run a shell command (read-only ones like ', cmd('ls'), ' run at once; others ask you first)'),
      h('li', {}, cmd('read <path>'), ' — show a file'),
      h('li', {}, cmd('write <path>'), ' followed by a fenced ', cmd('```'), ' block — write that file (asks first outside the workspace)'),
    ),
    h('p', { class: 'hint' }, 'Enter sends, Shift+Enter adds a new line. While the agent works, Enter queues your message for when it is done.'),
  );
}

/** Renders `.orphan`: the tab lost its chat; a button (`data-action="pick-session"`) picks one. */
export function renderOrphan(): HTMLElement {
  return h(
    'div',
    { class: 'orphan' },
    h('p', {}, 'This tab lost track of its chat.'),
    h('vscode-button', { 'data-action': 'pick-session', appearance: 'primary' }, 'Pick a chat…'),
  );
}

/**
 * Renders `.loading[role=status]`: what a chat tab shows until the host sends its chat. After a
 * window reload the tab is back before the extension has opened the journal (a few seconds in a
 * slow window), and a blank tab looked broken.
 */
export function renderLoading(): HTMLElement {
  return h('div', { class: 'loading', role: 'status' }, h('vscode-progress-ring', { 'aria-hidden': 'true' }), h('span', {}, 'Loading the chat…'));
}
