/**
 * How a Claude Code tool call looks in this product: the invocation summary and diff, and the sandbox
 * boundary request raised when Claude Code asks for permission (`canUseTool`).
 *
 * Mapping (tool names and input shapes from `@anthropic-ai/claude-agent-sdk/sdk-tools.d.ts`):
 * - `Bash` → `command`, subject = the command, scope `claude:Bash:<program>` (so "Allow for this
 *   session" means "this program in this chat");
 * - `Write` / `Edit` / `MultiEdit` / `NotebookEdit` → `file_change` (or `write_outside_workspace` for a
 *   path outside the workspace), subject = the path, detail = a unified diff of the change, scope
 *   `claude:Edit` (or `claude:Edit:outside:<dir>`);
 * - `Read` / `Glob` / `Grep` / `LS` → `read_outside_workspace`, scope `claude:Read:<dir>` (Claude Code
 *   asks for these only outside its working directory);
 * - `WebFetch` → `network`, scope `claude:WebFetch:<host>`; `WebSearch` → `network`, `claude:WebSearch`;
 * - anything else (MCP tools, …) → `command`, scope `claude:<tool>`.
 * Diffs are computed here from the file on disk (read-only, size-capped) before the tool runs.
 * Pure apart from reading the target file for a diff; no `vscode`.
 */
import { unifiedDiff } from '../../../core/unifiedDiff';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isInsideWorkspace } from '../../../core/sandboxPolicy';
import { programOf } from '../commandLine';
import type { BoundaryKind } from '../../../core/vocabulary';

/** What the runtime journals for one Claude Code tool call that asks for permission. */
export interface ClaudeToolView {
  /** One line for the invocation row (the command, the path, the URL, …). */
  readonly summary: string;
  /** Unified diff for file changes (also the boundary detail). */
  readonly diff?: string;
  readonly kind: BoundaryKind;
  readonly subject: string;
  readonly why: string;
  readonly scopeKey: string;
  readonly detail?: string;
}

/** What Claude Code told `canUseTool` besides the tool name and input (subset of the SDK's options). */
export interface ClaudePermissionInfo {
  readonly decisionReason?: string;
  readonly title?: string;
  readonly description?: string;
  readonly blockedPath?: string;
}

/** Tools whose permission request is a file change. */
export const CLAUDE_FILE_TOOLS: readonly string[] = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'];

/** Largest file read to build a diff, in bytes. */
const MAX_DIFF_SOURCE_BYTES = 512 * 1024;
/** Largest diff kept, in characters. */
const MAX_DIFF_CHARS = 20_000;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A path as shown to the user: relative to the workspace when inside it. */
function shown(file: string, cwd: string): string {
  const abs = path.resolve(cwd, file);
  return isInsideWorkspace(cwd, abs) ? path.relative(cwd, abs) || '.' : abs;
}

/** The one-line invocation summary of any Claude Code tool call. */
export function summarizeTool(toolName: string, input: Record<string, unknown>, cwd: string): string {
  switch (toolName) {
    case 'Bash':
      return str(input.command) || 'Bash';
    case 'Write':
    case 'Edit':
    case 'MultiEdit':
    case 'Read':
      return input.file_path ? shown(str(input.file_path), cwd) : toolName;
    case 'NotebookEdit':
      return input.notebook_path ? shown(str(input.notebook_path), cwd) : toolName;
    case 'Glob':
    case 'Grep':
      return `${toolName} ${str(input.pattern)}${input.path ? ` in ${shown(str(input.path), cwd)}` : ''}`;
    case 'LS':
      return `LS ${shown(str(input.path) || '.', cwd)}`;
    case 'WebFetch':
      return str(input.url) || 'WebFetch';
    case 'WebSearch':
      return `Search: ${str(input.query)}`;
    default: {
      const json = JSON.stringify(input);
      return json && json !== '{}' ? `${toolName} ${json.length > 120 ? `${json.slice(0, 119)}…` : json}` : toolName;
    }
  }
}

/** The invocation diff of a file-changing tool call (undefined for other tools). */
export function diffOfTool(toolName: string, input: Record<string, unknown>, cwd: string): string | undefined {
  if (!CLAUDE_FILE_TOOLS.includes(toolName)) return undefined;
  const file = str(toolName === 'NotebookEdit' ? input.notebook_path : input.file_path);
  if (!file) return undefined;
  const abs = path.resolve(cwd, file);
  const label = shown(file, cwd);
  const before = readForDiff(abs);
  let after: string;
  switch (toolName) {
    case 'Write':
      after = str(input.content);
      break;
    case 'Edit': {
      const edit = { old: str(input.old_string), new: str(input.new_string), all: input.replace_all === true };
      const applied = before === undefined ? undefined : applyEdits(before, [edit]);
      // The old text is not in the file as it is now: show the replacement itself.
      if (applied === undefined) return truncate(unifiedDiff(edit.old, edit.new, label, label));
      after = applied;
      break;
    }
    case 'MultiEdit': {
      const edits = Array.isArray(input.edits)
        ? (input.edits as Record<string, unknown>[]).map((e) => ({ old: str(e.old_string), new: str(e.new_string), all: e.replace_all === true }))
        : [];
      const applied = applyEdits(before ?? '', edits);
      if (applied === undefined) {
        return truncate(edits.map((e) => unifiedDiff(e.old, e.new, label, label)).join(''));
      }
      after = applied;
      break;
    }
    default: // NotebookEdit: the cell source is what changes
      return truncate(unifiedDiff('', input.edit_mode === 'delete' ? '' : str(input.new_source), `${label} (cell ${str(input.cell_id) || 'new'})`, `${label} (cell ${str(input.cell_id) || 'new'})`));
  }
  return truncate(unifiedDiff(before ?? '', after, before === undefined ? '/dev/null' : label, label));
}

