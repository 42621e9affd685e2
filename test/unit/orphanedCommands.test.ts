/**
 * `run` commands that outlive their extension host: a simulated host (test/tools/commandHost.ts, the
 * real runtime and tool runtime in a child process) starts `run sleep 30` and is SIGKILLed; the
 * next store lifetime's recovery ends the orphaned process group and the transcript says so. A
 * journaled group whose pid now belongs to another process (start time differs), or that ran on
 * another machine, or whose leader exited while no process of it carries the command's mark, is never
 * signalled; one whose leader exited is stopped by that mark. And the live path: Stop and a timeout
 * kill the whole group.
 */
import { strict as assert } from 'node:assert';
import { spawn, type ChildProcess } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { buildTranscript, type TranscriptItem } from '../../src/core/transcript';
import type { Journal } from '../../src/journal/journal';
import { processGroupRunning, processStartTime, processStat } from '../../src/journal/processInfo';
import { isInstanceAlive } from '../../src/runtime/instance';
import { stopOrphanedProcessGroup } from '../../src/runtime/orphanedCommands';
import { recoverOrphanedRuns } from '../../src/runtime/recovery';
import { runCommand } from '../../src/runtime/toolRuntime';
import { errorClassShortLabel } from '../../webview/errorClassView';
import { invocationDetail, PROCESS_GROUP_STOPPED_TEXT } from '../../webview/labels';
import { CHILD_NODE_FLAGS, fakeInstance, lifetime, steppingClock, tempDir, waitFor } from './helpers';

const HOST = path.resolve(__dirname, '../tools/commandHost.js');
const SELF = fakeInstance('self');
const DEAD = fakeInstance('dead-host');
const clock = steppingClock();

/** Processes (mostly group leaders) a test started or saw, SIGKILLed at the end if still theirs: a failing test leaves no `sleep`. */
const groups: { pid: number; startTime: string | null }[] = [];
after(() => {
  for (const g of groups) {
    if (g.startTime !== null && processStartTime(g.pid) === g.startTime) {
      try {
        process.kill(-g.pid, 'SIGKILL');
      } catch {
        try {
          process.kill(g.pid, 'SIGKILL'); // not a group leader
        } catch {
          // already gone
        }
      }
    }
  }
});

/** True while `pid` is a process that has not exited (a zombie has). */
function running(pid: number): boolean {
  const stat = processStat(pid);
  return stat !== null && stat.state !== 'Z' && stat.state !== 'X';
}

/** The invocation items of a session's transcript. */
async function invocations(j: Journal, sessionId: string): Promise<Extract<TranscriptItem, { type: 'invocation' }>[]> {
  const transcript = buildTranscript(await j.read('listTurns', sessionId), await j.read('listEvents', sessionId));
  return transcript.turns.flatMap((t) => t.items).filter((i) => i.type === 'invocation');
}

/** A `sleep 30` in a process group of its own, as a command of a host would be. */
function detachedSleep(): ChildProcess & { pid: number } {
  const child = spawn('sleep', ['30'], { detached: true, stdio: 'ignore' });
  assert.ok(child.pid);
  groups.push({ pid: child.pid, startTime: processStartTime(child.pid) });
  return child as ChildProcess & { pid: number };
}

