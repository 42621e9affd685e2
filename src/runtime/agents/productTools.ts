/**
 * The tools this product offers to models it drives directly (OpenAI-compatible servers, VS Code
 * language models): `run`, `read`, `write`, as JSON-schema function definitions, and a decoder from
 * a model's tool call (name + JSON arguments) to a `ToolCall` the tool runtime executes under the
 * sandbox policy. Shape of the definitions: OpenAI's `tools: [{type:'function', function:{…}}]`.
 */
import type { ToolCall } from '../agent';

/** One tool definition: name, description for the model, JSON schema of its arguments. */
export interface ProductToolDefinition {
  readonly name: ToolCall['name'];
  readonly description: string;
  readonly parameters: {
    readonly type: 'object';
    readonly properties: Readonly<Record<string, { readonly type: 'string'; readonly description: string }>>;
    readonly required: readonly string[];
    readonly additionalProperties: false;
  };
}

/** The three tools. */
export const PRODUCT_TOOLS: readonly ProductToolDefinition[] = [
  {
    name: 'run',
    description:
      'Run a shell command in the workspace folder and return its output. Read-only commands run at once; others ask the user for approval first.',
    parameters: { type: 'object', properties: { command: { type: 'string', description: 'The shell command line.' } }, required: ['command'], additionalProperties: false },
  },
  {
    name: 'read',
    description: 'Read a text file. Paths are relative to the workspace folder; paths outside it ask the user first.',
    parameters: { type: 'object', properties: { path: { type: 'string', description: 'File path.' } }, required: ['path'], additionalProperties: false },
  },
  {
    name: 'write',
    description: 'Write a text file (creating folders). Paths outside the workspace ask the user first.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string', description: 'File path.' }, content: { type: 'string', description: 'The whole new content.' } },
      required: ['path', 'content'],
      additionalProperties: false,
    },
  },
];

/**
 * Decodes a model's tool call. `args` is the JSON text (OpenAI) or an object (VS Code LM).
 * Returns the call, or a sentence for the model saying what was wrong (sent back as the tool result).
 */
export function decodeToolCall(name: string, args: unknown): { ok: true; call: ToolCall } | { ok: false; message: string } {
  let input: unknown = args;
  if (typeof args === 'string') {
    try {
      input = args.trim() === '' ? {} : JSON.parse(args);
    } catch {
      return { ok: false, message: `The arguments of ${name} are not valid JSON.` };
    }
  }
  if (typeof input !== 'object' || input === null) return { ok: false, message: `The arguments of ${name} must be an object.` };
  const o = input as Record<string, unknown>;
  const str = (key: string) => (typeof o[key] === 'string' ? (o[key] as string) : undefined);
  switch (name) {
    case 'run': {
      const command = str('command');
      return command?.trim() ? { ok: true, call: { name: 'run', input: { command } } } : { ok: false, message: 'run needs a non-empty "command" string.' };
    }
    case 'read': {
      const path = str('path');
      return path ? { ok: true, call: { name: 'read', input: { path } } } : { ok: false, message: 'read needs a "path" string.' };
    }
    case 'write': {
      const path = str('path');
      const content = str('content');
      return path && content !== undefined ? { ok: true, call: { name: 'write', input: { path, content } } } : { ok: false, message: 'write needs "path" and "content" strings.' };
    }
    default:
      return { ok: false, message: `There is no tool named ${name}. The tools are run, read and write.` };
  }
}

/** Most characters of a tool result sent back to a model. */
export const MAX_TOOL_RESULT_CHARS = 16_000;

/**
 * The text a model receives as the result of a product tool call: the output (cut to the last
 * MAX_TOOL_RESULT_CHARS characters), the exit code, or why it did not run (denied by the user).
 */
export function toolResultText(result: import('../agent').ToolResult): string {
  const cut = (s: string) => (s.length > MAX_TOOL_RESULT_CHARS ? `…(cut)\n${s.slice(-MAX_TOOL_RESULT_CHARS)}` : s);
  switch (result.status) {
    case 'completed':
      return cut(result.output) + (result.exitCode !== undefined && result.exitCode !== null ? `\n(exit code ${result.exitCode})` : '');
    case 'failed':
      return `${cut(result.output)}\nFailed: ${result.message}`.trim();
    case 'denied':
      return `Not run: the user denied this request. ${result.message}`;
  }
}
