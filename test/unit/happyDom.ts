/**
 * The DOM of the webview tests: one happy-dom Window per test file, installed as the global
 * `window`, `document`, `Node`, `Element`, `HTMLElement`, `HTMLAnchorElement` and `CSS` before the
 * file's tests and removed (window closed) after them. DOMPurify binds to the window it finds when it is first loaded, so the globals are set
 * before any test renders.
 */
import { after, before } from 'node:test';
import { Window } from 'happy-dom';
import type { SessionRecord } from '../../src/core/events';

/** The globals a rendering test needs. */
const GLOBALS = ['window', 'document', 'Node', 'Element', 'HTMLElement', 'HTMLAnchorElement', 'CSS'] as const;

/** A chat record the views render (title `A chat`, provider `local`). */
export const session: SessionRecord = { id: 's1', title: 'A chat', provider: 'local', createdAt: 1, updatedAt: 1 };

/**
 * Creates the file's Window and registers the `before`/`after` hooks that install and remove it.
 * `runScripts`: the Window runs script (inline event handlers, `<script>`), as a browser would, for
 * tests that check that nothing rendered can run any; off by default, as in happy-dom.
 */
export function useHappyDom(options: { readonly runScripts?: boolean } = {}): Window {
  // The scripts such a test lets run are its own payloads, which only set a flag on the Window.
  const window = new Window(options.runScripts ? { settings: { enableJavaScriptEvaluation: true, suppressInsecureJavaScriptEnvironmentWarning: true } } : {});
  const globals = globalThis as unknown as Record<string, unknown>;
  before(() => {
    globals.window = window;
    globals.document = window.document;
    globals.Node = window.Node;
    globals.Element = window.Element;
    globals.HTMLElement = window.HTMLElement;
    globals.HTMLAnchorElement = window.HTMLAnchorElement;
    globals.CSS = window.CSS;
  });
  after(async () => {
    for (const k of GLOBALS) delete globals[k];
    await window.happyDOM.close();
  });
  return window;
}
