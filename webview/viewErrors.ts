/**
 * Reports the view's own errors to the host's log (`viewError` messages): parts that failed to
 * render and uncaught errors or rejections. Pure apart from the `post` it is given (unit-tested).
 */
import { MAX_VIEW_ERROR_CHARS } from '../src/protocol/messages';
import { errorText } from './render/failed';

export { MAX_VIEW_ERROR_CHARS };

/** Reports a view lets through before it stops reporting (a throw on every frame would flood the log). */
export const MAX_VIEW_ERROR_REPORTS = 20;

/** The text of one report: where, the error, and the first lines of its stack; cut to the limit. */
export function viewErrorReport(error: unknown, where: string): string {
  const stack = error instanceof Error && error.stack ? error.stack.split('\n').slice(1, 6).join('\n') : '';
  const text = `${where}: ${errorText(error)}${stack ? `\n${stack}` : ''}`;
  return text.length > MAX_VIEW_ERROR_CHARS ? `${text.slice(0, MAX_VIEW_ERROR_CHARS - 1)}…` : text;
}

/**
 * Builds a reporter that posts each distinct report once, and at most `MAX_VIEW_ERROR_REPORTS` of
 * them. `post` receives the report's text (non-empty, at most `MAX_VIEW_ERROR_CHARS`).
 */
export function viewErrorReporter(post: (message: string) => void): (error: unknown, where: string) => void {
  const sent = new Set<string>();
  return (error, where) => {
    const text = viewErrorReport(error, where);
    if (sent.has(text) || sent.size >= MAX_VIEW_ERROR_REPORTS) return;
    sent.add(text);
    post(text);
  };
}
