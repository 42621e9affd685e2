/**
 * Deterministic "realistic chat rows" for the benchmark journals: sessions with turns, runs, tool
 * invocations, boundary requests and an events ledger whose text and output payloads average
 * ~1.3 KB. Everything comes from a seeded PRNG, so a journal of a given size is the same every build.
 */

/** A seeded PRNG (mulberry32): returns a function giving floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'the a to of and in is it that for this with on be as file function test error value return type you can we will ' +
  'should change update build run command output line code module import export const let await async promise class ' +
  'interface journal session turn event write read commit log snapshot worker thread process lock sync disk memory ' +
  'latency table index query row column schema migration version user agent tool result status failed completed ' +
  'workspace folder path config setting option default extension window editor tab view panel message request reply ' +
  'because however then now first next finally also only just still already instead here there why how what which'
).split(' ');

/** Random prose of about `length` characters (words, sentences, occasional markdown and code). */
export function prose(rand: () => number, length: number): string {
  const parts: string[] = [];
  let size = 0;
  let sentence = 0;
  while (size < length) {
    let piece: string;
    const r = rand();
    if (r < 0.015) {
      piece = '\n\n```ts\nconst value = await journal.read(\'listEvents\', sessionId);\n```\n\n';
    } else if (r < 0.03) {
      piece = '\n- ';
    } else {
      const w = WORDS[Math.floor(rand() * WORDS.length)]!;
      piece = sentence === 0 ? w[0]!.toUpperCase() + w.slice(1) : w;
      sentence++;
      if (sentence > 6 && rand() < 0.15) {
        piece += '. ';
        sentence = 0;
      } else {
        piece += ' ';
      }
    }
    parts.push(piece);
    size += piece.length;
  }
  return parts.join('').slice(0, length);
}

/** A UUID-shaped id from the PRNG (the product uses crypto.randomUUID). */
export function uuid(rand: () => number): string {
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join('');
  return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
}

/** A payload length in [min, max] with a triangular distribution (mean (min+max)/2). */
export function around(rand: () => number, min: number, max: number): number {
  return Math.round(min + ((rand() + rand()) / 2) * (max - min));
}

/** ~1.15 KB of text for the measured writes' `text` events (index picks one of a few variants). */
export function writeText(index: number): string {
  const slot = index % 64;
  let text = texts[slot];
  if (text === undefined) {
    text = prose(prng(1000 + slot), 1150);
    texts[slot] = text;
  }
  return text;
}

const texts: (string | undefined)[] = [];