/**
 * The boundary request for a permission Claude Code asks for (see module docstring).
 * @param cwd the workspace folder the agent works in (absolute).
 */
export function describeToolRequest(toolName: string, input: Record<string, unknown>, cwd: string, info: ClaudePermissionInfo = {}): ClaudeToolView {
  const summary = summarizeTool(toolName, input, cwd);
  const reason = info.decisionReason?.trim() || info.title?.trim();
  const because = (fallback: string) => reason || fallback;
  if (toolName === 'Bash') {
    const command = str(input.command);
    const description = str(input.description).trim();
    return {
      summary, kind: 'command', subject: command, scopeKey: `claude:Bash:${programOf(command)}`,
      why: because(`Claude Code wants to run a shell command${description ? ` (${description})` : ''}.`),
      ...(info.blockedPath ? { detail: `It touches ${info.blockedPath}, outside the folders Claude Code may use without asking.` } : {}),
    };
  }
  if (CLAUDE_FILE_TOOLS.includes(toolName)) {
    const file = str(toolName === 'NotebookEdit' ? input.notebook_path : input.file_path);
    const abs = path.resolve(cwd, file);
    const inside = isInsideWorkspace(cwd, abs);
    const diff = diffOfTool(toolName, input, cwd);
    const verb = toolName === 'Write' ? (fs.existsSync(abs) ? 'overwrite' : 'create') : 'edit';
    return {
      summary, ...(diff ? { diff, detail: diff } : {}),
      kind: inside ? 'file_change' : 'write_outside_workspace',
      subject: abs,
      scopeKey: inside ? 'claude:Edit' : `claude:Edit:outside:${path.dirname(abs)}`,
      why: because(`Claude Code wants to ${verb} ${inside ? shown(file, cwd) : `${abs}, outside the workspace folder`}.`),
    };
  }
  if (['Read', 'Glob', 'Grep', 'LS'].includes(toolName)) {
    const target = path.resolve(cwd, str(toolName === 'Read' ? input.file_path : input.path) || info.blockedPath || '.');
    const dir = toolName === 'Read' ? path.dirname(target) : target;
    return {
      summary, kind: 'read_outside_workspace', subject: target, scopeKey: `claude:Read:${dir}`,
      why: because(`Claude Code wants to read ${target}, outside the workspace folder.`),
    };
  }
  if (toolName === 'WebFetch') {
    const url = str(input.url);
    let host = url;
    try {
      host = new URL(url).host;
    } catch {
      // keep the raw text
    }
    return {
      summary, kind: 'network', subject: url, scopeKey: `claude:WebFetch:${host}`,
      why: because(`Claude Code wants to fetch ${url}.`),
      ...(str(input.prompt) ? { detail: str(input.prompt) } : {}),
    };
  }
  if (toolName === 'WebSearch') {
    return { summary, kind: 'network', subject: str(input.query), scopeKey: 'claude:WebSearch', why: because('Claude Code wants to search the web.') };
  }
  return {
    summary, kind: 'command', subject: summary, scopeKey: `claude:${toolName}`,
    why: because(`Claude Code wants to use the tool ${toolName}${info.description ? ` (${info.description})` : ''}.`),
    detail: JSON.stringify(input, null, 2).slice(0, 4000),
  };
}

function readForDiff(file: string): string | undefined {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile() || stat.size > MAX_DIFF_SOURCE_BYTES) return undefined;
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Applies string replacements in order; undefined when an old text is missing. */
function applyEdits(text: string, edits: readonly { old: string; new: string; all: boolean }[]): string | undefined {
  let out = text;
  for (const e of edits) {
    if (e.old === '') {
      if (out !== '') return undefined;
      out = e.new;
      continue;
    }
    if (!out.includes(e.old)) return undefined;
    out = e.all ? out.split(e.old).join(e.new) : out.replace(e.old, () => e.new);
  }
  return out;
}

function truncate(diff: string): string {
  return diff.length > MAX_DIFF_CHARS ? `${diff.slice(0, MAX_DIFF_CHARS)}\n… (diff truncated)\n` : diff;
}

export { programOf, unifiedDiff };