describe('commands a dead extension host left running', () => {
  it('are stopped by the next lifetime\'s recovery, and the transcript says so', async () => {
    const file = path.join(tempDir(), 'journal.sqlite');
    const host = spawn(process.execPath, [...CHILD_NODE_FLAGS, HOST, file, tempDir('nac-ws-'), 'sleep 30'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    host.stdout.on('data', (d: Buffer) => (out += d.toString()));
    host.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise((resolve) => host.on('exit', resolve));
    const line = await waitFor('the host to journal the command\'s process group', () => /^group (\d+) (\S+) (\S+)$/m.exec(out) ?? (host.exitCode !== null ? assert.fail(`the host exited: ${err}`) : undefined), 60_000)
      .finally(() => host.kill('SIGKILL'));
    const [pid, startTime, sessionId] = [Number(line[1]), line[2]!, line[3]!];
    groups.push({ pid, startTime });
    assert.equal(processStartTime(pid), startTime, 'the journaled start time is the command\'s');
    await exited;
    assert.ok(running(pid), 'the command outlives its host (the premise)');

    const recovered = await lifetime(file, (j) => recoverOrphanedRuns(j, { selfInstanceId: SELF.id, isAlive: isInstanceAlive, now: clock }));
    assert.equal(running(pid), false, 'the orphaned command was stopped');
    assert.equal(processGroupRunning(pid), false);
    assert.equal(recovered.length, 1);
    assert.equal(recovered[0]!.stoppedInvocationIds.length, 1);

    await lifetime(file, async (j) => {
      const [item] = await invocations(j, sessionId);
      assert.equal(item?.summary, 'sleep 30');
      assert.equal(item.status, 'failed');
      assert.equal(item.failureClass, 'app_restarted');
      assert.equal(item.processGroupStopped, true);
      assert.equal(invocationDetail(item, errorClassShortLabel), `Interrupted by a reload or restart — ${PROCESS_GROUP_STOPPED_TEXT}`);
      assert.deepEqual(await recoverOrphanedRuns(j, { selfInstanceId: SELF.id, isAlive: isInstanceAlive, now: clock }), [], 'a second pass does nothing');
    });
  });

  /** Seeds a dead host's run whose `run` invocation journaled `group`; returns nothing. */
  async function seedOrphan(file: string, group: { pid: number; startTime: string; hostname: string; marker?: string }): Promise<void> {
    await lifetime(file, async (j) => {
      assert.ok((await j.write('registerInstance', DEAD)).ok);
      assert.ok((await j.write('createSession', { id: 's', title: 's', provider: 'local', createdAt: clock(), updatedAt: clock() })).ok);
      assert.ok((await j.write('startTurn', {
        turn: { id: 't', sessionId: 's', prompt: 'run sleep 30', origin: 'prompt', parentTurnId: null, createdAt: clock() },
        run: { id: 'r', instanceId: DEAD.id, provider: 'local' },
      })).ok);
      assert.ok((await j.write('startInvocation', { id: 'inv', runId: 'r', tool: 'run', input: '{}', summary: 'sleep 30', at: clock() })).ok);
      assert.ok((await j.write('appendEvents', 'r', [{ kind: 'invocation_output', payload: { invocationId: 'inv', chunk: '', processGroup: group } }], clock())).ok);
    });
  }

  const recoverDead = (j: Journal) => recoverOrphanedRuns(j, { selfInstanceId: SELF.id, isAlive: (i) => i.id !== DEAD.id, now: clock });

  it('never signal a journaled pid that now belongs to another process (start time differs)', async () => {
    const other = detachedSleep();
    const file = path.join(tempDir(), 'journal.sqlite');
    await seedOrphan(file, { pid: other.pid, startTime: `${processStartTime(other.pid)}0`, hostname: os.hostname() });
    const recovered = await lifetime(file, recoverDead);
    assert.deepEqual(recovered[0]?.stoppedInvocationIds, []);
    assert.ok(running(other.pid), 'the other process was not signalled');
    await lifetime(file, async (j) => {
      const [item] = await invocations(j, 's');
      assert.equal(item?.status, 'failed');
      assert.equal(item.processGroupStopped, undefined);
    });
    process.kill(-other.pid, 'SIGKILL');
  });

  it('never signal a group journaled on another machine', async () => {
    const other = detachedSleep();
    const file = path.join(tempDir(), 'journal.sqlite');
    await seedOrphan(file, { pid: other.pid, startTime: processStartTime(other.pid)!, hostname: `${os.hostname()}-elsewhere` });
    const recovered = await lifetime(file, recoverDead);
    assert.deepEqual(recovered[0]?.stoppedInvocationIds, []);
    assert.ok(running(other.pid));
    process.kill(-other.pid, 'SIGKILL');
  });

  it('stop a journaled group whose pid and start time match, the whole group', async () => {
    const leader = spawn('/bin/sh', ['-c', 'sleep 30 & echo $!; wait'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    assert.ok(leader.pid);
    groups.push({ pid: leader.pid, startTime: processStartTime(leader.pid) });
    let out = '';
    leader.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const child = Number(await waitFor('the background sleep', () => /^(\d+)$/m.exec(out)?.[1]));
    const file = path.join(tempDir(), 'journal.sqlite');
    await seedOrphan(file, { pid: leader.pid, startTime: processStartTime(leader.pid)!, hostname: os.hostname() });
    const recovered = await lifetime(file, recoverDead);
    assert.deepEqual(recovered[0]?.stoppedInvocationIds, ['inv']);
    await waitFor('the leader to exit', () => !running(leader.pid!));
    assert.equal(running(child), false, 'the leader\'s child was stopped too');
  });

  it('stop a group whose shell exited while its background process runs on: the group is told ours by the mark its processes inherited', async () => {
    // `sleep 30 & echo $!`: the shell exits at once; the sleep holds the output pipe, so the
    // invocation stays open until its host dies. Its group has no leader left to check.
    let out = '';
    let journaled: { pid: number; marker?: string } | undefined;
    const done = runCommand('sleep 30 & echo $!', tempDir('nac-ws-'), 600_000, new AbortController().signal, (chunk) => (out += chunk), (pid, marker) => {
      journaled = { pid, marker };
      groups.push({ pid, startTime: processStartTime(pid) });
    });
    const sleep = Number(await waitFor('the background sleep', () => /^(\d+)$/m.exec(out)?.[1]));
    groups.push({ pid: sleep, startTime: processStartTime(sleep) });
    assert.ok(journaled);
    const { pid, marker } = journaled;
    const startTime = groups.find((g) => g.pid === pid)!.startTime!;
    await waitFor('the shell to exit', () => processStat(pid) === null);
    assert.ok(running(sleep) && processGroupRunning(pid), 'the sleep runs on in the group');
    const file = path.join(tempDir(), 'journal.sqlite');
    await seedOrphan(file, { pid, startTime, hostname: os.hostname(), ...(marker ? { marker } : {}) });
    const recovered = await lifetime(file, recoverDead);
    assert.deepEqual(recovered[0]?.stoppedInvocationIds, ['inv']);
    assert.equal(running(sleep), false);
    await done;
  });

  it('never signal a group whose leader exited and whose processes carry no mark of ours', async () => {
    const other = spawn('/bin/sh', ['-c', 'sleep 30 & echo $!'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
    assert.ok(other.pid);
    let out = '';
    other.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const startTime = processStartTime(other.pid)!;
    const sleep = Number(await waitFor('the background sleep', () => /^(\d+)$/m.exec(out)?.[1]));
    groups.push({ pid: sleep, startTime: processStartTime(sleep) });
    await waitFor('the shell to exit', () => processStat(other.pid!) === null);
    const outcome = await stopOrphanedProcessGroup({ pid: other.pid, startTime, hostname: os.hostname(), marker: 'not-this-one' });
    assert.equal(outcome, 'not_running');
    assert.ok(running(sleep));
    process.kill(sleep, 'SIGKILL');
  });
});

describe('a running command', () => {
  /** Runs a command that starts a background `sleep 30` and waits for it; returns the sleep's pid and the result. */
  async function withBackgroundSleep(timeoutMs: number, abortWhenStarted: boolean) {
    const abort = new AbortController();
    let out = '';
    let started: number | undefined;
    const result = await runCommand('sleep 30 >/dev/null 2>&1 & echo $!; wait', tempDir('nac-ws-'), timeoutMs, abort.signal, (chunk) => {
      out += chunk;
      const pid = /^(\d+)$/m.exec(out)?.[1];
      if (pid && started === undefined) {
        started = Number(pid);
        groups.push({ pid: started, startTime: processStartTime(started) });
        if (abortWhenStarted) abort.abort();
      }
    }, (pid) => groups.push({ pid, startTime: processStartTime(pid) }));
    assert.ok(started, `the command printed the background pid (output: ${out})`);
    return { sleep: started, result };
  }

  it('is stopped with its whole process group by Stop', async () => {
    const { sleep, result } = await withBackgroundSleep(600_000, true);
    assert.equal(result.aborted, true);
    await waitFor('the background sleep to be killed with its group', () => !running(sleep), 5_000);
  });

  it('is stopped with its whole process group by its timeout', async () => {
    const { sleep, result } = await withBackgroundSleep(2_000, false);
    assert.equal(result.timedOut, true);
    await waitFor('the background sleep to be killed with its group', () => !running(sleep), 5_000);
  });

  it('reports its process group, whose id is the shell\'s pid, once spawned', async () => {
    let group: number | undefined;
    const result = await runCommand('ps -o pgid= -p $$', tempDir('nac-ws-'), 60_000, new AbortController().signal, () => undefined, (pid) => (group = pid));
    assert.equal(Number(result.output.trim()), group);
  });
});
