/**
 * A simulated extension host for the checkpoint crash test: the real chat runtime and tool runtime
 * on a real journal, in a process of its own that the test SIGKILLs in the middle of a turn.
 *
 *   node out/test/tools/checkpointHost.js <journal file> <workspace folder>
 *
 * Its agent writes `a.txt` through the product's own `write` tool (journaled with its invocation),
 * then changes `b.txt` the way an agent's own tool does (the before image journaled, the file
 * written, the invocation never finished), prints `written <sessionId> <turnId> <instanceId>` and waits for ever:
 * the turn never ends.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Journal } from '../../src/journal/journal';
import type { Agent } from '../../src/runtime/agent';
import { ChatRuntime } from '../../src/runtime/chatRuntime';
import { describeThisInstance } from '../../src/runtime/instance';

async function main(): Promise<void> {
  const [file, workspace] = process.argv.slice(2);
  if (!file || !workspace) throw new Error('usage: checkpointHost <journal file> <workspace folder>');
  const journal = await Journal.open({
    file,
    wasmPath: path.join(path.dirname(require.resolve('sql.js')), 'sql-wasm.wasm'),
    workerPath: path.resolve(__dirname, '../../src/journal/worker.js'),
  });
  const agent: Agent = {
    provider: 'local',
    label: 'crashing agent',
    runTurn: async (request, ctx) => {
      await ctx.tools.run({ name: 'write', input: { path: 'a.txt', content: 'written by the agent\n' } });
      const handle = await ctx.startInvocation('Edit', { file_path: 'b.txt' }, 'b.txt');
      await handle.recordFileChanges!([{ path: 'b.txt', before: { exists: true, bytes: fs.readFileSync(path.join(workspace, 'b.txt')) } }]);
      fs.writeFileSync(path.join(workspace, 'b.txt'), 'edited by the agent\n');
      process.stdout.write(`written ${request.sessionId} ${request.turnId} ${instanceId}\n`);
      return new Promise(() => undefined);
    },
  };
  const instance = describeThisInstance(Date.now());
  const instanceId = instance.id;
  const runtime = new ChatRuntime({
    journal,
    instance,
    agentFor: () => agent,
    workspaceRoot: () => workspace,
  });
  await runtime.start();
  const session = await runtime.createSession('local');
  if (!session.ok) throw new Error(`createSession refused: ${session.message}`);
  const sent = await runtime.send(session.value.id, 'write two files');
  if (!sent.ok) throw new Error(`send refused: ${sent.message}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
