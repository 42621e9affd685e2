/**
 * Finding agent CLIs where the user has them: a configured path first, then PATH. The CLIs are
 * never bundled into the extension.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Where an executable was found, or why not (a sentence naming what to install or configure). */
export type ExecutableLookup = { readonly ok: true; readonly path: string } | { readonly ok: false; readonly message: string };

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * Finds `name` (e.g. `claude`, `codex`): `configuredPath` if set (it must exist and be executable),
 * else the first match on `envPath` (default `process.env.PATH`; `.exe`/`.cmd` tried on Windows).
 * @param what human name of the tool and the setting, for the message, e.g.
 *        `{ tool: 'Claude Code', setting: 'nativeAgentChats.claude.executablePath', install: 'npm install -g @anthropic-ai/claude-code' }`.
 */
export function findExecutable(
  name: string,
  configuredPath: string | undefined,
  what: { readonly tool: string; readonly setting: string; readonly install: string },
  envPath: string = process.env.PATH ?? '',
): ExecutableLookup {
  if (configuredPath && configuredPath.trim()) {
    const p = configuredPath.trim();
    return isExecutable(p)
      ? { ok: true, path: p }
      : { ok: false, message: `${what.tool} was not found at ${p} (setting ${what.setting}). Fix the path, or clear it to use ${name} from PATH.` };
  }
  const exts = process.platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  for (const dir of envPath.split(path.delimiter).filter(Boolean)) {
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (isExecutable(candidate)) return { ok: true, path: candidate };
    }
  }
  return { ok: false, message: `${what.tool} (\`${name}\`) is not installed or not on PATH. Install it (${what.install}) or set ${what.setting}.` };
}
