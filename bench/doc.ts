/**
 * docs/BENCHMARKS.md, rendered from bench/results.json alone (`renderDoc`): every figure the doc
 * quotes is one the file holds, under the commit and load average of the run that measured it. Each
 * section's heading is followed by that run's line (`runLine`); a section the file does not hold yet
 * says how to measure it. Notes written by hand (one-off probes, what a change bought) live in
 * docs/BENCHMARKS-HISTORY.md, not here.
 */
import type { AttachmentBenchResult } from './attachments';
import { attachmentsMarkdown } from './attachments';
import { chatListMarkdown, type ChatListViewResult } from './chatListView';
import { checkpointMarkdown, type CheckpointBenchResult } from './checkpoints';
import { engineMarkdown, engineMethodMarkdown, liveMarkdown, type EngineFigures, type LiveFigures } from './docEngine';
import { longChatMarkdown, type LongChatResult } from './longChat';
import type { LongChatViewResult } from './longChatView';
import { viewMarkdown } from './longChatViewReport';
import type { LoadAverage, ResultsFile, RunInfo, SectionEntry } from './results';
import { salvageMarkdown, type SalvageBenchResult } from './salvage';
import type { SearchBenchResult } from './search';
import { searchMarkdown } from './searchReport';

/** The sections bench/results.json may hold, in the doc's order, with the command that measures each. */
export const SECTIONS = {
  engine: 'npm run bench',
  live: 'npm run bench',
  longChat: 'npm run bench -- --long-chat',
  longChatView: 'npm run bench -- --long-chat-view',
  search: 'npm run bench -- --search',
  attachments: 'npm run bench -- --attachments',
  checkpoints: 'npm run bench -- --checkpoints',
  chatListView: 'npm run bench -- --chat-list-view',
  salvage: 'npm run bench -- --salvage',
} as const;

/** A section's name in bench/results.json. */
export type SectionName = keyof typeof SECTIONS;

const loadText = (l: LoadAverage) => `${l['1min'].toFixed(2)} / ${l['5min'].toFixed(2)} / ${l['15min'].toFixed(2)}`;

/** A run's start, to the minute: `2026-12-07 18:00 UTC`. */
const startText = (run: RunInfo) => `${run.startedAt.slice(0, 16).replace('T', ' ')} UTC`;

/** One line naming a run: command, commit, start (UTC, minutes), wall time, and the load average (1 / 5 / 15 min) at both ends. */
export function runLine(run: RunInfo): string {
  const when = startText(run);
  const busy = Math.max(run.load.start['1min'], run.load.end['1min']) > run.machine.cores ? ' (more runnable work than cores: wall-clock figures inflated, tails most)' : '';
  return (
    `- Recorded in bench/results.json: \`${run.command}\` at commit ${run.commit}${run.dirty ? ' (with uncommitted changes)' : ''}, ${when}, ${(run.wallMs / 1000).toFixed(0)} s; ` +
    `load average (1 / 5 / 15 min) ${loadText(run.load.start)} at the start, ${loadText(run.load.end)} at the end, on ${run.machine.cores} cores${busy}`
  );
}

/** `markdown` (a section: a heading line, a blank line, its body) with `run`'s line right under the heading. */
function withRunLine(markdown: string, run: RunInfo): string {
  const cut = markdown.indexOf('\n\n');
  if (cut < 0) return `${markdown.trimEnd()}\n\n${runLine(run)}\n`;
  const body = markdown.slice(cut + 2);
  return `${markdown.slice(0, cut)}\n\n${runLine(run)}\n${body.startsWith('- ') ? '' : '\n'}${body}`;
}

/** Renders `name`'s section from its entry, or a line saying it has not been measured. */
function section<T>(file: ResultsFile, name: SectionName, heading: string, render: (figures: T, entry: SectionEntry<T>) => string): string {
  const entry = file.sections[name] as SectionEntry<T> | undefined;
  if (!entry) return `${heading}\n\nNot in bench/results.json yet: \`${SECTIONS[name]}\` measures it.\n`;
  return withRunLine(render(entry.figures, entry), entry.run);
}

