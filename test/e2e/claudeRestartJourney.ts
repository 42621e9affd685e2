/**
 * The restart journey with real agents (also used for the VS Code language model provider with a
 * scripted test model): a Claude chat (the real Claude Code CLI through the Claude
 * Agent SDK, talking to a scripted Anthropic API mock on 127.0.0.1) asks to run a command; the card
 * shows; Developer: Reload Window; the restart banner names the command; Retry resumes the Claude
 * session and the agent asks again; Allow once; the tool result appears.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cardsAbout, stepper, visible } from './steps';
import { chatFrame, newChatFromPalette, repoRoot, reloadWindow, waitForWorkbench } from '../harness/codeServer';
import { startAnthropicMock, type AnthropicMock } from '../mocks/anthropicMock';
import { TIMEOUTS, type JourneyContext } from './restartJourney';

/** Needs approval in Claude Code's default permission mode. */
export const CLAUDE_COMMAND = 'touch claude-proof.txt && echo claude-made-it';

/** What the journey needs before code-server starts: the mock, and settings and env pointing at it. */
export interface ClaudeJourneySetup {
  readonly mock: AnthropicMock;
  readonly settings: Record<string, unknown>;
  readonly env: Record<string, string>;
}

/** Starts the scripted Anthropic mock: ask to run the command (twice: first run and the Retry), then finish. */
export async function prepareClaudeJourney(): Promise<ClaudeJourneySetup> {
  const bash = { name: 'Bash', input: { command: CLAUDE_COMMAND, description: 'Make the proof file' } };
  const mock = await startAnthropicMock([
    { text: ['I will make the proof file.'], toolUses: [bash] },
    { text: ['Trying again.'], toolUses: [bash] },
    { text: ['Done: the command printed claude-made-it.'] },
  ]);
  const cli = path.join(repoRoot(), 'node_modules', '@anthropic-ai', 'claude-agent-sdk-linux-x64', 'claude');
  if (!fs.existsSync(cli)) throw new Error(`the Claude Code CLI is missing at ${cli} (npm ci installs it)`);
  return {
    mock,
    settings: { 'nativeAgentChats.claude.executablePath': cli, 'nativeAgentChats.claude.baseUrl': mock.url },
    env: { ANTHROPIC_API_KEY: 'test-key', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_TELEMETRY: '1', DISABLE_AUTOUPDATER: '1' },
  };
}


/** What differs between agents in the restart journey. */
export interface AgentJourneyOptions {
  /** Row label in the agent picker, e.g. "Claude". */
  readonly agent: string;
  /** The prompt typed. */
  readonly prompt: string;
  /** The command the agent asks to run (shown on the card and the banner). */
  readonly command: string;
  /** A file the command creates in the workspace (must not exist before approval). */
  readonly proofFile: string;
  /** Text of the tool result, and of the agent's final reply. */
  readonly output: string;
  readonly finalReply: string;
}

/** The Claude journey. @throws Error naming the failed step. */
export function claudeRestartJourney(ctx: JourneyContext): Promise<void> {
  return agentRestartJourney(ctx, {
    agent: 'Claude',
    prompt: 'Make the proof file, please.',
    command: CLAUDE_COMMAND,
    proofFile: 'claude-proof.txt',
    output: 'claude-made-it',
    finalReply: 'Done: the command printed claude-made-it.',
  });
}

