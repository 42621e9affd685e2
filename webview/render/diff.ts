/** Renders a unified diff as `<pre class="diff">` with one classed span per line (text only, never HTML). */
import { h } from '../dom';
import { fileLink } from '../fileLinks';

/** The class of a diff line: added, removed, hunk header, file header or context. */
function lineClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ') || line.startsWith('index ')) return 'diff-file';
  if (line.startsWith('@@')) return 'diff-hunk';
  if (line.startsWith('+')) return 'diff-add';
  if (line.startsWith('-')) return 'diff-del';
  return 'diff-context';
}

/**
 * A `<pre class="diff">` for a unified diff. The file headers' paths (`--- a/x`, `+++ b/x`) link to
 * the file, and each hunk header to the new file at its first line (`fileLinks.ts`).
 */
export function renderDiff(diff: string): HTMLPreElement {
  const pre = h('pre', { class: 'diff' });
  const lines = diff.replace(/\n$/, '').split('\n');
  let file: string | null = null;
  for (const line of lines) {
    const cls = lineClass(line);
    const header = /^(\+\+\+|---) (?:[ab]\/)?(.+)$/.exec(line);
    const path = header && header[2] !== '/dev/null' ? header[2]!.replace(/\t.*$/, '') : null;
    if (header && header[1] === '+++' && path) file = path;
    const hunk = cls === 'diff-hunk' ? /^@@ -\d+(?:,\d+)? \+(\d+)/.exec(line) : null;
    if (path && header) {
      pre.appendChild(h('span', { class: cls }, `${header[1]} `, fileLink({ path }, line.slice(header[1]!.length + 1)), '\n'));
    } else if (hunk && file && Number(hunk[1]) >= 1) {
      pre.appendChild(h('span', { class: cls }, fileLink({ path: file, line: Number(hunk[1]) }, line), '\n'));
    } else {
      pre.appendChild(h('span', { class: cls }, `${line}\n`));
    }
  }
  return pre;
}
