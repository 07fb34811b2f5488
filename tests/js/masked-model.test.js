// The encoder-only kind ('mlm'), masked batches (lab.mlmBatch, an 'mlm' task) and model.attend:
// a toy denoising task that only a bidirectional model solves (a masked token in the first half
// of a row is told only by its mirror in the second half) reaches its goal within a few seconds
// on the SIMD training build, where the same training of a causal ('lm') model cannot; attend's
// rows sum to 1, the encoder's rows weigh later positions and the decoder's do not, its logits
// give model.loss's number; mlmBatch follows BERT's 80/10/10 rule; bad ids, options and batches
// are refused with messages that name them, and nothing is left behind.
import { beforeAll, describe, expect, it } from 'vitest';

import { AttentionError } from '../../dist/node.js';
import { defineTask } from '../../dist/tasks/task.js';
import { createVocabulary } from '../../dist/tasks/vocabulary.js';
import { DETERMINISTIC_BUILDS, loadTrainingLab, rng, thrown } from './helpers.js';

// ---- the toy task: a row is x0 x1 x2 x3 then the same four reversed (x3 x2 x1 x0)

const SYMBOLS = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
const HALF = 4;
const LENGTH = 2 * HALF;

function mirrorTask() {
  const vocab = createVocabulary([...SYMBOLS, '<mask>'], { level: 'char', owner: 'tasks.mirror' });
  const first = 4; // the first symbol's id
  return defineTask({
    name: 'mirror',
    kind: 'mlm',
    vocab,
    maxSourceLength: 0,
    maxLength: LENGTH,
    maskRate: 0.15,
    draw(random) {
      const half = Array.from({ length: HALF }, () => first + random.int(0, SYMBOLS.length - 1));
      const ids = [...half, ...[...half].reverse()];
      const text = vocab.decode(ids);
      return { source: text, target: text, ids };
    },
    defaults: {
      model: { dModel: 32, heads: 4, dFF: 64, encoderLayers: 2, norm: 'pre', positions: 'learned' },
      training: { learningRate: 5e-3, warmup: 0, steps: 1, batchSize: 64, clipNorm: 1 },
    },
    goal: { metric: 'exactMatch', value: 0.95 },
    examples: ['abcddcba'],
    check: () => true,
  });
}

// A row of the task with exactly position `at` masked (in the first half: only its mirror tells it).
function oneMasked(task, random, at) {
  const half = Array.from({ length: HALF }, () => 4 + Math.floor(random() * SYMBOLS.length));
  const ids = [...half, ...[...half].reverse()];
  const input = ids.slice();
  input[at] = task.mask;
  const target = ids.map((id, i) => (i === at ? id : task.pad));
  return { input, target, ids };
}

function firstHalfProbe(task, seed, rows = 256) {
  const random = rng(seed);
  const made = Array.from({ length: rows }, (_, r) => oneMasked(task, random, r % HALF));
  return { input: made.map((m) => m.input), target: made.map((m) => m.target) };
}

function train(lab, task, kind, steps) {
  const model = lab.createTransformer({ task: { ...task, kind }, ...(kind === 'lm' ? { encoderLayers: 0, decoderLayers: 2 } : {}), seed: 7 });
  for (let step = 1; step <= steps; step++) model.trainStep(task.batch({ seed: step, size: 64 }), { learningRate: 5e-3 });
  return model;
}

const codeOf = (f) => thrown(f)?.code;
const messageOf = (f) => thrown(f)?.message ?? '';

describe('a toy denoising task on the SIMD training build', () => {
  let lab;
  let task;
  beforeAll(async () => {
    lab = await loadTrainingLab(true);
    task = mirrorTask();
  });

  it('an encoder-only model learns a masked token from the right; a causal one cannot', () => {
    const STEPS = 600;
    const mlm = train(lab, task, 'mlm', STEPS);
    const probe = firstHalfProbe(task, 99);
    const learned = mlm.evaluate(probe).accuracy;
    const validation = mlm.evaluate(task.batch({ seed: 1, size: 256, split: 'validation' })).accuracy;
    expect(learned).toBeGreaterThanOrEqual(task.goal.value);
    expect(validation).toBeGreaterThanOrEqual(0.9);
    // The same steps on a decoder-only model: a first-half token is a guess among 8.
    const lm = train(lab, task, 'lm', STEPS);
    const causal = lm.evaluate(probe).accuracy;
    console.log(`mirror task, the same training of a causal ('lm') model: first-half accuracy ${causal.toFixed(3)}`);
    expect(causal).toBeLessThan(0.4);
    // The trained encoder reads the mirror: some head of some layer puts most of a masked
    // first-half row's weight on later positions.
    for (let at = 0; at < HALF; at++) {
      const { input } = oneMasked(task, rng(at + 1), at);
      const { attention } = mlm.attend(input);
      const later = Math.max(...attention.flat().map((m) => {
        let sum = 0;
        for (let j = at + 1; j < LENGTH; j++) sum += m.data[at * LENGTH + j];
        return sum;
      }));
      expect(later, `row ${at}`).toBeGreaterThan(0.5);
    }
    mlm.dispose();
    lm.dispose();
  });
});

