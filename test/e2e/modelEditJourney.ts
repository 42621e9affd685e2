/**
 * The model picker and edit and resend, as a user in a real workbench (issue 15), with the
 * OpenAI-compatible agent against the loopback mock (its `/models` lists two models): the header's
 * Model picker lists them; pick the second, send: the mock gets that model and the turn says it;
 * the header shot in a dark, a light and a High Contrast theme; Edit the prompt, change it, Send: a
 * new turn replaces it, the old one collapsed as edited, and the mock's history lacks the old
 * request; a file path in the reply opens the file, one leading outside the workspace is refused
 * with a sentence; after Reload Window the pick and the collapsed turn are still there.
 */
import type { FrameLocator } from 'playwright-core';
import { OpenAICompatibleMock, text } from '../mocks/openaiCompatibleMock';
import { chatFrame, newChatFromPalette, reloadWindow, waitForWorkbench } from '../harness/codeServer';
import { stepper, visible } from './steps';
import { TIMEOUTS, type JourneyContext } from './restartJourney';
import { THEMES, pickTheme } from './themeSteps';

let mock: OpenAICompatibleMock | undefined;

/** Starts the mock model server and names it in the settings. */
export async function prepareModelEditJourney(): Promise<{ settings: Record<string, unknown>; env: Record<string, string>; dispose(): Promise<void> }> {
  mock = await OpenAICompatibleMock.start();
  mock.models = ['llama3.2', 'qwen2.5-coder:7b'];
  mock.script(text('First answer.'), text('Second answer: see `src/greet.js:2` and `../outside.txt`.'));
  return {
    settings: { 'nativeAgentChats.openaiCompatible.baseUrl': mock.baseUrl, 'nativeAgentChats.openaiCompatible.model': 'llama3.2' },
    env: {},
    dispose: async () => mock?.close(),
  };
}

/** The chat completion requests the mock got: the model asked for and the user messages. */
function completions(): { model: string; users: string[] }[] {
  return (mock?.requests ?? []).filter((r) => r.url === '/v1/chat/completions').map((r) => ({
    model: String(r.body.model),
    users: (r.body.messages as { role: string; content: unknown }[]).filter((m) => m.role === 'user').map((m) => String(m.content)),
  }));
}

/** Waits until `probe` holds. @throws Error with `what`. */
async function until(what: string, probe: () => Promise<boolean>, timeout: number): Promise<void> {
  for (const deadline = Date.now() + timeout; !(await probe().catch(() => false)); await new Promise((r) => setTimeout(r, 250))) {
    if (Date.now() > deadline) throw new Error(`not seen within ${timeout / 1000} s: ${what}`);
  }
}

