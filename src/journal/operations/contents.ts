/**
 * The content store: byte strings kept once by their SHA-256 (`contentHash`), for everything the
 * journal keeps whole content of (what was attached to a prompt, a file's content before and after
 * an agent changed it). Rows are written by the operation that references them, in its own
 * transaction, so content and reference commit or vanish together.
 *
 * Bytes are stored as text, because the redo log carries statement parameters as JSON strings and
 * numbers: valid UTF-8 as itself (`encoding` 'utf8', readable in the database and cheap for the
 * usual source file), anything else as base64 (`encoding` 'base64'). Reading gives back exactly the
 * bytes stored, a byte-order mark, CRLF line ends or a missing final newline included.
 *
 * Content is dropped when nothing references it any more: each table with a column of content
 * hashes is listed in `CONTENT_REFERENCES`, and deleting a chat drops the content no row lists.
 */
import { contentHash } from '../contentHash';
import type { JournalDb } from './database';

/** A byte string in the store: its address and its length in bytes. */
export interface StoredContent {
  /** SHA-256 of the bytes, 64 lowercase hex characters. */
  readonly hash: string;
  /** Length in bytes. */
  readonly size: number;
}

/**
 * The columns that hold content hashes (`table.column`). A table that references the store adds its
 * column here (and an index on it), so deleting a chat keeps content another row still needs.
 */
export const CONTENT_REFERENCES: readonly { readonly table: string; readonly column: string }[] = [
  { table: 'file_changes', column: 'before_hash' },
  { table: 'file_changes', column: 'after_hash' },
  { table: 'file_undo_items', column: 'found_hash' },
  { table: 'file_undo_items', column: 'wrote_hash' },
  // What was sent with a prompt (operations/attachments.ts), indexed by attachments_by_content.
  { table: 'attachments', column: 'content_hash' },
];

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * `bytes` as stored text: itself if valid UTF-8 that survives sql.js's text round trip, else base64.
 * Text read back from sql.js loses a leading byte-order mark, so such content is stored as base64 too.
 */
function encodeContent(bytes: Uint8Array): { encoding: 'utf8' | 'base64'; body: string } {
  let text: string | undefined;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    text = undefined;
  }
  if (text !== undefined && !text.startsWith('\ufeff')) return { encoding: 'utf8', body: text };
  return { encoding: 'base64', body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64') };
}

/**
 * The operations of this concern (see module docstring): one object of `JournalCore`'s composition
 * (../core.ts), given the database (`db`).
 */
export class ContentOps {
  constructor(private readonly db: JournalDb) {}

  /**
   * Stores `bytes` (a string: its UTF-8 encoding) at `at` (ms since the epoch) unless the same bytes
   * are stored already (a stored row that no longer matches its hash is rewritten), and returns their address. Call inside the write that references them.
   */
  storeContent(bytes: Uint8Array | string, at: number): StoredContent {
    const data = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
    const hash = contentHash(data);
    const stored = this.db.one('SELECT 1 AS x FROM contents WHERE hash = ?', [hash]);
    if (stored && this.intact(hash)) return { hash, size: data.byteLength };
    const { encoding, body } = encodeContent(data);
    // A row whose bytes no longer match its hash is rewritten with the right ones: kept damaged, every
    // later reference to the same bytes would share the damage.
    this.db.run(
      'INSERT INTO contents (hash, size, encoding, body, created_at) VALUES (?, ?, ?, CAST(? AS TEXT), ?) ON CONFLICT(hash) DO UPDATE SET size = excluded.size, encoding = excluded.encoding, body = excluded.body',
      [hash, data.byteLength, encoding, body, at],
    );
    return { hash, size: data.byteLength };
  }

  /**
   * The bytes stored at `hash`, or null when nothing is. Throws if the stored row is damaged (an
   * unknown encoding, or bytes whose hash is not their address): content is never handed out wrong.
   */
  getContent(hash: string): Uint8Array | null {
    const row = this.db.one('SELECT encoding, body FROM contents WHERE hash = ?', [hash]);
    if (!row) return null;
    const body = String(row.body);
    let bytes: Uint8Array;
    if (row.encoding === 'utf8') bytes = new Uint8Array(Buffer.from(body, 'utf8'));
    else if (row.encoding === 'base64') bytes = new Uint8Array(Buffer.from(body, 'base64'));
    else throw new Error(`Stored content ${hash} has an unknown encoding ${String(row.encoding)}.`);
    if (contentHash(bytes) !== hash) throw new Error(`Stored content ${hash} does not match its hash: it was damaged.`);
    return bytes;
  }

  /** Whether the row at `hash` gives back bytes that match it (false: damaged). */
  private intact(hash: string): boolean {
    try {
      return this.getContent(hash) !== null;
    } catch {
      return false;
    }
  }

  /** Deletes the content no column of `CONTENT_REFERENCES` lists (after a chat was deleted). */
  dropUnreferencedContents(): void {
    const unreferenced = CONTENT_REFERENCES.map(({ table, column }) => `NOT EXISTS (SELECT 1 FROM ${table} WHERE ${table}.${column} = contents.hash)`);
    this.db.run(`DELETE FROM contents${unreferenced.length ? ` WHERE ${unreferenced.join(' AND ')}` : ''}`);
  }
}
