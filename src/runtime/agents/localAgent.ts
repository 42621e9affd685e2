/**
 * The built-in offline local agent: the default provider, so the product works with no account and
 * no network. Deterministic: the same prompt gives the same reply. It streams its reply in chunks
 * and uses the product's own tool runtime (so its commands and file access obey the sandbox policy).
 *
 * It understands:
 *   help                      what it can do
 *   run <shell command>       runs the command in the workspace folder (with a timeout)
 *   read <path>               reads a file
 *   write <path> + ```block``` writes the fenced block to the file
 * Anything else gets a short reply that points at those. What the user attached it lists first
 * (`receivedWords`): it has no model to read them.
 *
 * Delivery: the agent runs in this process, so it has the prompt as soon as `runTurn` starts
 * handling it; it acknowledges it there (`ctx.promptDelivered`), before any text or tool call.
 */
import { attachmentLabel, type AgentAttachment } from '../../core/attachments';
import type { FileNews } from '../../core/fileNews';
import type { Agent, AgentTurnContext, AgentTurnOutcome, AgentTurnRequest, ToolResult } from '../agent';

/** Parsed intent of a prompt. */
export type LocalIntent =
  | { readonly type: 'help' }
  | { readonly type: 'run'; readonly command: string }
  | { readonly type: 'read'; readonly path: string }
  | { readonly type: 'write'; readonly path: string; readonly content: string }
  | { readonly type: 'write_without_block'; readonly path: string }
  | { readonly type: 'chat'; readonly text: string };

/** Parses a prompt into an intent (pure). */
export function parseLocalPrompt(prompt: string): LocalIntent {
  const text = prompt.trim();
  const [first = '', ...rest] = text.split('\n');
  const match = /^(\w+)\s*(.*)$/.exec(first.trim());
  const verb = match?.[1]?.toLowerCase();
  const arg = (match?.[2] ?? '').trim();
  if (verb === 'help' || text === '?') return { type: 'help' };
  if (verb === 'run' && arg) return { type: 'run', command: [arg, ...rest].join('\n').trim() };
  if (verb === 'read' && arg) return { type: 'read', path: unquote(arg) };
  if (verb === 'write' && arg) {
    const block = /```[^\n]*\n([\s\S]*?)\n?```/.exec(rest.join('\n'));
    if (!block) return { type: 'write_without_block', path: unquote(arg) };
    return { type: 'write', path: unquote(arg), content: block[1]! + '\n' };
  }
  return { type: 'chat', text };
}

