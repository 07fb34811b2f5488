// Examples padded into the typed arrays a model trains on. Each batch is as long as its longest
// row (pad id 0 after the end of shorter rows), so a batch of short examples costs less.
import { BOS, EOS, PAD } from './vocabulary.js';

/** Rows of different lengths → one size×length Int32Array padded with PAD. */
function pack(rows, length) {
  const out = new Int32Array(rows.length * length); // zero-filled = PAD
  rows.forEach((row, b) => out.set(row, b * length));
  return out;
}

const longest = (rows) => rows.reduce((m, r) => Math.max(m, r.length), 0);

/**
 * Encoder–decoder batch: source = the encoded source; teacher forcing on the decoder side,
 * input = [bos, ...target] and target = [...target, eos] (the input shifted left by one).
 * `pairs`: [{ source, target, sourceIds, targetIds }].
 */
export function seq2seqBatch(pairs) {
  const sources = pairs.map((p) => p.sourceIds);
  const inputs = pairs.map((p) => [BOS, ...p.targetIds]);
  const targets = pairs.map((p) => [...p.targetIds, EOS]);
  const length = longest(inputs);
  const sourceLength = longest(sources);
  return {
    size: pairs.length,
    length,
    input: pack(inputs, length),
    target: pack(targets, length),
    sourceLength,
    source: pack(sources, sourceLength),
    examples: pairs.map(({ source, target }) => ({ source, target })),
  };
}

/**
 * Decoder-only batch: input = [bos, ...ids]; target at position i = the token after input[i]
 * ((ids then eos)[i]) where counted[i] is true, PAD where it is not.
 * `rows`: [{ source, target, ids, counted }] with counted.length = ids.length + 1.
 */
export function lmBatch(rows) {
  const inputs = rows.map((r) => [BOS, ...r.ids]);
  const targets = rows.map((r) => [...r.ids, EOS].map((id, i) => (r.counted[i] ? id : PAD)));
  const length = longest(inputs);
  return {
    size: rows.length,
    length,
    input: pack(inputs, length),
    target: pack(targets, length),
    sourceLength: 0,
    source: null,
    examples: rows.map(({ source, target }) => ({ source, target })),
  };
}
