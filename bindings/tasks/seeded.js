// Seeded random numbers for the tasks: mulberry32 and FNV-1a (web/src/random.js, the page's
// generator, re-exports these two), so a seed draws the same stream everywhere, and a hash of an
// example's text decides its split.

/** A uniform [0, 1) generator from a 32-bit seed (mulberry32). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit hash of a string (FNV-1a over code points). */
export function hashString(text) {
  let h = 0x811c9dc5;
  for (const ch of text) {
    h ^= ch.codePointAt(0);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Helpers over one stream: an integer in [lo, hi] and one entry of a list. */
export function drawer(seed) {
  const next = mulberry32(seed);
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  return { next, int, pick: (list) => list[int(0, list.length - 1)] };
}

/**
 * The split of an example, from a hash of its key (the date, the sequence, the sentence): one key
 * in ten is 'validation', and the key of an example is the same in every written form, so no
 * validation example ever appears in training.
 */
export function splitOf(key) {
  // FNV-1a's low bits follow the last character closely: mix them (murmur3's finaliser) first
  let h = hashString(key);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h = (h ^ (h >>> 16)) >>> 0;
  return h % 10 === 0 ? 'validation' : 'train';
}