/** Runs the journey. @throws Error naming the failed step and what was not seen. */
export async function modelEditJourney(ctx: JourneyContext): Promise<void> {
  const { page } = ctx;
  const step = stepper(ctx.log, ctx.shot);
  const frame = (): FrameLocator => chatFrame(page);
  const picker = () => frame().locator('#model-picker');

  await step('workbench', async () => {
    await page.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(page, TIMEOUTS.workbench);
    await newChatFromPalette(page, 'OpenAI-compatible server', TIMEOUTS.ui);
    await visible(frame().locator('#composer'), 'the composer', TIMEOUTS.webview);
  });

  await step('picker-lists-models', async () => {
    await visible(picker(), 'the Model picker in the header', TIMEOUTS.ui);
    await until('the server\'s models in the picker', async () =>
      JSON.stringify(await picker().locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))) === JSON.stringify(['', 'llama3.2', 'qwen2.5-coder:7b']), TIMEOUTS.ui);
    const label = await frame().locator('label[for="model-picker"]').innerText();
    if (label.trim() !== 'Model') throw new Error(`the picker is labelled ${JSON.stringify(label)}`);
  });

  await step('picked-and-sent', async () => {
    // As a keyboard user: focus the picker, choose with the arrow keys.
    await picker().focus();
    await picker().press('ArrowDown');
    await picker().press('ArrowDown');
    await until('the pick', async () => (await picker().inputValue()) === 'qwen2.5-coder:7b', TIMEOUTS.ui);
    await page.waitForTimeout(500); // the pick is a journal write; the next turn reads it
    await frame().locator('#composer textarea').fill('list the files');
    await frame().locator('#send').click({ timeout: TIMEOUTS.ui });
    await visible(frame().locator('.message.agent', { hasText: 'First answer.' }), 'the first answer', TIMEOUTS.command);
    await visible(frame().locator('.turn-model', { hasText: 'Model: qwen2.5-coder:7b' }), 'the turn\'s model', TIMEOUTS.ui);
    const sent = completions();
    if (sent.length !== 1 || sent[0]!.model !== 'qwen2.5-coder:7b') throw new Error(`the server got ${JSON.stringify(sent)}`);
  });

  await step('header-in-themes', async () => {
    for (const theme of [THEMES[0], THEMES[1], THEMES[2]]) {
      await pickTheme(page, theme, TIMEOUTS.ui);
      await ctx.shot(`header-${theme.tag}`);
    }
    await pickTheme(page, THEMES[0], TIMEOUTS.ui);
  });

  await step('edited-and-resent', async () => {
    await (await visible(frame().locator('[data-action="edit-prompt"]'), 'Edit on the last prompt', TIMEOUTS.ui)).click();
    const input = frame().locator('#composer textarea');
    await until('the prompt in the composer', async () => (await input.inputValue()) === 'list the files', TIMEOUTS.ui);
    await visible(frame().locator('.edit-bar'), 'the bar saying the request is being edited', TIMEOUTS.ui);
    await input.fill('list the files, sorted by size');
    await frame().locator('#send').click({ timeout: TIMEOUTS.ui });
    await visible(frame().locator('.message.agent', { hasText: 'Second answer:' }), 'the second answer', TIMEOUTS.command);
    await visible(frame().locator('section.turn-replaced details.replaced-turn:not([open]) summary', { hasText: 'Edited — original request: list the files' }), 'the old turn collapsed as edited', TIMEOUTS.ui);
    await visible(frame().locator('.turn-origin', { hasText: 'Edited and sent again' }), 'the new turn\'s label', TIMEOUTS.ui);
    const second = completions()[1];
    if (!second || JSON.stringify(second.users) !== JSON.stringify(['list the files, sorted by size'])) throw new Error(`the server's second request had ${JSON.stringify(second)}`);
  });

  await step('file-links', async () => {
    await frame().locator('a.file-link[data-path="src/greet.js"][data-line="2"]').click({ timeout: TIMEOUTS.ui });
    await visible(page.locator('.part.editor .tab', { hasText: 'greet.js' }).first(), 'greet.js open in an editor tab', TIMEOUTS.ui);
    await visible(page.locator('.part.statusbar', { hasText: 'Ln 2, Col 1' }).first(), 'the cursor on line 2 of greet.js', TIMEOUTS.ui);
    await page.locator('.part.editor .tabs-container .tab', { hasText: 'list the files' }).first().click({ timeout: TIMEOUTS.ui });
    await frame().locator('a.file-link[data-path="../outside.txt"]').click({ timeout: TIMEOUTS.ui });
    await visible(frame().locator('.error-bar .error-message', { hasText: '../outside.txt is outside the workspace folder, so it was not opened.' }), 'the refusal in the error bar', TIMEOUTS.ui);
  });

  await step('after-reload', async () => {
    await reloadWindow(page, TIMEOUTS.ui, TIMEOUTS.workbench);
    await visible(frame().locator('section.turn-replaced details.replaced-turn summary'), 'the edited turn, still collapsed', TIMEOUTS.webview);
    await until('the pick, kept', async () => (await picker().inputValue()) === 'qwen2.5-coder:7b', TIMEOUTS.ui);
    await frame().locator('section.turn-replaced summary').click();
    await visible(frame().locator('section.turn-replaced details[open] .message.agent', { hasText: 'First answer.' }), 'the old turn expanded', TIMEOUTS.ui);
  });
}
