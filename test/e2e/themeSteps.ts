/**
 * The chat in each of VS Code's four built-in theme kinds: switches the color theme as a user does
 * (palette → "Preferences: Color Theme"), takes a screenshot, and measures, in the chat webview, the
 * contrast of inline code, a run header's command, a read header's file path, a restart banner's
 * code and a boundary card against their effective background (WCAG ratio, text color blended over
 * the first opaque background up the tree). In High Contrast Light these were white on light grey.
 * `measureMark` measures a search mark (a CSS Custom Highlight) against the text it marks.
 */
import type { FrameLocator, Page } from 'playwright-core';
import { chatFrame } from '../harness/codeServer';
import { visible } from './steps';

/** A color theme to pick: see `THEMES`. */
export interface Theme {
  readonly name: string;
  readonly id: string;
  readonly bodyClass: string;
  readonly tag: string;
}

/**
 * The built-in themes, one per theme kind: the label the theme picker shows (VS Code 1.139), its
 * `workbench.colorTheme` id, and the class VS Code gives the webview's body for it.
 */
export const THEMES = [
  { name: 'Dark Modern', id: 'Dark Modern', bodyClass: 'vscode-dark', tag: 'dark' },
  { name: 'Light Modern', id: 'Light Modern', bodyClass: 'vscode-light', tag: 'light' },
  { name: 'Dark High Contrast', id: 'Default High Contrast', bodyClass: 'vscode-high-contrast', tag: 'hc-dark' },
  { name: 'Light High Contrast', id: 'Default High Contrast Light', bodyClass: 'vscode-high-contrast-light', tag: 'hc-light' },
] as const satisfies readonly Theme[];

/**
 * VS Code 1.139's own default themes (a fresh profile opens in one of them, after the browser's
 * light or dark preference).
 */
export const DEFAULT_THEMES = [
  { name: 'Dark 2026', id: 'Dark 2026', bodyClass: 'vscode-dark', tag: 'dark-2026' },
  { name: 'Light 2026', id: 'Light 2026', bodyClass: 'vscode-light', tag: 'light-2026' },
] as const satisfies readonly Theme[];

/** Lowest contrast ratio accepted for text (WCAG AA for normal text). */
export const MIN_CONTRAST = 4.5;

/** What is measured: a name and the selector of the first element to measure. */
export const MEASURED: readonly (readonly [string, string])[] = [
  ['inline code in a reply', '.message.agent :not(pre) > code'],
  ['command in a run header', '.invocation-head:has(.tool:text-is("run")) .summary'],
  ['file path in a read header', '.invocation-head:has(.tool:text-is("read")) .summary'],
  ['code in a restart banner', '.restart-banner .banner-body code'],
  ['boundary card kind', '.boundary-card .boundary-kind'],
  ['boundary card outcome', '.boundary-card .boundary-outcome'],
  ['command output', 'pre.output'],
];

/** One measurement. */
export interface Contrast {
  readonly what: string;
  readonly color: string;
  readonly background: string;
  readonly ratio: number;
}

/**
 * Picks `theme` in the color theme quick pick and waits until the chat webview's body says so.
 * @throws Error when the theme row or the webview's theme class does not show within `timeoutMs`.
 */
export async function pickTheme(page: Page, theme: Theme, timeoutMs: number): Promise<void> {
  // Not runCommand: "Preferences: Browse Color Themes in Marketplace" is the top row for this label.
  const input = page.locator('.quick-input-widget input.input');
  if (await input.isVisible()) {
    await page.keyboard.press('Escape');
    await input.waitFor({ state: 'hidden', timeout: timeoutMs });
  }
  // The keyboard focus may be in the chat webview: click the status bar's empty middle first.
  const box = await page.locator('.monaco-workbench .part.statusbar').boundingBox({ timeout: timeoutMs });
  if (box) await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await page.keyboard.press('F1');
  await visible(input, 'the command palette', timeoutMs);
  await input.fill('>Preferences: Color Theme');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: /^Preferences: Color Theme/ }).first().click({ timeout: timeoutMs });
  await page.waitForFunction(() => {
    const i = document.querySelector<HTMLInputElement>('.quick-input-widget input.input');
    return !!i && i.offsetParent !== null && !i.value.startsWith('>');
  }, undefined, { timeout: timeoutMs });
  await input.fill(theme.name);
  // A label can match several rows ("Dark Modern" and "Dark 2026"): move down to the exact one.
  for (let i = 0; ; i++) {
    const focused = page.locator('.quick-input-list .monaco-list-row.focused .label-name').first();
    await visible(focused, 'a focused row in the theme picker', timeoutMs);
    if ((await focused.innerText()).trim() === theme.name) break;
    if (i > 6) throw new Error(`no row "${theme.name}" in the theme picker`);
    await input.press('ArrowDown');
  }
  await input.press('Enter');
  await input.waitFor({ state: 'hidden', timeout: timeoutMs });
  // (A high contrast light body also has `vscode-high-contrast`: match the class list exactly enough.)
  await chatFrame(page).locator(`body.${theme.bodyClass}${theme.bodyClass === 'vscode-high-contrast' ? ':not(.vscode-high-contrast-light)' : ''}`).waitFor({ state: 'attached', timeout: timeoutMs });
}

