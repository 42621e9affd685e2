/**
 * What a failed file read or write of a tool says to the user and the agent: Node's file errors
 * (`ENOENT: no such file or directory, stat '/abs/path'`) in plain words naming the path as the
 * agent gave it. Pure; the error's `code` decides, and an error without a known code keeps its own
 * message.
 */

/** The sentence for `error` from a `read` or `write` of `shownPath` (the path as the tool call gave it). */
export function fileErrorWords(error: unknown, op: 'read' | 'write', shownPath: string): string {
  const code = (error as { code?: unknown } | null)?.code;
  const name = `\`${shownPath}\``;
  switch (code) {
    case 'ENOENT':
      return op === 'read' ? `There is no file ${name} in the workspace folder.` : `${name} could not be written: a folder on its path is missing.`;
    case 'ENOTDIR':
      return `${name} is not a file: part of its path is a file, not a folder.`;
    case 'EISDIR':
      return `${name} is a folder, not a file.`;
    case 'EACCES':
    case 'EPERM':
      return `Permission denied: ${name} could not be ${op === 'read' ? 'read' : 'written'}.`;
    case 'ENOSPC':
      return `The disk is full: ${name} was not written.`;
    case 'EROFS':
      return `${name} is on a read-only file system and was not written.`;
    default:
      return error instanceof Error ? error.message : String(error);
  }
}
