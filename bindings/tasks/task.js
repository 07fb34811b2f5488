// What every task shares: its tokenizer, the checked options of batch(), and the split rule
// (an example's key is hashed; see splitOf). A task module supplies `draw(random, split)`, one
// example of that split, and gets back the object of the contract (docs/api.md, "Training tasks").
import { AttentionError } from '../errors.js';
import { lmBatch, mlmBatch, seq2seqBatch } from './batch.js';
import { drawer, hashString } from './seeded.js';
import { BOS, EOS, MASK_TOKEN, PAD, UNK } from './vocabulary.js';

/** The most rows one batch may hold. */
export const MAX_BATCH = 65536;

const bad = (message) => new AttentionError('INVALID_ARGUMENT', message);

/** The checked { seed, size, split } of a batch call. */
function batchOptions(name, options) {
  if (options === null || typeof options !== 'object') throw bad(`tasks.${name}.batch: options must be an object { seed, size, split }`);
  const { seed = 1, size, split = 'train' } = options;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw bad(`tasks.${name}.batch: seed must be an integer in 0…4294967295, got ${seed}`);
  if (!Number.isInteger(size) || size < 1 || size > MAX_BATCH) throw bad(`tasks.${name}.batch: size must be an integer in 1…${MAX_BATCH}, got ${size}`);
  if (split !== 'train' && split !== 'validation') throw bad(`tasks.${name}.batch: split must be 'train' or 'validation', got ${JSON.stringify(split)}`);
  return { ...options, seed, size, split };
}

/**
 * A task object. spec: { name, kind, vocab (createVocabulary), maxSourceLength, maxLength, draw,
 * defaults, goal, examples, check, extra? (more own properties), batchExtras? (options → draw's 3rd argument),
 * maskRate? ('mlm': the share of positions masked, default 0.15) }.
 * The task, the split and the seed choose the stream (hashed), so a train and a validation batch of one
 * seed differ, and so do two tasks' batches of one seed.
 * An 'mlm' task's vocabulary lists MASK_TOKEN among its symbols; its draw returns { source, target, ids }
 * and its batch masks them (mlmBatch, seeded from the same stream); the task's `mask` is that id.
 */
export function defineTask(spec) {
  const { name, kind, vocab } = spec;
  const mask = kind === 'mlm' ? vocab.vocabulary.indexOf(MASK_TOKEN) : -1;
  if (kind === 'mlm' && mask < 0) throw new Error(`tasks.${name}: an 'mlm' task's vocabulary must list ${MASK_TOKEN}`);
  const maskRate = spec.maskRate ?? 0.15;
  const builders = {
    seq2seq: seq2seqBatch,
    lm: lmBatch,
    mlm: (rows, random) => mlmBatch(rows, { mask, vocabSize: vocab.vocabulary.length, rate: maskRate, seed: random.int(0, 0xffffffff) }),
  };
  const build = builders[kind] ?? lmBatch;
  function batch(options) {
    const o = batchOptions(name, options);
    const random = drawer(hashString(`${name}/${o.split}/${o.seed}`));
    const extras = spec.batchExtras ? spec.batchExtras(o) : {};
    const rows = Array.from({ length: o.size }, () => spec.draw(random, o.split, extras));
    return build(rows, random);
  }
  return Object.freeze({
    name,
    kind,
    vocabulary: vocab.vocabulary,
    pad: PAD,
    bos: BOS,
    eos: EOS,
    unk: UNK,
    ...(kind === 'mlm' ? { mask } : {}),
    maxSourceLength: spec.maxSourceLength,
    maxLength: spec.maxLength,
    encode: vocab.encode,
    decode: vocab.decode,
    tokens: vocab.tokens,
    batch,
    defaults: deepFreeze(spec.defaults),
    goal: Object.freeze(spec.goal),
    examples: Object.freeze(spec.examples),
    check: spec.check,
    ...spec.extra,
  });
}

function deepFreeze(value) {
  for (const v of Object.values(value)) if (v && typeof v === 'object') deepFreeze(v);
  return Object.freeze(value);
}

/** Draws until `accept` holds (the split test), at most `tries` times: the sample spaces are large. */
export function drawWhere(make, accept, tries = 1000) {
  for (let i = 0; i < tries; i++) {
    const value = make();
    if (accept(value)) return value;
  }
  throw new Error('tasks: no example of the asked split found (a bug: the split rule rejects everything)');
}