/**
 * Measures the contrast of each `MEASURED` element in the chat webview `frame`.
 * @throws Error naming the elements that are missing.
 */
export async function measureContrast(frame: FrameLocator): Promise<Contrast[]> {
  const results: Contrast[] = [];
  const missing: string[] = [];
  for (const [what, selector] of MEASURED) {
    const el = frame.locator(selector).first();
    if ((await el.count()) === 0) {
      missing.push(`${what} (${selector})`);
      continue;
    }
    results.push({ what, ...(await el.evaluate(contrastOf)) });
  }
  if (missing.length) throw new Error(`not in the chat: ${missing.join(', ')}`);
  return results;
}

/** Runs in the webview: the element's text color and effective background, and their contrast ratio. */
function contrastOf(el: Element): { color: string; background: string; ratio: number } {
  type Rgba = [number, number, number, number];
  const parse = (css: string): Rgba => {
    const m = /rgba?\(([^)]+)\)/.exec(css);
    if (!m) return [0, 0, 0, 0];
    const p = m[1]!.split(/[\s,/]+/).filter(Boolean).map(Number);
    return [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0, p[3] ?? 1];
  };
  const over = (top: Rgba, below: Rgba): Rgba => {
    const a = top[3] + below[3] * (1 - top[3]);
    if (a === 0) return [0, 0, 0, 0];
    const mix = (i: number) => (top[i]! * top[3] + below[i]! * below[3] * (1 - top[3])) / a;
    return [mix(0), mix(1), mix(2), a];
  };
  // Backgrounds from the element up to the first opaque one, blended bottom-up.
  const layers: Rgba[] = [];
  for (let node: Element | null = el; node; node = node.parentElement) {
    const bg = parse(getComputedStyle(node).backgroundColor);
    if (bg[3] > 0) layers.push(bg);
    if (bg[3] >= 1) break;
  }
  let background: Rgba = [255, 255, 255, 1];
  for (const layer of layers.reverse()) background = over(layer, background);
  const color = over(parse(getComputedStyle(el).color), background);
  const luminance = (c: Rgba) => {
    const lin = (v: number) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  };
  const [l1, l2] = [luminance(color), luminance(background)].sort((a, b) => b - a) as [number, number];
  const css = (c: Rgba) => `rgb(${c.slice(0, 3).map((v) => Math.round(v)).join(', ')})`;
  return { color: css(color), background: css(background), ratio: Math.round(((l1 + 0.05) / (l2 + 0.05)) * 100) / 100 };
}

/**
 * The theme step of a journey: each theme in turn, a screenshot `themes-<tag>`, and the contrast
 * check. Leaves the first theme (Dark Modern) on at the end.
 * @throws Error listing every element below `MIN_CONTRAST`, per theme.
 */
