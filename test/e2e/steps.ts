/**
 * Building blocks of the end-to-end journeys: waiting for what a user would see, and named steps
 * that log their time and take a screenshot.
 */
import type { FrameLocator, Locator } from 'playwright-core';

/** Waits until `l` is visible. @throws Error naming `what` and the timeout (s). */
export async function visible(l: Locator, what: string, timeout: number): Promise<Locator> {
  try {
    await l.waitFor({ state: 'visible', timeout });
  } catch (e) {
    throw new Error(`not visible within ${timeout / 1000} s: ${what}${e instanceof Error ? ` (${e.message.split('\n')[0]})` : ''}`, { cause: e });
  }
  return l;
}

/**
 * The boundary cards about `text` (a command, a path) in a chat view: a card naming it, or a card
 * inside the invocation whose head names it (a card there does not repeat its invocation's subject).
 * `suffix` narrows the card selector, e.g. `:not([data-request-id="r1"])`. In document order.
 */
export function cardsAbout(frame: FrameLocator, text: string, suffix = ''): Locator {
  const q = JSON.stringify(text);
  const card = `.boundary-card[data-request-id]${suffix}`;
  return frame.locator(`${card}:has-text(${q}), .invocation:has(> .invocation-head:has-text(${q})) ${card}`);
}

/**
 * A step runner: `step(name, fn)` runs `fn`, logs `✔ name (N s)`, then `shot(name)`.
 * @throws Error `step "name": …` with the cause when `fn` fails.
 */
export function stepper(log: (m: string) => void, shot: (name: string) => Promise<void>): (name: string, fn: () => Promise<void>) => Promise<void> {
  return async (name, fn) => {
    const t = Date.now();
    try {
      await fn();
    } catch (e) {
      throw new Error(`step "${name}": ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    log(`✔ ${name} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
    await shot(name);
  };
}
