/**
 * The statement cache's byte binding of long text (`CAST(? AS TEXT)`): which placeholders take it,
 * which strings go as bytes, and that the row is exactly the one a string bound as text makes, for
 * every kind of string, including those that must stay on sql.js's own path (NUL, lone surrogates).
 */
import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { loadSqlJs } from '../../src/journal/sqljs';
import { BYTES_BIND_MIN_CHARS, StatementCache, textCastSlots, withTextBytes } from '../../src/journal/statementCache';
import { WASM_PATH } from './helpers';

const long = (unit: string) => unit.repeat(Math.ceil(BYTES_BIND_MIN_CHARS / unit.length) + 3);

describe('statement cache: long text bound as bytes', () => {
  it('finds the placeholders written as CAST(? AS TEXT), in any case and spacing, not those in literals', () => {
    assert.deepEqual(textCastSlots('INSERT INTO t (a, b, c) VALUES (?, CAST(? AS TEXT), ?)'), [1]);
    assert.deepEqual(textCastSlots('INSERT INTO t VALUES (cast( ?  as  text ), ?, CAST(?AS TEXT))'), [0, 2]);
    assert.deepEqual(textCastSlots("SELECT '?', \"x?\", CAST(? AS TEXT) FROM t WHERE a = ?"), [0]);
    assert.deepEqual(textCastSlots('SELECT CAST(? AS INTEGER), CAST(? AS TEXTUAL)'), []);
    assert.deepEqual(textCastSlots('SELECT 1'), []);
    assert.deepEqual(textCastSlots('SELECT ?, -- why? it\'s\n CAST(? AS TEXT)'), [1], 'a ? in a line comment is no placeholder');
    assert.deepEqual(textCastSlots('SELECT /* a ? and a \' */ ?, CAST(? AS TEXT), [b?]'), [1], 'nor one in a block comment or a [quoted] name');
  });

  it('hands only long, well-formed, NUL-free strings at those slots over as their UTF-8 bytes', () => {
    const text = long('é');
    const out = withTextBytes([text, text, 'short', long('a\0'), long('\ud800x'), 7], [1, 2, 3, 4, 5]) as unknown[];
    assert.equal(out[0], text, 'not a cast slot');
    assert.ok(Buffer.isBuffer(out[1]));
    assert.deepEqual(out[1], Buffer.from(text, 'utf8'));
    assert.deepEqual(out.slice(2), ['short', long('a\0'), long('\ud800x'), 7]);
  });

  it('writes the same row as a string bound as text, for every kind of string', async () => {
    const SQL = await loadSqlJs(WASM_PATH);
    const db = new SQL.Database();
    db.run('CREATE TABLE plain (id INTEGER PRIMARY KEY, v TEXT); CREATE TABLE cast (id INTEGER PRIMARY KEY, v TEXT)');
    const cache = new StatementCache(db);
    const strings = [
      'short', long('ascii '), long('naïve café '), long('日本語'), long('🙂 emoji '), long('\r\n'),
      long('nul\0inside'), long('lone \ud800 high'), long('lone \udc00 low'), '',
    ];
    for (const [i, s] of strings.entries()) {
      cache.run('INSERT INTO plain (id, v) VALUES (?, ?)', [i, s]);
      assert.equal(cache.run('INSERT INTO cast (id, v) VALUES (?, CAST(? AS TEXT))', [i, s]), 1);
    }
    const rows = (table: string) => db.exec(`SELECT id, typeof(v), hex(v), length(v) FROM ${table} ORDER BY id`)[0]!.values;
    assert.deepEqual(rows('cast'), rows('plain'));
    assert.ok(rows('cast').every((r) => r[1] === 'text'));
    // A ? in a comment must not move the slot: the long string of the next, uncast placeholder stays text.
    cache.run('INSERT INTO plain (id, v) VALUES (/* id? */ CAST(? AS TEXT), ?)', [100, long('x')]);
    assert.deepEqual(db.exec('SELECT typeof(id), typeof(v) FROM plain WHERE id = 100')[0]!.values, [['integer', 'text']]);
    const read = db.exec('SELECT v FROM cast WHERE id = 4')[0]!.values[0]![0];
    assert.equal(read, strings[4], 'an emoji string reads back as it was written');
    cache.clear();
    db.close();
  });
});
