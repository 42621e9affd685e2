/**
 * A simulated extension host for the orphaned-command tests: the real chat runtime, local agent and
 * tool runtime on a real journal, in a process of its own that the test SIGKILLs.
 *
 *   node out/test/tools/commandHost.js <journal file> <workspace folder> <command>
 *
 * Registers itself as an instance (its real pid and start time), creates a chat, sends
 * `run <command>`, allows the command's boundary request once, and prints
 * `group <pid> <startTime> <sessionId>` once the command's process group is durable in the journal.
 * Then it waits (the command's timeout is 10 minutes) until it is killed.
 */
import * as path from 'node:path';
import { Journal } from '../../src/journal/journal';
import { LocalAgent } from '../../src/runtime/agents/localAgent';
import { ChatRuntime } from '../../src/runtime/chatRuntime';
import { describeThisInstance } from '../../src/runtime/instance';

async function main(): Promise<void> {
  const [file, workspace, command] = process.argv.slice(2);
  if (!file || !workspace || !command) throw new Error('usage: commandHost <journal file> <workspace folder> <command>');
  const journal = await Journal.open({
    file,
    wasmPath: path.join(path.dirname(require.resolve('sql.js')), 'sql-wasm.wasm'),
    workerPath: path.resolve(__dirname, '../../src/journal/worker.js'),
  });
  const agent = new LocalAgent();
  const runtime = new ChatRuntime({
    journal,
    instance: describeThisInstance(Date.now()),
    agentFor: (provider) => (provider === 'local' ? agent : undefined),
    workspaceRoot: () => workspace,
    commandTimeoutMs: () => 600_000,
  });
  await runtime.start();
  const session = await runtime.createSession('local');
  if (!session.ok) throw new Error(`createSession refused: ${session.message}`);
  runtime.onNotification((n) => {
    if (n.type !== 'update' || n.update.type !== 'event') return;
    const event = n.update.event;
    // Decided on a later turn of the event loop, as a click would be: the run starts waiting on the
    // request only after the view heard of it.
    if (event.kind === 'boundary_requested') {
      const requestId = event.payload.requestId;
      setTimeout(() => void runtime.decide(session.value.id, requestId, 'allow_once').then((r) => {
        if (!r.ok) process.stderr.write(`decide refused: ${r.message}\n`);
      }), 0);
    }
    // Notifications follow the journal's acknowledgement, so the group is durable by now.
    if (event.kind === 'invocation_output' && event.payload.processGroup) {
      const g = event.payload.processGroup;
      process.stdout.write(`group ${g.pid} ${g.startTime} ${session.value.id}\n`);
    }
  });
  const sent = await runtime.send(session.value.id, `run ${command}`);
  if (!sent.ok) throw new Error(`send refused: ${sent.message}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
