// The reader's tokenizer: byte-fallback BPE over a vocabulary made by
// scripts/reader/train-tokenizer.mjs (vocabulary.json). Plain ES module: runs in browsers and Node.
//
// Ids: the specials first (<pad> 0, <bos> 1, <eos> 2, <mask> 3), then the 256 byte pieces, then the
// single characters of the vocabulary's `chars` in order, then one piece per merge in the order
// learnt. A character the vocabulary lacks is written as its UTF-8 bytes, one byte piece each, so
// no text needs an unknown id; a lone surrogate (not text in UTF-8) is written as U+FFFD's bytes.
//
// Pieces for people (`tokens`): a space shows as "▁" (so "▁the" starts a word and "the" does not),
// a line break as "↵", a tab as "⇥", a byte piece as "<0xE2>", a special as its name.
import { AttentionError } from '../errors.js';
import { forEachUnit } from './pretokenize.js';

export const PAD = 0;
export const BOS = 1;
export const EOS = 2;
export const MASK = 3;
export const BYTE_PIECES = 256;

const SHOWN = new Map([[' ', '▁'], ['\n', '↵'], ['\t', '⇥'], ['\r', '␍']]);
const show = (s) => s.replace(/[ \n\t\r]/g, (c) => SHOWN.get(c));
const hex = (b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;
const fail = (message) => {
  throw new AttentionError('INVALID_ARGUMENT', message);
};

/** UTF-8 bytes of one code point; a lone surrogate counts as U+FFFD. */
function utf8(cp, out) {
  if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
  if (cp < 0x80) out.push(cp);
  else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
  else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  return out;
}

/**
 * A tokenizer over a parsed vocabulary.json: { specials: string[], chars: string, merges: number[] }
 * (merges as flat pairs of ids: the first merge makes id specials + 256 + chars, and so on).
 */
export function createTokenizer(vocabulary) {
  const { specials, chars, merges } = vocabulary ?? {};
  if (!Array.isArray(specials) || typeof chars !== 'string' || !Array.isArray(merges) || merges.length % 2) {
    fail('createTokenizer: the vocabulary must have specials (an array), chars (a string) and merges (pairs of ids)');
  }
  const byteBase = specials.length;
  const charBase = byteBase + BYTE_PIECES;
  const alphabet = Array.from(chars);
  const mergeBase = charBase + alphabet.length;
  const size = mergeBase + merges.length / 2;

  // text: what each piece stands for (null for bytes and specials); pieces: how it is shown
  const text = new Array(size).fill(null);
  const pieces = new Array(size);
  specials.forEach((name, id) => (pieces[id] = name));
  for (let b = 0; b < BYTE_PIECES; b++) pieces[byteBase + b] = hex(b);
  const charId = new Map();
  alphabet.forEach((c, i) => {
    text[charBase + i] = c;
    charId.set(c.codePointAt(0), charBase + i);
  });
  if (charId.size !== alphabet.length) fail('createTokenizer: the vocabulary repeats a character');
  const merged = new Map(); // a * size + b → the id the pair becomes; a lower id was learnt earlier
  for (let r = 0; r < merges.length / 2; r++) {
    const [a, b] = [merges[2 * r], merges[2 * r + 1]];
    const id = mergeBase + r;
    if (!(text[a] !== null && text[b] !== null && a < id && b < id)) fail(`createTokenizer: merge ${r} joins ids ${a} and ${b}, not two earlier text pieces`);
    text[id] = text[a] + text[b];
    merged.set(a * size + b, id);
  }
  for (let id = charBase; id < size; id++) pieces[id] = show(text[id]);

  // ids and [start, end) offsets relative to the unit, per distinct unit (a text repeats its words)
  const cache = new Map();
  const CACHE_LIMIT = 1 << 14;

  /** Pieces of one unit: its characters (or their bytes), then BPE merges, best-ranked pair first. */
  function encodeUnit(unit) {
    const ids = [];
    const starts = [];
    const ends = [];
    const bytes = [];
    for (let i = 0; i < unit.length; ) {
      const cp = unit.codePointAt(i);
      const width = cp > 0xffff ? 2 : 1;
      const id = charId.get(cp);
      if (id !== undefined) {
        ids.push(id);
        starts.push(i);
        ends.push(i + width);
      } else {
        // the character's first byte covers it, the others are empty, so offsets never overlap
        bytes.length = 0;
        utf8(cp, bytes).forEach((b, k) => {
          ids.push(byteBase + b);
          starts.push(k ? i + width : i);
          ends.push(i + width);
        });
      }
      i += width;
    }
    for (;;) {
      let best = -1;
      let bestId = Infinity;
      for (let j = 0; j + 1 < ids.length; j++) {
        const id = merged.get(ids[j] * size + ids[j + 1]); // byte pieces are in no merge
        if (id !== undefined && id < bestId) [best, bestId] = [j, id];
      }
      if (best < 0) break;
      ids[best] = bestId;
      ends[best] = ends[best + 1];
      ids.splice(best + 1, 1);
      starts.splice(best + 1, 1);
      ends.splice(best + 1, 1);
    }
    return { ids, starts, ends };
  }

  /**
   * Pieces of `text`: tokens (shown text), ids, and offsets (2 per piece: start and end, UTF-16
   * offsets into `text`, in order, covering it without gaps or overlaps; the bytes of one character
   * after the first cover nothing). With maxLength, at most that many pieces, never half a
   * character's bytes, and `truncated: { total, read }`: the pieces of the whole text and the
   * UTF-16 units the kept pieces cover.
   */
  function tokenize(input, { maxLength = Infinity } = {}) {
    if (typeof input !== 'string') fail(`tokenize: text must be a string, got ${typeof input}`);
    if (!(maxLength >= 0)) fail(`tokenize: maxLength must be a number ≥ 0, got ${maxLength}`);
    const ids = [];
    const offsets = [];
    forEachUnit(input, (start, end) => {
      const unit = input.slice(start, end);
      let enc = cache.get(unit);
      if (!enc) {
        enc = encodeUnit(unit);
        if (cache.size >= CACHE_LIMIT) cache.clear();
        cache.set(unit, enc);
      }
      for (let j = 0; j < enc.ids.length; j++) {
        ids.push(enc.ids[j]);
        offsets.push(start + enc.starts[j], start + enc.ends[j]);
      }
    });
    const total = ids.length;
    let n = Math.min(total, Math.floor(maxLength));
    // a piece that covers nothing continues the character before it: keep all of its bytes or none
    while (n > 0 && n < total && offsets[2 * n] === offsets[2 * n + 1]) n--;
    const result = {
      tokens: ids.slice(0, n).map((id) => pieces[id]),
      ids: Int32Array.from(ids.slice(0, n)),
      offsets: Int32Array.from(offsets.slice(0, 2 * n)),
    };
    if (n < total) result.truncated = { total, read: n ? offsets[2 * n - 1] : 0 };
    return result;
  }

  /** Text of the ids; byte pieces are decoded together (bad UTF-8 reads as U+FFFD). Specials are left out unless `specials: true`, which writes their names. */
  function decode(ids, { specials: withSpecials = false } = {}) {
    if (!ids || typeof ids.length !== 'number' || typeof ids === 'string') fail(`decode: ids must be an array or typed array of ids, got ${typeof ids}`);
    let out = '';
    const run = [];
    const flush = () => {
      // ignoreBOM: a U+FEFF the text began with is text, not a byte-order mark to drop
      if (run.length) out += new TextDecoder('utf-8', { ignoreBOM: true }).decode(Uint8Array.from(run));
      run.length = 0;
    };
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      if (!Number.isInteger(id) || id < 0 || id >= size) fail(`decode: id ${id} at index ${i} is outside the vocabulary (0…${size - 1})`);
      if (id >= byteBase && id < charBase) {
        run.push(id - byteBase);
        continue;
      }
      flush();
      if (id < byteBase) out += withSpecials ? pieces[id] : '';
      else out += text[id];
    }
    flush();
    return out;
  }

  return Object.freeze({
    size,
    specials: Object.freeze([...specials]),
    /** Shown text of every id (as in tokenize's tokens). */
    pieces: Object.freeze(pieces),
    /** Whether the id is one of the 256 byte pieces. */
    isByte: (id) => id >= byteBase && id < charBase,
    tokenize,
    decode,
  });
}
