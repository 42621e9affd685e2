/**
 * Entry point of the chat webview (bundled to `dist/webview.js`): registers the toolkit components
 * and builds one `ChatView` (`chatView.ts`) with what the browser gives — VS Code's API
 * (`acquireVsCodeApi`, once), the page's `#app`, its timers and clock, User Timing — then wires the
 * window's events to it: host messages, errors that escaped the view, and the focus.
 */
import {
  provideVSCodeDesignSystem, vsCodeButton, vsCodeCheckbox, vsCodeDivider, vsCodeProgressRing, vsCodeTextArea,
} from '@vscode/webview-ui-toolkit';
import { ChatView, type ViewTiming } from './chatView';
import { timed } from './timing';
import { viewErrorReporter } from './viewErrors';
import { connectHost } from './vscodeApi';

// User Timing marks (timing.ts): where a view's start goes.
performance.mark('nac:main');
provideVSCodeDesignSystem().register(vsCodeButton(), vsCodeTextArea(), vsCodeProgressRing(), vsCodeDivider(), vsCodeCheckbox());
performance.mark('nac:toolkit');

/** The browser's timers, clock and User Timing. */
const timing: ViewTiming = {
  now: () => Date.now(),
  requestAnimationFrame: (run) => requestAnimationFrame(run),
  setTimeout: (run, ms) => window.setTimeout(run, ms),
  setInterval: (run, ms) => window.setInterval(run, ms),
  clearInterval: (id) => window.clearInterval(id),
  timed,
  mark: (name) => void performance.mark(name),
};

const host = connectHost();
const reportError = viewErrorReporter((message) => host.post({ type: 'viewError', message }));
// Whatever escapes the renderer's own isolation goes to the host's log too, not only to a console
// nobody opens (from before the view is built: a throw while building it is reported as well).
window.addEventListener('error', (event) => reportError(event.error ?? event.message, 'uncaught error'));
window.addEventListener('unhandledrejection', (event) => reportError(event.reason, 'unhandled rejection'));
const view = new ChatView({
  app: document.getElementById('app') ?? document.body.appendChild(document.createElement('div')),
  post: (message) => host.post(message),
  store: host,
  timing,
  reportError,
});
window.addEventListener('message', (event: MessageEvent<unknown>) => view.receive(event.data));
view.start(document.hasFocus());
window.addEventListener('focus', () => view.focused());
