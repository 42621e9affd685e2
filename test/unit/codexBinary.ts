/** Where the tests find the real `codex` binary (the one the Codex agent's tests and the queue's tests run). */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The native codex binary of the installed @openai/codex platform package, or undefined when not installed here. */
export function codexBinary(): string | undefined {
  try {
    const vendor = path.join(path.dirname(require.resolve('@openai/codex-linux-x64/package.json')), 'vendor');
    for (const triple of fs.readdirSync(vendor)) {
      const bin = path.join(vendor, triple, 'bin', 'codex');
      if (fs.existsSync(bin)) return bin;
    }
  } catch {
    // not installed for this platform
  }
  return undefined;
}

/** `codexBinary()`, looked up once per test process. */
export const CODEX = codexBinary();
