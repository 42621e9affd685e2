/**
 * The transcript's buttons: native `<button>` elements drawn like the toolkit's `vscode-button`
 * (media/chat.css, `.nac-button`), for controls repeated in the transcript (Copy on every code
 * block and output, the decision buttons of a card, Retry/Continue, Undo/Restore/Redo, Edit).
 * A toolkit button is a custom element that builds its shadow DOM and styles each time it is
 * connected, which made it the largest part of mounting a turn; the composer, the queue and the
 * header keep the toolkit's elements. Same attributes as before (`data-action`, `data-decision`,
 * `disabled`), so the view's click handling does not care which one it gets.
 */
import { h, type Attrs } from '../dom';

/** The toolkit's two filled appearances: primary (the action to take) and secondary. */
export type ButtonAppearance = 'primary' | 'secondary';

/**
 * A `<button type="button" class="nac-button {appearance} {attrs.class}">` with `label` as its
 * text; `attrs` as in `h` (`disabled: true` disables it natively: no click event fires).
 */
export function button(appearance: ButtonAppearance, attrs: Attrs, label: string): HTMLButtonElement {
  const extra = typeof attrs.class === 'string' && attrs.class ? ` ${attrs.class}` : '';
  return h('button', { ...attrs, type: 'button', class: `nac-button ${appearance}${extra}` }, label);
}
