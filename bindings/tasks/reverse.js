// lab.tasks.reverse: a short sequence of symbols → the same symbols in reverse order
// (encoder–decoder). Trained, the cross-attention is an anti-diagonal: output i reads input n−1−i.
import { defineTask, drawWhere } from './task.js';
import { splitOf } from './seeded.js';
import { createVocabulary } from './vocabulary.js';

const SYMBOLS = Array.from('abcdefghij');
const SHORTEST = 3;
const LONGEST = 10;

const vocabulary = () => createVocabulary(SYMBOLS, { level: 'char', owner: 'tasks.reverse' });
const reversed = (text) => Array.from(text).reverse().join('');

function drawExample(vocab, random, split) {
  const make = () => Array.from({ length: random.int(SHORTEST, LONGEST) }, () => random.pick(SYMBOLS)).join('');
  const source = drawWhere(make, (s) => splitOf(s) === split);
  const target = reversed(source);
  return { source, target, sourceIds: vocab.encode(source), targetIds: vocab.encode(target) };
}

/** The reverse task (built on first use, as every task: index.js). */
export function createReverse() {
  const vocab = vocabulary();
  const draw = (random, split) => drawExample(vocab, random, split);
  return defineTask({
    name: 'reverse',
    kind: 'seq2seq',
    vocab,
    maxSourceLength: LONGEST,
    maxLength: LONGEST + 1,
    draw,
    // The dates recipe (bench/train.mjs, 2026-11): 99 % greedy exact match at step 1,100, about 10 s.
    defaults: {
      model: { dModel: 32, heads: 4, dFF: 64, encoderLayers: 1, decoderLayers: 1, norm: 'pre', positions: 'sinusoidal' },
      training: { learningRate: 1e-2, warmup: 200, batchSize: 32, steps: 1200, clipNorm: 1 },
    },
    goal: { metric: 'exactMatch', value: 0.99 },
    examples: ['abcdef', 'jihgfedcba', 'aabbc'],
    /** True when `output` is `input` reversed (input of 3…10 task symbols). */
    check: (input, output) => typeof input === 'string' && /^[a-j]{3,10}$/.test(input) && output === reversed(input),
    extra: { symbols: Object.freeze(SYMBOLS), shortest: SHORTEST, longest: LONGEST, splitOf: (sequence) => splitOf(sequence) },
  });
}
