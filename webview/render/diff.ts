/** Renders a unified diff as `<pre class="diff">` with one classed span per line (text only, never HTML). */
import { h } from '../dom';

/** The class of a diff line: added, removed, hunk header, file header or context. */
function lineClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ') || line.startsWith('index ')) return 'diff-file';
  if (line.startsWith('@@')) return 'diff-hunk';
  if (line.startsWith('+')) return 'diff-add';
  if (line.startsWith('-')) return 'diff-del';
  return 'diff-context';
}

/** A `<pre class="diff">` for a unified diff. */
export function renderDiff(diff: string): HTMLPreElement {
  const pre = h('pre', { class: 'diff' });
  const lines = diff.replace(/\n$/, '').split('\n');
  for (const line of lines) pre.appendChild(h('span', { class: lineClass(line) }, `${line}\n`));
  return pre;
}
