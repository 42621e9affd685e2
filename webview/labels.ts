/**
 * The view's door to the words of boundary requests, invocations, turn origins and agents. They live
 * in `src/core/labels.ts` (pure), so the Markdown export on the host says what the view says.
 */
export * from '../src/core/labels';