function unquote(s: string): string {
  const m = /^(['"`])(.*)\1$/.exec(s);
  return m ? m[2]! : s;
}

/** Help text (markdown). */
export const LOCAL_AGENT_HELP = [
  "I'm the **local agent**: I run on your machine with no account and no network.",
  '',
  '- `run <command>` runs a shell command in the workspace folder. Read-only commands (`ls`, `cat`, `grep`, …) run at once; anything else, git included, asks for your approval first.',
  '- `read <path>` shows a file. Files outside the workspace need your approval.',
  '- `write <path>` followed by a fenced code block writes that block to the file.',
  '- `help` shows this.',
].join('\n');

/** Options of the local agent. */
export interface LocalAgentOptions {
  /** Delay between streamed chunks, in ms (0 in unit tests). */
  readonly chunkDelayMs?: number;
}

/** The local agent (see module docstring). */
export class LocalAgent implements Agent {
  readonly provider = 'local' as const;
  readonly label = 'Local agent';

  constructor(private readonly options: LocalAgentOptions = {}) {}

  async runTurn(request: AgentTurnRequest, ctx: AgentTurnContext): Promise<AgentTurnOutcome> {
    // In-process: handing the prompt over is the delivery (see module docstring).
    void ctx.promptDelivered();
    const say = (text: string) => this.stream(text, ctx);
    // This agent keeps no progress of its own: Continue runs the prompt again from its start.
    const rerun = request.origin === 'continue';
    if (rerun) await say("The restart interrupted this reply and I can't tell how far it got, so I'm starting it over.\n\n");
    if (request.origin === 'retry') await say('Trying that again.\n\n');
    // What undos and redos left changed is the runtime's news, not the user's words: said, not parsed.
    if (request.fileNews) await say(fileNewsWords(request.fileNews));
    if (request.attachments?.length) await say(receivedWords(request.attachments));
    const intent = parseLocalPrompt(request.prompt);
    switch (intent.type) {
      case 'help':
        await say(LOCAL_AGENT_HELP);
        break;
      case 'run': {
        await say(rerun
          ? `I'll run ${inlineCode(intent.command)} again. It may have run already: if it needs your approval, I'll ask again first.\n\n`
          : `I'll run ${inlineCode(intent.command)}.\n\n`);
        const result = await ctx.tools.run({ name: 'run', input: { command: intent.command }, rerun });
        await say(describeResult(result, 'The command', 'The command was not run'));
        break;
      }
      case 'read': {
        await say(`Reading ${inlineCode(intent.path)}.\n\n`);
        const result = await ctx.tools.run({ name: 'read', input: { path: intent.path } });
        await say(result.status === 'completed' ? `It has ${plural(countLines(result.output), 'line')}.` : describeResult(result, 'Reading', 'Nothing was read'));
        break;
      }
      case 'write': {
        await say(`Writing ${inlineCode(intent.path)}${rerun ? ' again' : ''}.\n\n`);
        const result = await ctx.tools.run({ name: 'write', input: { path: intent.path, content: intent.content }, rerun });
        await say(result.status === 'completed' ? 'Done.' : describeResult(result, 'Writing', 'Nothing was written'));
        break;
      }
      case 'write_without_block':
        await say(`To write ${inlineCode(intent.path)}, put the content in a fenced code block on the lines after ${inlineCode(`write ${intent.path}`)}.`);
        break;
      case 'chat':
        await say(
          `I'm the offline local agent, so I don't understand free-form requests. ` +
            `Try \`run ls\`, \`read README.md\`, or \`help\`.`,
        );
        break;
    }
    return { status: 'completed' };
  }

  private async stream(text: string, ctx: AgentTurnContext): Promise<void> {
    const delay = this.options.chunkDelayMs ?? 0;
    for (const chunk of text.match(/\S+\s*|\s+/g) ?? []) {
      if (ctx.signal.aborted) return;
      ctx.text(chunk);
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
    }
  }
}

/**
 * A markdown code span that shows `text` exactly, whatever backticks it holds: fenced with one more
 * backtick than its longest run, padded with spaces when it starts or ends with a backtick
 * (CommonMark's code span rules), so user text never breaks out into markdown or HTML.
 */
export function inlineCode(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text.replace(/\n/g, ' ')}${pad}${fence}`;
}

/**
 * What the local agent says it received: one bullet per attachment with its label, its lines and
 * bytes of text, and the cut note (it reads nothing else of them: it is offline and scripted).
 */
export function receivedWords(attachments: readonly AgentAttachment[]): string {
  const items = attachments.map((a) => {
    const bytes = new TextEncoder().encode(a.text).byteLength;
    const cut = a.cutNote ? ` (${a.cutNote})` : '';
    return `- ${a.kind} ${inlineCode(attachmentLabel(a))}: ${plural(countLines(a.text), 'line')}, ${plural(bytes, 'byte')}${cut}`;
  });
  return `I received ${plural(attachments.length, 'attachment')}:\n${items.join('\n')}\n\n`;
}

/**
 * What the local agent says of the undos and redos since its last reply, in the first person to the
 * user who made them ("Since my last reply, you undid my changes to `a.txt`."), ending in a blank
 * line; '' when `news` has nothing. Users read the note worded for a model, quoted, as a leaked
 * system message.
 */
export function fileNewsWords(news: FileNews): string {
  const names = (paths: readonly string[]) => {
    const quoted = paths.map(inlineCode);
    return quoted.length > 1 ? `${quoted.slice(0, -1).join(', ')} and ${quoted[quoted.length - 1]}` : quoted.join('');
  };
  const acts = [
    news.undone.length ? `you undid my changes to ${names(news.undone)}` : '',
    news.redone.length ? `you redid my changes to ${names(news.redone)}` : '',
  ].filter(Boolean);
  const kept = news.kept.length
    ? `${names(news.kept)} ${news.kept.length === 1 ? 'stays as you had changed it' : 'stay as you had changed them'}`
    : '';
  if (!acts.length && !kept) return '';
  const sentence = acts.length ? `Since my last reply, ${acts.join(', and ')}.${kept ? ` ${capitalized(kept)}.` : ''}` : `Since my last reply, ${kept}.`;
  return `${sentence}\n\n`;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function countLines(text: string): number {
  return text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/**
 * The agent's closing sentence about a tool result: `what` names the action ("The command",
 * "Writing"), `notDone` says what did not happen when the request was denied ("Nothing was written").
 */
export function describeResult(result: ToolResult, what: string, notDone: string): string {
  switch (result.status) {
    case 'completed':
      return `${what} finished${result.exitCode === 0 ? ' (exit code 0)' : ''}.`;
    case 'failed':
      return `${what} failed: ${result.message.replace(/\.$/, '')}.`;
    case 'denied':
      return `${notDone}: the request was denied.`;
  }
}
