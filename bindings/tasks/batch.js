// Examples padded into the typed arrays a model trains on. Each batch is as long as its longest
// row (pad id 0 after the end of shorter rows), so a batch of short examples costs less.
import { AttentionError } from '../errors.js';
import { drawer } from './seeded.js';
import { BOS, EOS, PAD, SPECIALS } from './vocabulary.js';

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

const bad = (message) => new AttentionError('INVALID_ARGUMENT', `mlmBatch: ${message}`);

/** The checked options of mlmBatch. */
function maskOptions(rows, options) {
  if (!Array.isArray(rows)) throw bad(`rows must be an array of { ids } (token ids, no BOS or EOS), got ${rows === null ? 'null' : typeof rows}`);
  if (options === null || typeof options !== 'object') throw bad('options must be an object { mask, vocabSize, rate?, seed? }');
  const { mask, vocabSize, rate = 0.15, seed = 1 } = options;
  if (!Number.isInteger(vocabSize) || vocabSize < 1) throw bad(`vocabSize must be a positive integer, got ${String(vocabSize)}`);
  if (!Number.isInteger(mask) || mask < 0 || mask >= vocabSize) throw bad(`mask must be a token id (0 … ${vocabSize - 1}), got ${String(mask)}`);
  if (typeof rate !== 'number' || !(rate > 0 && rate <= 1)) throw bad(`rate must be a number in (0, 1], got ${String(rate)}`);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw bad(`seed must be an integer in 0…4294967295, got ${String(seed)}`);
  rows.forEach((row, b) => {
    const ids = row?.ids;
    if (!Array.isArray(ids) && !ArrayBuffer.isView(ids)) throw bad(`rows[${b}].ids must be an array of token ids`);
    for (let i = 0; i < ids.length; i++)
      if (!Number.isInteger(ids[i]) || ids[i] < 0 || ids[i] >= vocabSize) throw bad(`rows[${b}].ids[${i}] is ${String(ids[i])}, not a token id (0 … ${vocabSize - 1})`);
  });
  return { mask, vocabSize, rate, seed };
}

/**
 * Masked-prediction batch (BERT's rule) for an encoder-only ('mlm') model: each position of a row
 * is chosen with probability `rate` (one at random when none was, so every non-empty row counts);
 * a chosen position reads `mask` 80 % of the time, a random ordinary token (ids SPECIALS.length …
 * vocabSize − 1 but the mask) 10 %, and its own token 10 %; its target is the original id. Every other
 * target is PAD (not counted). input = the ids (no BOS or EOS), padded with PAD.
 * `rows`: [{ source?, target?, ids }]. options: { mask, vocabSize, rate = 0.15, seed = 1 }: one seed
 * gives the same batch. Throws an AttentionError (INVALID_ARGUMENT) naming a bad option or id.
 */
export function mlmBatch(rows, options) {
  const { mask, vocabSize, rate, seed } = maskOptions(rows, options);
  const random = drawer(seed);
  const first = SPECIALS.length;
  const ordinary = Math.max(0, vocabSize - first - (mask >= first ? 1 : 0));
  const inputs = [];
  const targets = [];
  for (const row of rows) {
    const ids = Array.from(row.ids);
    const chosen = ids.map(() => random.next() < rate);
    if (ids.length > 0 && !chosen.includes(true)) chosen[random.int(0, ids.length - 1)] = true;
    const input = ids.slice();
    ids.forEach((id, i) => {
      if (!chosen[i]) return;
      const r = random.next();
      if (r < 0.8) input[i] = mask;
      else if (r < 0.9 && ordinary > 0) {
        const k = first + random.int(0, ordinary - 1);
        input[i] = k >= mask && mask >= first ? k + 1 : k;
      }
    });
    inputs.push(input);
    targets.push(ids.map((id, i) => (chosen[i] ? id : PAD)));
  }
  const length = longest(inputs);
  return {
    size: rows.length,
    length,
    input: pack(inputs, length),
    target: pack(targets, length),
    sourceLength: 0,
    source: null,
    examples: rows.map(({ source = '', target = '' }) => ({ source, target })),
  };
}