describe.each(DETERMINISTIC_BUILDS)('model.attend and the mlm kind ($name build)', ({ simd }) => {
  let lab;
  let task;
  beforeAll(async () => {
    lab = await loadTrainingLab(simd);
    task = mirrorTask();
  });

  it('attend gives every layer and head an n × n map whose rows sum to 1, and n × V logits', () => {
    for (const kind of ['mlm', 'lm']) {
      const model = lab.createTransformer({ vocabSize: 13, maxLength: 8, kind, dModel: 16, heads: 2, dFF: 32, ...(kind === 'mlm' ? { encoderLayers: 2 } : { decoderLayers: 2 }), seed: 4 });
      const ids = [5, 6, 0, 7, 12, 4]; // a padding id (0) in the middle
      const { attention, logits } = model.attend(ids);
      expect(attention.length).toBe(2);
      expect(logits).toMatchObject({ rows: 6, cols: 13 });
      expect(logits.data).toBeInstanceOf(Float32Array);
      for (const layer of attention) {
        expect(layer.length).toBe(2);
        for (const m of layer) {
          expect(m).toMatchObject({ rows: 6, cols: 6 });
          expect(m.data).toBeInstanceOf(Float32Array);
          for (let i = 0; i < 6; i++) {
            let sum = 0;
            for (let j = 0; j < 6; j++) {
              const w = m.data[i * 6 + j];
              if (j === 2 || (kind === 'lm' && j > i)) expect(w, `${kind} ${i} ${j}`).toBe(0);
              else expect(w, `${kind} ${i} ${j}`).toBeGreaterThan(0); // the encoder's row i weighs j > i too
              sum += w;
            }
            expect(sum).toBeCloseTo(1, 5);
          }
        }
      }
      // { logits: false } skips the output head: no logits, the same maps and inputs bit for bit.
      const lean = model.attend(ids, { logits: false, inputs: true });
      expect(lean).not.toHaveProperty('logits');
      lean.attention.forEach((layer, l) => layer.forEach((m, h) => expect(Array.from(m.data)).toEqual(Array.from(attention[l][h].data))));
      const full = model.attend(ids, { inputs: true });
      lean.inputs.forEach((m, l) => expect(Array.from(m.data)).toEqual(Array.from(full.inputs[l].data)));
      expect(Array.from(full.logits.data)).toEqual(Array.from(logits.data));
      expect(() => model.attend(ids, { logits: 'no' })).toThrow(/TransformerModel\.attend: logits must be true or false, got no/);
      model.dispose();
    }
  });

  it("attend's logits give the loss model.loss computes, and a later token moves only the encoder's rows", () => {
    const mlm = lab.createTransformer({ task, seed: 2 });
    const ids = [4, task.mask, 6, 7, 7, 6, 5, 4];
    const target = [0, 5, 0, 0, 0, 0, 0, 0];
    const { logits } = mlm.attend(ids);
    const row = Array.from(logits.data.subarray(1 * logits.cols, 2 * logits.cols));
    const top = Math.max(...row);
    const logSum = top + Math.log(row.reduce((s, x) => s + Math.exp(x - top), 0));
    expect(mlm.loss({ input: [ids], target: [target] })).toBeCloseTo(logSum - row[5], 4);
    for (const kind of ['mlm', 'lm']) {
      const model = kind === 'mlm' ? mlm : lab.createTransformer({ task: { ...task, kind }, encoderLayers: 0, seed: 2 });
      const a = model.attend(ids).logits.data;
      const b = model.attend([...ids.slice(0, 6), 9, 4]).logits.data; // position 6 changed
      const sameFirstRows = a.subarray(0, 6 * 13).every((x, k) => Object.is(x, b[k]));
      expect(sameFirstRows, kind).toBe(kind === 'lm');
      model.dispose();
    }
  });

  it("an lm model's attend maps are generate's decoder maps over the tokens it read", () => {
    const model = lab.createTransformer({ vocabSize: 13, maxLength: 8, kind: 'lm', dModel: 16, heads: 2, dFF: 32, decoderLayers: 2, seed: 6 });
    const out = model.generate([5, 6], { maxLength: 4, eos: 12, attention: true, bos: 1 });
    const read = [1, 5, 6, ...out.tokens.slice(0, -1)];
    const { attention } = model.attend(read);
    const n = read.length;
    for (let l = 0; l < 2; l++)
      for (let h = 0; h < 2; h++) {
        const fromGenerate = out.attention.decoder[l][h].slice(0, n).map((r) => r.slice(0, n));
        const fromAttend = Array.from({ length: n }, (_, i) => Array.from(attention[l][h].data.subarray(i * n, (i + 1) * n)));
        expect(fromAttend).toEqual(fromGenerate);
      }
    model.dispose();
  });

  it('refuses bad ids, seq2seq models and generate on an mlm model with clear errors, and leaks nothing', () => {
    const mlm = lab.createTransformer({ task, seed: 3 });
    const good = [4, task.mask, 6];
    const before = mlm.attend(good);
    const heap = lab.heapBytes;
    const cases = [
      [() => mlm.attend([]), /TransformerModel\.attend: ids is empty/],
      [() => mlm.attend(new Array(9).fill(4)), /ids has 9 tokens but this model reads at most maxLength = 8/],
      [() => mlm.attend([4, 13]), /ids\[1\] is 13, not a token id of this model \(0 … 12\)/],
      [() => mlm.attend([-1]), /ids\[0\] is -1/],
      [() => mlm.attend([4, 1.5]), /ids\[1\] is 1\.5/],
      [() => mlm.attend('abc'), /ids must be an array of token ids/],
      [() => mlm.attend(null), /ids must be an array of token ids/],
      [() => mlm.generate([4, 5]), /encoder-only \('mlm'\) model .* does not continue text/],
      [() => mlm.trainStep({ source: [[4]], input: [[4, 5]], target: [[0, 5]] }), /encoder-only \('mlm'\) model, which reads no source/],
    ];
    for (const [call, message] of cases) {
      const error = thrown(call);
      expect(error).toBeInstanceOf(AttentionError);
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(message);
    }
    const seq2seq = lab.createTransformer({ vocabSize: 13, maxLength: 8, dModel: 16, heads: 2, dFF: 32, seed: 1 });
    expect(messageOf(() => seq2seq.attend([4, 5]))).toMatch(/encoder–decoder \('seq2seq'\) model's attention depends on a source/);
    seq2seq.dispose();
    expect(lab.heapBytes).toBe(heap);
    const after = mlm.attend(good); // the model still works, and gives the same numbers
    expect(Array.from(after.logits.data)).toEqual(Array.from(before.logits.data));
    mlm.dispose();
    expect(codeOf(() => mlm.attend(good))).toBe('DISPOSED');
    // Options createTransformer refuses for the kind.
    expect(messageOf(() => lab.createTransformer({ task, decoderLayers: 1 }))).toMatch(/encoder-only \('mlm'\) model has no decoder, so decoderLayers must be 0, got 1/);
    expect(messageOf(() => lab.createTransformer({ task, crossScoring: 'additive' }))).toMatch(/no cross-attention/);
    expect(messageOf(() => lab.createTransformer({ vocabSize: 5, maxLength: 4, kind: 'bert' }))).toMatch(/kind must be 'seq2seq' or 'lm' or 'mlm', got "bert"/);
  });

  it('an mlm model is named encoder.*, saves as a version-3 image at every precision and loads back', () => {
    const model = lab.createTransformer({ task, seed: 5 });
    expect(model.config).toMatchObject({ kind: 'mlm', encoderLayers: 2, decoderLayers: 0 });
    expect(model.tensors[0].name).toBe('encoder.embedding');
    expect(model.tensors.some((t) => t.name.startsWith('decoder.'))).toBe(false);
    model.trainStep(task.batch({ seed: 1, size: 8 }));
    const ids = [4, task.mask, 6, 7];
    for (const precision of ['float32', 'float16', 'int8']) {
      const bytes = model.save({ precision });
      expect(bytes[4], precision).toBe(3);
      const back = lab.loadTransformer(bytes, { task });
      expect(back.config).toEqual(model.config);
      expect(back.steps).toBe(1);
      if (precision === 'float32') expect(Array.from(back.attend(ids).logits.data)).toEqual(Array.from(model.attend(ids).logits.data));
      back.dispose();
    }
    model.dispose();
  });
});

describe('mlmBatch', () => {
  let lab;
  beforeAll(async () => {
    lab = await loadTrainingLab(true);
  });

  it("follows BERT's rule: about rate of the positions chosen, 80 % masked, 10 % random, 10 % kept; pad targets elsewhere", () => {
    const random = rng(11);
    const rows = Array.from({ length: 2000 }, () => ({ ids: Array.from({ length: 5 + Math.floor(random() * 6) }, () => 4 + Math.floor(random() * 20)) }));
    const MASK = 24;
    const batch = lab.mlmBatch(rows, { mask: MASK, vocabSize: 25, rate: 0.2, seed: 3 });
    expect(batch).toMatchObject({ size: 2000, sourceLength: 0, source: null });
    let positions = 0;
    let chosen = 0;
    let masked = 0;
    let kept = 0;
    let replaced = 0;
    rows.forEach(({ ids }, b) => {
      let inRow = 0;
      for (let i = 0; i < batch.length; i++) {
        const at = b * batch.length + i;
        if (i >= ids.length) {
          expect(batch.input[at]).toBe(0);
          expect(batch.target[at]).toBe(0);
          continue;
        }
        positions++;
        const input = batch.input[at];
        if (batch.target[at] === 0) {
          expect(input).toBe(ids[i]); // not chosen: as it was
          continue;
        }
        chosen++;
        inRow++;
        expect(batch.target[at]).toBe(ids[i]);
        if (input === MASK) masked++;
        else if (input === ids[i]) kept++;
        else {
          replaced++;
          expect(input).toBeGreaterThanOrEqual(4);
          expect(input).toBeLessThan(MASK);
        }
      }
      expect(inRow, `row ${b}`).toBeGreaterThanOrEqual(1);
    });
    expect(chosen / positions).toBeGreaterThan(0.19);
    expect(chosen / positions).toBeLessThan(0.24); // the rate, plus a forced choice in rows that had none
    expect(masked / chosen).toBeCloseTo(0.8, 1);
    // a random replacement equal to the token itself counts as kept: 10 % + 10 %/20
    expect(replaced / chosen).toBeGreaterThan(0.08);
    expect(replaced / chosen).toBeLessThan(0.12);
    expect(kept / chosen).toBeGreaterThan(0.08);
    expect(kept / chosen).toBeLessThan(0.13);
    // One seed gives one batch; another seed another.
    const again = lab.mlmBatch(rows, { mask: MASK, vocabSize: 25, rate: 0.2, seed: 3 });
    expect(Array.from(again.input)).toEqual(Array.from(batch.input));
    const other = lab.mlmBatch(rows, { mask: MASK, vocabSize: 25, rate: 0.2, seed: 4 });
    expect(Array.from(other.input)).not.toEqual(Array.from(batch.input));
  });

  it('refuses bad options and ids, naming them', () => {
    const rows = [{ ids: [4, 5, 6] }];
    const cases = [
      [() => lab.mlmBatch(rows, { vocabSize: 8 }), /mlmBatch: mask must be a token id \(0 … 7\), got undefined/],
      [() => lab.mlmBatch(rows, { mask: 8, vocabSize: 8 }), /mask must be a token id \(0 … 7\), got 8/],
      [() => lab.mlmBatch(rows, { mask: 7, vocabSize: 8, rate: 0 }), /rate must be a number in \(0, 1\], got 0/],
      [() => lab.mlmBatch(rows, { mask: 7, vocabSize: 8, seed: -1 }), /seed must be an integer in 0…4294967295, got -1/],
      [() => lab.mlmBatch([{ ids: [4, 9] }], { mask: 7, vocabSize: 8 }), /rows\[0\]\.ids\[1\] is 9, not a token id \(0 … 7\)/],
      [() => lab.mlmBatch('rows', { mask: 7, vocabSize: 8 }), /rows must be an array/],
      [() => lab.mlmBatch(rows), /options must be an object/],
    ];
    for (const [call, message] of cases) {
      const error = thrown(call);
      expect(error).toBeInstanceOf(AttentionError);
      expect(error.message).toMatch(message);
    }
  });

  it("an 'mlm' task's batches are seeded masked batches and its mask is its <mask> id", () => {
    const task = mirrorTask();
    expect(task.mask).toBe(task.vocabulary.indexOf('<mask>'));
    const a = task.batch({ seed: 5, size: 16 });
    expect(Array.from(task.batch({ seed: 5, size: 16 }).input)).toEqual(Array.from(a.input));
    expect(a.input.includes(task.mask)).toBe(true);
    expect(a.target.some((id) => id !== 0)).toBe(true);
    expect(() => defineTask({ ...{ name: 'x', kind: 'mlm', vocab: createVocabulary(['a'], { level: 'char', owner: 'x' }) } })).toThrow(/must list <mask>/);
  });
});
