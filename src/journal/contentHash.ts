/**
 * The content store's address of a byte string: the SHA-256 of its bytes, as 64 lowercase hex
 * characters. The same bytes always have the same address, so content stored twice is kept once,
 * and a file on disk can be compared with stored content without reading the store.
 */
import { createHash } from 'node:crypto';

/** SHA-256 of `bytes` (a string counts as its UTF-8 encoding), 64 lowercase hex characters. */
export function contentHash(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}