/** The restart journey for any agent whose approvals become cards. @throws Error naming the failed step. */
export async function agentRestartJourney(ctx: JourneyContext, o: AgentJourneyOptions): Promise<void> {
  const { page } = ctx;
  const step = stepper(ctx.log, ctx.shot);
  const CLAUDE_COMMAND = o.command;
  const cards = () => cardsAbout(chatFrame(page), CLAUDE_COMMAND);

  await step('workbench', async () => {
    await page.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(page, TIMEOUTS.workbench);
  });

  let firstRequest = '';
  await step('agent-card', async () => {
    await newChatFromPalette(page, o.agent, TIMEOUTS.ui);
    const input = chatFrame(page).locator('#composer textarea');
    await visible(input, '#composer textarea', TIMEOUTS.webview);
    await input.fill(o.prompt);
    await chatFrame(page).locator('#send').click({ timeout: TIMEOUTS.ui });
    const card = cards().last();
    await visible(card.locator('[data-decision="allow_once"]'), `a pending card naming "${CLAUDE_COMMAND}"`, TIMEOUTS.command);
    firstRequest = (await card.getAttribute('data-request-id')) ?? '';
    if (fs.existsSync(path.join(ctx.workspace, o.proofFile))) throw new Error('the proof file exists before approval');
  });

  await step('reloaded', async () => {
    await reloadWindow(page, TIMEOUTS.ui, TIMEOUTS.workbench);
  });

  await step('restart-banner', async () => {
    await visible(chatFrame(page).locator('.restart-banner', { hasText: CLAUDE_COMMAND }).first(), `a .restart-banner naming "${CLAUDE_COMMAND}"`, TIMEOUTS.webview);
  });

  await step('retried-card', async () => {
    await chatFrame(page).locator('.restart-banner [data-action="retry"]').first().click({ timeout: TIMEOUTS.ui });
    const fresh = cardsAbout(chatFrame(page), CLAUDE_COMMAND, `:not([data-request-id="${firstRequest}"])`).last();
    await visible(fresh.locator('[data-decision="allow_once"]'), 'a new pending card after Retry', TIMEOUTS.command);
  });

  await step('tool-result', async () => {
    const fresh = cardsAbout(chatFrame(page), CLAUDE_COMMAND, `:not([data-request-id="${firstRequest}"])`).last();
    await fresh.locator('[data-decision="allow_once"]').click({ timeout: TIMEOUTS.ui });
    await visible(chatFrame(page).locator('pre.output', { hasText: o.output }).first(), `the tool result "${o.output}"`, TIMEOUTS.command);
    await visible(chatFrame(page).locator('.message.agent', { hasText: o.finalReply }).first(), "the agent's final reply", TIMEOUTS.command);
    if (!fs.existsSync(path.join(ctx.workspace, o.proofFile))) throw new Error('the approved command did not create the proof file');
  });
}

/**
 * Continue after a plain restart, for the VS Code language model provider: the reply is cut by
 * Developer: Reload Window while it streams; the turn comes back as app_restarted with Continue;
 * Continue sends the earlier history, which the scripted model echoes back.
 */
export async function lmContinueJourney(ctx: JourneyContext): Promise<void> {
  const { page } = ctx;
  const step = stepper(ctx.log, ctx.shot);
  const prompt = 'tell me slowly about restarts';
  await step('workbench', async () => {
    await page.goto(ctx.url, { timeout: TIMEOUTS.workbench });
    await waitForWorkbench(page, TIMEOUTS.workbench);
  });
  await step('streaming', async () => {
    await newChatFromPalette(page, 'VS Code language model', TIMEOUTS.ui);
    const input = chatFrame(page).locator('#composer textarea');
    await visible(input, '#composer textarea', TIMEOUTS.webview);
    await input.fill(prompt);
    await chatFrame(page).locator('#send').click({ timeout: TIMEOUTS.ui });
    await visible(chatFrame(page).locator('.message.agent', { hasText: 'word5' }).first(), 'the reply streaming', TIMEOUTS.command);
  });
  await step('reloaded', async () => {
    await reloadWindow(page, TIMEOUTS.ui, TIMEOUTS.workbench);
  });
  await step('continue-banner', async () => {
    await visible(chatFrame(page).locator('.restart-banner [data-action="continue"]').first(), 'a restart banner with Continue', TIMEOUTS.webview);
  });
  await step('continued', async () => {
    await chatFrame(page).locator('.restart-banner [data-action="continue"]').first().click({ timeout: TIMEOUTS.ui });
    await visible(chatFrame(page).locator('.message.agent', { hasText: `you asked: ${prompt}` }).first(), 'the model answering with the earlier history', TIMEOUTS.command);
  });
}
