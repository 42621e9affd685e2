/**
 * Which pages of an intact SQLite file each row of a table lives on, by walking the table's b-tree
 * by hand (SQLite's file format: page headers, cell pointers, varints, overflow chains): the leaf
 * holding the row, its overflow pages, and the interior pages on the way from the table's root. A
 * reader that finds a row by its rowid needs every one of them, so these are "the chat's pages" the
 * salvage corpus damages: a chat whose pages are all intact must come back whole.
 */

/** The pages each rowid of one table needs (leaf, overflow chain, interior path), and all pages of the tree. */
export interface TablePages {
  readonly byRowid: Map<number, number[]>;
  readonly all: Set<number>;
}

/** Reads a SQLite varint at `at`: [value, bytes used]. */
function varint(b: Buffer, at: number): [number, number] {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const byte = b[at + i]!;
    v = v * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [v, i + 1];
  }
  return [v * 256 + b[at + 8]!, 9];
}

/**
 * Walks the table b-tree rooted at `root` (1-based page number) of the file `bytes` (see module
 * docstring). `pageSize` and `reserved` come from the file header (bytes 16-17 and 20).
 */
export function tablePages(bytes: Buffer, root: number): TablePages {
  const raw = bytes.readUInt16BE(16);
  const pageSize = raw === 1 ? 65536 : raw;
  const usable = pageSize - bytes[20]!;
  const byRowid = new Map<number, number[]>();
  const all = new Set<number>();
  const walk = (page: number, path: number[]): void => {
    all.add(page);
    const base = (page - 1) * pageSize;
    const hdr = base + (page === 1 ? 100 : 0);
    const type = bytes[hdr]!;
    const cells = bytes.readUInt16BE(hdr + 3);
    const pointers = hdr + (type === 0x05 ? 12 : 8);
    const here = [...path, page];
    for (let c = 0; c < cells; c++) {
      const cell = base + bytes.readUInt16BE(pointers + 2 * c);
      if (type === 0x05) {
        walk(bytes.readUInt32BE(cell), here);
        continue;
      }
      const [payload, n1] = varint(bytes, cell);
      const [rowid, n2] = varint(bytes, cell + n1);
      const pages = [...here];
      const x = usable - 35;
      if (payload > x) {
        const m = Math.floor(((usable - 12) * 32) / 255) - 23;
        const k = m + ((payload - m) % (usable - 4));
        const local = k <= x ? k : m;
        let next = bytes.readUInt32BE(cell + n1 + n2 + local);
        while (next !== 0) {
          pages.push(next);
          all.add(next);
          next = bytes.readUInt32BE((next - 1) * pageSize);
        }
      }
      byRowid.set(rowid, pages);
    }
    if (type === 0x05) walk(bytes.readUInt32BE(hdr + 8), here);
  };
  walk(root, []);
  return { byRowid, all };
}
