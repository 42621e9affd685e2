/**
 * Turns the names of this extension's settings in a message (`nativeAgentChats.claude.executablePath`)
 * into links that open the Settings editor at that setting: a user told to change a setting had to
 * find it by hand. A link is `a.setting-link[data-action="open-setting"][data-setting]`; the view
 * posts `openSetting` on a click, and the host opens only settings this extension contributes.
 */
import { SETTING_ID_IN_TEXT, SETTING_ID_SHAPE } from '../src/core/settingIds';
import { linkTextUnder } from './textLinks';

/**
 * Replaces every setting name in the text under `root` (code spans included, existing links left
 * alone) by a link. Returns how many links it made.
 */
export function linkSettings(root: Node): number {
  return linkTextUnder(root, SETTING_ID_IN_TEXT, (m) => settingLink(m[0]), (el) => (el.tagName === 'A' ? 0 : undefined));
}

/** One link to the setting `id`, showing the id. */
function settingLink(id: string): HTMLElement {
  const a = document.createElement('a');
  a.className = 'setting-link';
  a.setAttribute('href', '#');
  a.setAttribute('data-action', 'open-setting');
  a.setAttribute('data-setting', id);
  a.setAttribute('title', 'Open this setting in the Settings editor');
  a.textContent = id;
  return a;
}

/**
 * The setting a click on `target` asks to open: the id of the setting link it is in, if that id is
 * shaped like one of this extension's settings; else null.
 */
export function settingToOpen(target: Element | null): string | null {
  const id = target?.closest<HTMLElement>('a.setting-link[data-action="open-setting"]')?.dataset.setting;
  return id && SETTING_ID_SHAPE.test(id) ? id : null;
}
