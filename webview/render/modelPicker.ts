/**
 * The model picker in the chat's header: a labelled native `<select>` (keyboard and screen-reader
 * accessible as any form control; styled with VS Code's dropdown colours) offering "Provider default"
 * (the provider's settings decide) and the models the host listed for the chat's provider, plus the
 * chat's own choice when the list lacks it (a server that did not answer, a model since removed).
 *
 * One element for the view's lifetime: its options change in place, so a re-render of the header
 * never takes the focus from it. Shown only when there is a choice (the host listed models, or the
 * chat has one); the local agent has none.
 */
import type { SessionRecord } from '../../src/core/events';
import type { ModelOption } from '../../src/protocol/messages';
import { h } from '../dom';

/** The value of the "Provider default" option: the chat has no model of its own. */
export const DEFAULT_MODEL_VALUE = '';

/** What the host listed for a provider (`models` message). */
export interface ListedModels {
  readonly provider: string;
  readonly models: readonly ModelOption[];
  readonly note?: string;
}

/** The options the picker shows for `session` and what was listed: default first, the chat's model kept. */
export function pickerOptions(session: SessionRecord, listed: ListedModels | null): ModelOption[] {
  const models = listed && listed.provider === session.provider ? [...listed.models] : [];
  const chosen = session.model ?? null;
  if (chosen && !models.some((m) => m.id === chosen)) models.push({ id: chosen, label: `${chosen} (chosen for this chat)` });
  if (models.length === 0) return [];
  return [{ id: DEFAULT_MODEL_VALUE, label: 'Provider default (settings)' }, ...models];
}

/** The header's picker (see module docstring). `onPick(model)`: the user chose a model, or null for the default. */
export class ModelPicker {
  readonly element: HTMLElement;
  private readonly select: HTMLSelectElement;
  private key = '';

  constructor(onPick: (model: string | null) => void) {
    this.select = h('select', { id: 'model-picker', class: 'model-select', title: 'The model the next turns of this chat run with' });
    this.element = h('span', { class: 'model-picker', hidden: true }, h('label', { for: 'model-picker', class: 'model-label' }, 'Model'), this.select);
    this.select.addEventListener('change', () => {
      const value = this.select.value;
      onPick(value === DEFAULT_MODEL_VALUE ? null : value);
    });
  }

  /** Shows the choice for `session` (hidden without one); `locked`: a read-only chat or a lost host, nothing can be picked. */
  render(session: SessionRecord | null, listed: ListedModels | null, locked: boolean): void {
    const options = session ? pickerOptions(session, listed) : [];
    const selected = session?.model ?? DEFAULT_MODEL_VALUE;
    const note = listed && session && listed.provider === session.provider ? listed.note ?? '' : '';
    const key = JSON.stringify([options, selected, locked, note]);
    if (key === this.key) return;
    this.key = key;
    this.element.hidden = options.length === 0;
    this.select.replaceChildren(...options.map((o) => h('option', { value: o.id }, o.label)));
    this.select.value = selected;
    this.select.disabled = locked;
    this.select.setAttribute('title', note ? `The model the next turns of this chat run with. ${note}` : 'The model the next turns of this chat run with');
  }
}
