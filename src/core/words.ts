/**
 * Word helpers shared by `labels.ts` and `errorClassWords.ts` (labels.ts imports errorClassWords.ts,
 * so these live apart to keep the imports one-way): boundary kinds in words, markdown code spans,
 * one-line cuts. Pure and DOM-free; `labels.ts` re-exports them.
 */
import type { BoundaryKind } from './vocabulary';

const KIND_WORDS: Readonly<Record<BoundaryKind, string>> = {
  command: 'Run a command',
  write_outside_workspace: 'Write outside the workspace',
  read_outside_workspace: 'Read outside the workspace',
  network: 'Reach the network',
  file_change: 'Change files',
};

const KIND_VERBS: Readonly<Record<BoundaryKind, string>> = {
  command: 'run',
  write_outside_workspace: 'write',
  read_outside_workspace: 'read',
  network: 'reach',
  file_change: 'change',
};

/** What a boundary request asks for, in human words ("Run a command"). */
export function boundaryKindLabel(kind: BoundaryKind): string {
  return KIND_WORDS[kind] ?? 'Cross the sandbox';
}

/** The verb for "approval to … <subject>" ("run", "write", …). */
export function boundaryKindVerb(kind: BoundaryKind): string {
  return KIND_VERBS[kind] ?? 'do';
}

/** A markdown code span holding `text` verbatim (uses a longer fence when `text` has backticks). */
export function codeSpan(text: string): string {
  const runs = text.match(/`+/g) ?? [];
  const longest = runs.reduce((max, r) => Math.max(max, r.length), 0);
  const fence = '`'.repeat(longest + 1);
  const pad = longest > 0 || text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** Shortens `text` to one line of at most `max` characters, ending in "…" when cut. */
export function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s*\n\s*/g, ' ⏎ ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
