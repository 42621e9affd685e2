/**
 * The view's door to the words of error classes and closure reasons. The tables live in
 * `src/core/errorClassWords.ts` (pure), so the Markdown export on the host says what the view says.
 */
export * from '../src/core/errorClassWords';