/** The whole of docs/BENCHMARKS.md for `file`. */
export function renderDoc(file: ResultsFile): string {
  const parts = [
    HEAD,
    section<EngineFigures>(file, 'engine', '## The journal engine', (f, e) => engineMarkdown(f, e.run.wallMs)),
    section<LiveFigures>(file, 'live', '## Live paths', (f) => liveMarkdown(f)),
    section<LongChatResult>(file, 'longChat', '## Long chats', (f, e) => longChatMarkdown(f, e.run.command)),
    section<LongChatViewResult>(file, 'longChatView', '### The view in code-server', (f) => viewMarkdown(f)),
    section<SearchBenchResult>(file, 'search', '## Search', (f, e) => searchMarkdown(f, e.run.command)),
    section<AttachmentBenchResult>(file, 'attachments', '## Attachments', (f) => attachmentsMarkdown(f)),
    section<CheckpointBenchResult>(file, 'checkpoints', '## Checkpoints', (f) => checkpointMarkdown(f)),
    section<ChatListViewResult>(file, 'chatListView', '## Chat list in code-server', (f) => chatListMarkdown(f)),
    section<SalvageBenchResult>(file, 'salvage', '## Salvage', (f, e) => salvageMarkdown(f, startText(e.run), `${e.run.load.start['1min'].toFixed(1)} -> ${e.run.load.end['1min'].toFixed(1)} on ${e.run.machine.cores} cores`)),
    engineMethodMarkdown(file.sections.engine?.figures as EngineFigures | undefined),
  ];
  return parts.map((p) => p.trimEnd()).join('\n\n') + '\n';
}

const HEAD = `# Benchmarks

This file is rendered by \`npm run bench\` (bench/doc.ts) from \`bench/results.json\`, and from nothing else: every
figure below is one that file holds, and each section names the run that measured it (command, commit, date, load
average at its start and end). A run of one section replaces that section's figures in the file and leaves the
others as they were; previous runs are the file's git history (\`git log -p bench/results.json\`; the file's keys are
sorted, one value a line, so two runs diff figure by figure). \`npm run bench -- --doc\` renders this file again
from results.json without measuring anything. Notes written by hand (one-off probes, what a change bought, runs
compared) are in docs/BENCHMARKS-HISTORY.md; their figures are of their day, not of the current code.

## How to run

\`\`\`sh
npm run bench                 # 1, 10, 50 and 200 MB journals, the live paths and the long-chat section
npm run bench -- --quick      # 1 and 10 MB only, under two minutes
npm run bench -- --sizes=1,50 --writes=500
npm run bench -- --long-chat  # only the long-chat section (10 vs 5,000 turns), a few minutes
npm run bench -- --long-chat-view  # the long chat in code-server and Chromium, a few minutes
npm run bench -- --search     # only the search section (10 and 200 MB, 10,000 chats)
npm run bench -- --attachments  # the @ list's filter and a send with an attachment, a minute
npm run bench -- --checkpoints  # what checkpoints cost, a few minutes
npm run bench -- --chat-list-view  # activation and Open Chat… with 10 and 10,000 chats in code-server, a few minutes
npm run bench -- --salvage    # the salvage corpus: every page and log record of a moved-aside journal damaged in turn, ~15-25 minutes
npm run bench -- --doc        # only render this file from bench/results.json
\`\`\`

Built journals are cached in \`.bench-cache/\` (override with \`NAC_BENCH_CACHE\`; the folder ignores itself
for git), so reruns skip building them. Everything else (copies of the journal, logs, the native copy) lives in a
temporary folder that is removed at the end, and every child process is waited for or killed. \`npm run bench\`
builds \`dist/\` for production first (minified, no source maps: what the VSIX ships), so the views in code-server
run the code users get; each view section's heading names the build it measured. The machine is a shared 2-core
one: a load average above 2 means other work was running, and wall-clock figures (tails most) are inflated.`;
