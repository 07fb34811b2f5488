// The rows the reader's models read, in training and in measurement: windows of the corpora and the
// generated sentences, as token ids of the shared tokenizer. Everything is seeded, so one recipe gives
// the same rows in the same order on every run.
//   corpusWindows    windows of a corpus split: a seeded place in the text, moved on to just after the
//                    next boundary (a space in English; a line end or ，。！？； in Chinese), then the
//                    pieces that follow, at most `length` of them
//   generatedRows    the generated sentences' training stream; a pronoun sentence also names its
//                    pronoun's piece and its referent's first piece (the encoder's auxiliary target)
//   lmBatchOf        rows of pieces as a causal model's batch: <bos> + pieces → the pieces
import { readFileSync } from 'node:fs';

import { BOS, PAD, createTokenizer } from '../../bindings/reader/tokenizer.js';
import { sentences } from './sentences.mjs';

export const READER_DIR = new URL('../../build/reader/', import.meta.url);
export const tokenizer = createTokenizer(JSON.parse(readFileSync(new URL('../../bindings/reader/vocabulary.json', import.meta.url), 'utf8')));

/** A seeded uniform draw in [0, 1) (a linear congruential generator: enough to pick places). */
export function uniform(seed) {
  let state = seed >>> 0;
  return () => (state = (Math.imul(state, 1103515245) + 12345) >>> 0) / 2 ** 32;
}

/** Indices of the pieces covering [start, end) of the text. */
export function piecesIn(offsets, [start, end]) {
  const out = [];
  for (let i = 0; i < offsets.length / 2; i++) if (offsets[2 * i] < end && offsets[2 * i + 1] > start) out.push(i);
  return out;
}

const texts = new Map();
/** A corpus split's text (build/reader/<language>.<split>.txt), read once. */
export function corpusText(language, split) {
  const key = `${language}.${split}`;
  if (!texts.has(key)) texts.set(key, readFileSync(new URL(`${key}.txt`, READER_DIR), 'utf8').replace(/\n{2,}/g, '\n'));
  return texts.get(key);
}

const BOUNDARY = { en: /\s/, zh: /[\n，。！？；]/ };
const CHARACTERS_PER_PIECE = { en: 8, zh: 2 }; // more text than `length` pieces need

/** Endless windows of at most `length` pieces of a corpus split, from places drawn with `seed`. */
export function* corpusWindows(language, split, { seed, length }) {
  const text = corpusText(language, split);
  const next = uniform(seed);
  for (;;) {
    let at = Math.floor(next() * text.length);
    while (at < text.length && !BOUNDARY[language].test(text[at])) at++;
    while (at < text.length && /\s/.test(text[at])) at++;
    if (at >= text.length - 1) continue;
    const { ids } = tokenizer.tokenize(text.slice(at, at + length * CHARACTERS_PER_PIECE[language]), { maxLength: length });
    if (ids.length) yield Array.from(ids);
  }
}

/**
 * Endless generated training sentences of one language as { ids, aux? }: aux = { at, target } at a
 * pronoun, `at` its first piece, `target` the first piece of its referent.
 */
export function* generatedRows(language, { length }) {
  for (const item of sentences({ language, split: 'train', count: 10_000_000 })) {
    const { ids, offsets } = tokenizer.tokenize(item.text, { maxLength: length });
    const row = { ids: Array.from(ids) };
    if (item.kind === 'pronoun') {
      const at = piecesIn(offsets, item.pronoun.span);
      const referent = piecesIn(offsets, item.candidates[item.referent].span);
      if (at.length && referent.length) row.aux = { at: at[0], target: ids[referent[0]] };
    }
    yield row;
  }
}

/**
 * A causal model's batch of `rows` (arrays of at most maxLength pieces): input <bos> and every piece
 * but the last, target every piece (each position predicts the piece after what it has read).
 */
export function lmBatchOf(rows) {
  const length = Math.max(...rows.map((r) => r.length));
  const input = new Int32Array(rows.length * length).fill(PAD);
  const target = new Int32Array(rows.length * length).fill(PAD);
  rows.forEach((r, i) => {
    input[i * length] = BOS;
    input.set(r.slice(0, -1), i * length + 1);
    target.set(r, i * length);
  });
  return { size: rows.length, length, input, target, sourceLength: 0, source: null };
}
