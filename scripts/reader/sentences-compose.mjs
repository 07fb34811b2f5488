// Text with spans, and the seeded draws of the sentence generator (scripts/reader/sentences.mjs).
import { hashString, mulberry32 } from '../random.mjs';

/**
 * Joins parts into one string and records where the named ones landed:
 * compose(['The ', ['agent', 'dog'], ' ran.']) → { text: 'The dog ran.', spans: { agent: [4, 7] } }.
 * Spans are [start, end) JavaScript string indices (UTF-16 code units; every character generated is
 * in the Basic Multilingual Plane, so they are code-point offsets as well).
 * @param {Array<string | [string, string]>} parts
 */
export function compose(parts) {
  let text = '';
  const spans = {};
  for (const part of parts) {
    if (typeof part === 'string') {
      text += part;
      continue;
    }
    const [name, word] = part;
    spans[name] = [text.length, text.length + word.length];
    text += word;
  }
  return { text, spans };
}

/** A span and the text it covers: { text, span }. */
export const marked = (text, span) => ({ text: text.slice(span[0], span[1]), span });

/** Draws from one seeded stream: next() in [0, 1), int(n) in [0, n), pick(list), chance(p). */
export function drawer(key) {
  const next = mulberry32(hashString(key));
  const int = (n) => Math.floor(next() * n);
  return { next, int, pick: (list) => list[int(list.length)], chance: (p) => next() < p };
}

/** Shuffles `list` in place (Fisher–Yates) with `draw` and returns it. */
export function shuffle(list, draw) {
  for (let i = list.length - 1; i > 0; i--) {
    const j = draw.int(i + 1);
    [list[i], list[j]] = [list[j], list[i]];
  }
  return list;
}

/** A well-mixed 32-bit hash of a key (FNV-1a, then murmur3's finaliser: FNV's low bits follow the last character). */
export function mixedHash(key) {
  let h = hashString(key);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
