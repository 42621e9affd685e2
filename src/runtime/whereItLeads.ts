/**
 * Paths judged where they really lead, for the sandbox: the tool runtime's reads, writes and
 * command arguments (toolRuntime.ts) and the files a user attaches (attachments/readAttachments.ts)
 * are classified by the sandbox policy (`src/core/sandboxPolicy.ts`, path arithmetic only) after
 * their symlinks are followed here, against the workspace folder's own real path. So a symlink
 * inside the workspace that points outside it is outside, and one outside that points inside is
 * inside. Reads the file system (lstat, realpath, readlink), synchronously: each call is a few
 * system calls on a path the agent or the user named.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { classifyAction, type SandboxAction, type SandboxVerdict } from '../core/sandboxPolicy';

/**
 * The sandbox policy's verdict on `action` with `root` (the workspace folder, absolute) and every
 * path in it (a read's or write's path, each command argument) judged where it really leads
 * (`realTarget`), against the root's real path (`realRoot`).
 * @throws a file-system error met while following a link (as `realTarget`: rare, e.g. EACCES).
 */
export function classifyWhereItLeads(action: SandboxAction, root: string): SandboxVerdict {
  const rootReal = realRoot(root);
  return action.type === 'command'
    ? classifyAction(action, rootReal, (word) => realTarget(root, word))
    : classifyAction({ ...action, path: realTarget(root, action.path) }, rootReal);
}

/** The workspace root with symlinks resolved (the root itself if it cannot be resolved). Never throws. */
function realRoot(root: string): string {
  try {
    return fs.realpathSync(root);
  } catch {
    return root;
  }
}

/**
 * Where `target` (relative to `root`) really leads: symlinks are followed, including dangling ones
 * (a write through a dangling link creates its target), by resolving each existing prefix with
 * `realpath` and each link that points nowhere with `readlink`. At most 40 links (then the path
 * is judged as it is written).
 */
export function realTarget(root: string, target: string): string {
  let current = path.resolve(root, target);
  for (let hops = 0; hops < 40; hops++) {
    // Find the deepest existing prefix (lstat: a dangling link exists too).
    let existing = current;
    const rest: string[] = [];
    while (!lstatOrUndefined(existing)) {
      const parent = path.dirname(existing);
      if (parent === existing) return current;
      rest.unshift(path.basename(existing));
      existing = parent;
    }
    const stat = lstatOrUndefined(existing)!;
    if (stat.isSymbolicLink()) {
      let real: string | undefined;
      try {
        real = fs.realpathSync(existing);
      } catch {
        real = undefined; // dangling: follow it by hand
      }
      if (real === undefined) {
        const parentReal = realTargetOfParent(existing);
        current = path.join(path.resolve(parentReal, fs.readlinkSync(existing)), ...rest);
        continue;
      }
      return path.join(real, ...rest);
    }
    return path.join(fs.realpathSync(existing), ...rest);
  }
  return current;
}

function realTargetOfParent(p: string): string {
  try {
    return fs.realpathSync(path.dirname(p));
  } catch {
    return path.dirname(p);
  }
}

function lstatOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}