export async function checkThemes(page: Page, shot: (name: string) => Promise<void>, log: (m: string) => void, timeoutMs: number): Promise<void> {
  const failures: string[] = [];
  for (const theme of THEMES) {
    await pickTheme(page, theme, timeoutMs);
    // The webview restyles after the class changes: let it settle before measuring.
    await page.waitForTimeout(300);
    const measured = await measureContrast(chatFrame(page));
    await shot(`theme-${theme.tag}`);
    log(`  ${theme.name}: ${measured.map((m) => `${m.what} ${m.ratio}`).join(', ')}`);
    for (const m of measured) {
      if (m.ratio < MIN_CONTRAST) failures.push(`${theme.name}: ${m.what} is ${m.color} on ${m.background} (contrast ${m.ratio} < ${MIN_CONTRAST})`);
    }
  }
  await pickTheme(page, THEMES[0], timeoutMs);
  if (failures.length) throw new Error(`unreadable text:\n  ${failures.join('\n  ')}`);
}

/** Lowest luminance contrast between a search mark and the background it is painted on. */
export const MIN_MARK_CONTRAST = 1.3;

/** How a search mark shows: its painted background against the text's, and the text on it. */
export interface MarkContrast {
  readonly mark: string;
  readonly background: string;
  /** Luminance contrast of the mark against the background around it (1 = invisible). */
  readonly markRatio: number;
  /** WCAG contrast of the marked text on the mark. */
  readonly textRatio: number;
}

/**
 * Measures the CSS Custom Highlight `name` over the element holding its first range, in the chat
 * webview `frame` (`getComputedStyle(el, '::highlight(name)')`, blended over the element's
 * effective background). Undefined when nothing is marked.
 */
export function measureMark(frame: FrameLocator, name: string): Promise<MarkContrast | undefined> {
  return frame.locator('body').evaluate(markOf, name);
}

/** Runs in the webview: see `measureMark`. Self-contained (serialized into the page). */
function markOf(_: Element, name: string): MarkContrast | undefined {
  type Rgba = [number, number, number, number];
  const registry = (window as unknown as { CSS: { highlights?: Map<string, Iterable<Range>> } }).CSS.highlights;
  const first = [...(registry?.get(name) ?? [])][0];
  const node = first?.startContainer;
  const el = node ? (node.nodeType === 1 ? node as Element : node.parentElement) : null;
  if (!el) return undefined;
  // `rgb(r, g, b[, a])` or, for relative colors, `color(srgb r g b[ / a])` with channels in 0..1.
  const parse = (css: string): Rgba => {
    const srgb = /color\(srgb ([^)]+)\)/.exec(css);
    if (srgb) {
      const p = srgb[1]!.split(/[\s/]+/).filter(Boolean).map(Number);
      return [(p[0] ?? 0) * 255, (p[1] ?? 0) * 255, (p[2] ?? 0) * 255, p[3] ?? 1];
    }
    const m = /rgba?\(([^)]+)\)/.exec(css);
    if (!m) return [0, 0, 0, 0];
    const p = m[1]!.split(/[\s,/]+/).filter(Boolean).map(Number);
    return [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0, p[3] ?? 1];
  };
  const over = (top: Rgba, below: Rgba): Rgba => {
    const a = top[3] + below[3] * (1 - top[3]);
    if (a === 0) return [0, 0, 0, 0];
    const mix = (i: number) => (top[i]! * top[3] + below[i]! * below[3] * (1 - top[3])) / a;
    return [mix(0), mix(1), mix(2), a];
  };
  const layers: Rgba[] = [];
  for (let n: Element | null = el; n; n = n.parentElement) {
    const bg = parse(getComputedStyle(n).backgroundColor);
    if (bg[3] > 0) layers.push(bg);
    if (bg[3] >= 1) break;
  }
  let background: Rgba = [255, 255, 255, 1];
  for (const layer of layers.reverse()) background = over(layer, background);
  const style = getComputedStyle(el, `::highlight(${name})`);
  const mark = over(parse(style.backgroundColor), background);
  const text = over(parse(style.color || getComputedStyle(el).color), mark);
  const luminance = (c: Rgba) => {
    const lin = (v: number) => {
      const s = v / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  };
  const ratio = (x: Rgba, y: Rgba) => {
    const [l1, l2] = [luminance(x), luminance(y)].sort((p, q) => q - p) as [number, number];
    return Math.round(((l1 + 0.05) / (l2 + 0.05)) * 100) / 100;
  };
  const css = (c: Rgba) => `rgb(${c.slice(0, 3).map((v) => Math.round(v)).join(', ')})`;
  return { mark: css(mark), background: css(background), markRatio: ratio(mark, background), textRatio: ratio(text, mark) };
}
