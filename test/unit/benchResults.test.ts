import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { renderDoc, runLine } from '../../bench/doc';
import { RESULTS_ABOUT, finishRun, mergeSection, readResults, recordSection, resultsText, startRun, type ResultsFile, type RunInfo } from '../../bench/results';
import { tempDir } from './helpers';

const REPO = path.resolve(__dirname, '../../..');

const run = (command: string): RunInfo => ({
  command,
  commit: 'abc1234',
  startedAt: '2026-12-07T18:00:00.000Z',
  endedAt: '2026-12-07T18:01:00.000Z',
  wallMs: 60_000,
  load: { start: { '1min': 1.5, '5min': 2, '15min': 2.5 }, end: { '1min': 3.25, '5min': 2.5, '15min': 2.75 } },
  machine: { cpu: 'cpu', cores: 2, memoryGB: 8, node: 'v20', os: 'Linux' },
});

describe('bench: bench/results.json', () => {
  it('merges a section into the file: that section replaced, the others kept as they were', () => {
    const one = mergeSection(undefined, 'search', { run: run('npm run bench -- --search'), units: 'ms', figures: { p50: 1 } });
    const two = mergeSection(one, 'attachments', { run: run('npm run bench -- --attachments'), units: 'ms', figures: { p50: 2 } });
    const three = mergeSection(two, 'search', { run: run('npm run bench -- --search'), units: 'ms', figures: { p50: 3 } });
    assert.equal(three.about, RESULTS_ABOUT);
    assert.deepEqual(Object.keys(three.sections).sort(), ['attachments', 'search']);
    assert.deepEqual(three.sections.search!.figures, { p50: 3 });
    assert.equal(three.sections.attachments, two.sections.attachments);
  });

  it('writes keys in sorted order at every depth, numbers to 3 decimals, so the same figures give the same text', () => {
    const a: ResultsFile = { about: RESULTS_ABOUT, sections: { z: { run: run('z'), units: 'ms', figures: { b: 1.23456, a: { y: [3, { d: 1, c: Number.NaN }], x: undefined } } }, a: { run: run('a'), units: 'ms', figures: {} } } };
    const b: ResultsFile = { about: RESULTS_ABOUT, sections: { a: a.sections.a!, z: { units: 'ms', figures: { a: { y: [3, { c: Number.NaN, d: 1 }] }, b: 1.23456 }, run: run('z') } } };
    const text = resultsText(a);
    assert.equal(text, resultsText(b));
    const parsed = JSON.parse(text) as { about: string; sections: Record<string, { figures: unknown }> };
    assert.deepEqual(Object.keys(parsed), ['about', 'sections']);
    assert.deepEqual(Object.keys(parsed.sections), ['a', 'z']);
    assert.deepEqual(parsed.sections.z!.figures, { a: { y: [3, { c: null, d: 1 }] }, b: 1.235 });
    assert.ok(text.endsWith('}\n'));
    assert.match(text, /\n {8}"b": 1\.235\n/, 'one value a line');
  });

  it('records a run: command, commit, start and end, wall time and the load average at both ends', () => {
    const times = [new Date('2026-12-07T18:00:00.000Z'), new Date('2026-12-07T18:00:02.500Z')];
    const info = finishRun(startRun('npm run bench -- --search', REPO, () => times[0]!), () => times[1]!);
    assert.equal(info.command, 'npm run bench -- --search');
    assert.equal(info.commit, execFileSync('git', ['-C', REPO, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim());
    assert.equal(info.startedAt, '2026-12-07T18:00:00.000Z');
    assert.equal(info.endedAt, '2026-12-07T18:00:02.500Z');
    assert.equal(info.wallMs, 2500);
    for (const l of [info.load.start, info.load.end]) assert.deepEqual(Object.keys(l), ['1min', '5min', '15min']);
    assert.equal(info.machine.cores, os.cpus().length);
    assert.equal(startRun('x', tempDir('nac-bench-nogit-')).commit, 'unknown');
  });

  it('writes a measured section into the file, keeps the others, and writes nothing when the section throws', async () => {
    const file = path.join(tempDir('nac-bench-results-'), 'results.json');
    fs.writeFileSync(file, resultsText(mergeSection(undefined, 'engine', { run: run('npm run bench'), units: 'ms', figures: { p50: 0.3 } })));
    const figures = await recordSection(file, REPO, 'attachments', 'ms', 'npm run bench -- --attachments', async () => ({ p50: 6.25 }));
    assert.deepEqual(figures, { p50: 6.25 });
    const read = readResults(file)!;
    assert.deepEqual(Object.keys(read.sections), ['attachments', 'engine']);
    assert.deepEqual(read.sections.engine!.figures, { p50: 0.3 });
    assert.equal(read.sections.attachments!.run.command, 'npm run bench -- --attachments');
    assert.equal(read.sections.attachments!.units, 'ms');
    const before = fs.readFileSync(file, 'utf8');
    await assert.rejects(recordSection(file, REPO, 'search', 'ms', 'x', async () => { throw new Error('section failed'); }), /section failed/);
    assert.equal(fs.readFileSync(file, 'utf8'), before);
  });

  it('reads a file of the older layout (figures at the top, no run) as one with no sections, and a missing file as none', () => {
    const dir = tempDir('nac-bench-results-');
    fs.writeFileSync(path.join(dir, 'old.json'), JSON.stringify({ machine: {}, sizes: [], search: {} }));
    assert.deepEqual(readResults(path.join(dir, 'old.json')), { about: RESULTS_ABOUT, sections: {} });
    assert.equal(readResults(path.join(dir, 'missing.json')), undefined);
  });

  it('renders the doc from the file alone: a section under its run line, a missing one named with its command', () => {
    const figures = { files: 50_000, indexMs: 22.3, completion: { n: 200, p50: 6.29, p95: 9.24, max: 39.9 }, sendPlain: { n: 30, p50: 2.29, p95: 4.81, max: 5.52 }, sendAttached: { n: 30, p50: 10.47, p95: 18.62, max: 18.88 }, loadavg: [0.8, 0.9] };
    const file = mergeSection(undefined, 'attachments', { run: run('npm run bench -- --attachments'), units: 'ms', figures });
    const doc = renderDoc(file);
    const at = doc.indexOf('## Attachments');
    assert.ok(at > 0);
    assert.equal(doc.slice(at).split('\n')[2], runLine(run('npm run bench -- --attachments')));
    assert.match(runLine(run('x')), /commit abc1234, 2026-12-07 18:00 UTC, 60 s; load average \(1 \/ 5 \/ 15 min\) 1\.50 \/ 2\.00 \/ 2\.50 at the start, 3\.25 \/ 2\.50 \/ 2\.75 at the end, on 2 cores/);
    assert.match(doc, /\| 6\.29 \| 9\.24 \| 39\.90 \| 200 \|/);
    assert.match(doc, /## Search\n\nNot in bench\/results\.json yet: `npm run bench -- --search` measures it\./);
  });
});
