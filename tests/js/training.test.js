// lab.createTransformer / lab.loadTransformer and the model object on both
// builds: a tiny model memorises a fixed batch; trainStep reports the loss of
// the weights before it; gradients against central finite differences of
// loss(); save → load gives identical outputs; hostile images are refused and
// the module keeps working; dispose frees and every later call throws; the
// heap stays flat over many steps and many models; an absurd learning rate
// reports `diverged` with the weights unchanged (also when an update would take
// one beyond 65,504); bad options and batches are refused with messages that
// name them.
import { beforeAll, describe, expect, it } from 'vitest';

import { AttentionError, AttentionRangeError } from '../../dist/node.js';
import { DETERMINISTIC_BUILDS, loadTrainingLab, rng, thrown } from './helpers.js';

// ids: 0 pad, 1 bos, 2 eos, 3 … 9 symbols. The task: reverse the source.
const VOCAB = 10;
const SOURCES = [[3, 4, 5], [6, 7, 8, 9], [9, 3], [5, 5, 6]];
function reverseBatch(sources = SOURCES) {
  const target = sources.map((s) => [...s].reverse().concat(2));
  const input = target.map((t) => [1, ...t.slice(0, -1)]);
  return { source: sources, input, target };
}
const TINY = { vocabSize: VOCAB, maxLength: 6, dModel: 16, heads: 2, dFF: 32, encoderLayers: 1, decoderLayers: 1, seed: 3 };

const codeOf = (f) => thrown(f)?.code;
const messageOf = (f) => thrown(f)?.message ?? '';

describe.each(DETERMINISTIC_BUILDS)('training ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadTrainingLab(simd);
  });

  it('a tiny encoder–decoder memorises a fixed batch through the JS API, and generates its rows', () => {
    const model = lab.createTransformer(TINY);
    const batch = reverseBatch();
    const first = model.loss(batch);
    let last;
    for (let i = 0; i < 400; i++) last = model.trainStep(batch, { learningRate: 1e-2 });
    const end = model.evaluate(batch);
    expect(first).toBeGreaterThan(1);
    expect(end.loss).toBeLessThan(0.05);
    expect(end.accuracy).toBe(1);
    expect(end.exactMatch).toBe(1);
    expect(end.counted).toBe(batch.target.flat().length);
    expect(last.step).toBe(400);
    expect(model.steps).toBe(400);
    for (const [i, source] of SOURCES.entries()) expect(model.generate(source).tokens).toEqual(batch.target[i]);
    model.dispose();
  });

  it('a decoder-only model memorises next tokens', () => {
    const model = lab.createTransformer({ vocabSize: VOCAB, maxLength: 6, kind: 'lm', dModel: 16, heads: 2, dFF: 32, seed: 5 });
    // the first token follows BOS in both rows, so it is not counted (target 0), as a prompt
    const rows = [[3, 4, 5, 6, 2], [7, 8, 9, 3, 2]];
    const batch = { input: rows.map((r) => [1, ...r.slice(0, -1)]), target: rows.map((r) => [0, ...r.slice(1)]) };
    for (let i = 0; i < 300; i++) model.trainStep(batch, { learningRate: 1e-2 });
    expect(model.evaluate(batch).exactMatch).toBe(1);
    expect(model.generate([3]).tokens).toEqual([4, 5, 6, 2]);
    expect(model.generate([7, 8]).tokens).toEqual([9, 3, 2]);
    model.dispose();
  });

  it("trainStep's loss is loss(batch) of the weights before the step, and the step changes them", () => {
    const model = lab.createTransformer(TINY);
    const batch = reverseBatch();
    for (let i = 0; i < 3; i++) {
      const before = model.loss(batch);
      const step = model.trainStep(batch, { learningRate: 3e-3 });
      expect(step.loss).toBeCloseTo(before, 5);
      expect(step.diverged).toBe(false);
      expect(step.gradientNorm).toBeGreaterThan(0);
      expect(model.loss(batch)).not.toBe(before);
    }
    model.dispose();
  });

  it('gradients(batch) agree with central finite differences of loss(batch) (perturbed through setParameters)', () => {
    for (const options of [TINY, { ...TINY, crossScoring: 'additive', norm: 'pre', positions: 'learned', activation: 'gelu' }]) {
      const model = lab.createTransformer(options);
      const batch = reverseBatch();
      const grads = model.gradients(batch);
      const params = model.parameters();
      const rand = rng(11);
      let checked = 0;
      for (const { name, rows, cols } of model.tensors) {
        // the entry of this tensor with the largest gradient, and one at random
        const g = grads[name].data;
        const big = g.reduce((best, x, k) => (Math.abs(x) > Math.abs(g[best]) ? k : best), 0);
        for (const k of [big, Math.floor(rand() * rows * cols)]) {
          const h = 1e-2;
          const at = (delta) => {
            const data = params[name].data.slice();
            data[k] += delta;
            model.setParameters({ [name]: { rows, cols, data } });
            return model.loss(batch);
          };
          const fd = (at(h) - at(-h)) / (2 * h);
          model.setParameters({ [name]: params[name] });
          expect(Math.abs(fd - g[k]), `${name}[${k}]: finite difference ${fd}, gradient ${g[k]}`).toBeLessThan(2e-3 + 0.05 * Math.abs(g[k]));
          checked++;
        }
      }
      expect(checked).toBe(2 * model.tensors.length);
      model.dispose();
    }
  });

  it('save → loadTransformer gives identical evaluate, generate and attention maps', () => {
    const model = lab.createTransformer(TINY);
    const batch = reverseBatch();
    for (let i = 0; i < 20; i++) model.trainStep(batch, { learningRate: 1e-2 });
    const bytes = model.save();
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(String.fromCharCode(...bytes.subarray(0, 4))).toBe('ATLM');
    const copy = lab.loadTransformer(bytes);
    expect(copy.config).toEqual(model.config);
    expect(copy.steps).toBe(20);
    expect(copy.evaluate(batch)).toEqual(model.evaluate(batch));
    expect(copy.generate([3, 4, 5], { attention: true })).toEqual(model.generate([3, 4, 5], { attention: true }));
    expect(copy.save()).toEqual(bytes);
    model.dispose();
    copy.dispose();
  });

  it('hostile images (truncated, flipped, random, huge sizes) are AttentionErrors and the module keeps working', () => {
    const model = lab.createTransformer(TINY);
    const batch = reverseBatch();
    const loss = model.loss(batch);
    const bytes = model.save();
    const tryLoad = (b) => {
      try {
        lab.loadTransformer(b).dispose(); // a flip inside the weights still is a valid image
      } catch (e) {
        expect(e).toBeInstanceOf(AttentionError);
        expect(e.code).toBe('INVALID_ARGUMENT');
      }
    };
    for (const n of [0, 3, 4, 7, 8, 12, 16, 40, bytes.length >> 1, bytes.length - 1])
      expect(codeOf(() => lab.loadTransformer(bytes.subarray(0, n))), `truncated to ${n}`).toBe('INVALID_ARGUMENT');
    expect(codeOf(() => lab.loadTransformer(Uint8Array.of(...bytes, 0)))).toBe('INVALID_ARGUMENT');
    const rand = rng(5);
    for (let i = 0; i < 64; i++) {
      const b = bytes.slice();
      b[Math.floor(rand() * Math.min(b.length, 128))] ^= 1 << Math.floor(rand() * 8);
      tryLoad(b);
    }
    for (let offset = 0; offset + 4 <= 128; offset += 4) {
      for (const word of [0xffffffff, 0x7fffffff, 0x10000000, 0]) {
        const b = bytes.slice();
        new DataView(b.buffer).setUint32(offset, word, true);
        tryLoad(b);
      }
    }
    for (let i = 0; i < 16; i++) {
      const b = Uint8Array.from({ length: 16 + Math.floor(rand() * 4096) }, () => Math.floor(rand() * 256));
      if (i % 2) b.set([65, 84, 76, 77]); // 'ATLM' and garbage
      tryLoad(b);
    }
    expect(messageOf(() => lab.loadTransformer(new Uint8Array(64)))).toMatch(/not a model saved by model\.save\(\)/);
    expect(codeOf(() => lab.loadTransformer([1, 2, 3]))).toBe('INVALID_ARGUMENT');
    expect(model.loss(batch)).toBe(loss);
    model.dispose();
  });

  it('after dispose every call throws DISPOSED; dispose twice is harmless', () => {
    const model = lab.createTransformer(TINY);
    const batch = reverseBatch();
    model.dispose();
    model.dispose();
    expect(model.disposed).toBe(true);
    const calls = {
      trainStep: () => model.trainStep(batch), evaluate: () => model.evaluate(batch), loss: () => model.loss(batch),
      gradients: () => model.gradients(batch), parameters: () => model.parameters(), setParameters: () => model.setParameters({}),
      generate: () => model.generate([3]), save: () => model.save(), steps: () => model.steps,
    };
    for (const [name, call] of Object.entries(calls)) {
      expect(codeOf(call), name).toBe('DISPOSED');
      expect(messageOf(call)).toMatch(new RegExp(`TransformerModel\\.${name}: this model was disposed`));
    }
  });

  it('dispose frees: the heap does not grow over many create/dispose cycles', () => {
    const big = { ...TINY, dModel: 64, dFF: 256, encoderLayers: 2, decoderLayers: 2 };
    const batch = reverseBatch();
    for (let i = 0; i < 5; i++) {
      const m = lab.createTransformer(big);
      m.trainStep(batch);
      m.dispose();
    }
    const before = lab.heapBytes;
    const probe = lab.createTransformer(big);
    const modelBytes = probe.parameterCount * 4 * 4; // parameters, gradients, two moments
    probe.dispose();
    for (let i = 0; i < 100; i++) {
      const m = lab.createTransformer(big);
      m.trainStep(batch);
      m.dispose();
    }
    // 100 leaked models would be 100 × modelBytes; none is.
    expect(100 * modelBytes).toBeGreaterThan(64 * 1024 * 1024);
    expect(lab.heapBytes).toBe(before);
  });

  it('memory is flat over 2,000 training steps', () => {
    const model = lab.createTransformer(TINY);
    const batch = reverseBatch();
    for (let i = 0; i < 10; i++) model.trainStep(batch);
    const before = lab.heapBytes;
    for (let i = 0; i < 2000; i++) model.trainStep(batch, { learningRate: 1e-3 });
    expect(lab.heapBytes).toBe(before);
    expect(model.steps).toBe(2010);
    model.dispose();
  });

  it('an absurd learning rate is `diverged` at once, the weights and moments kept; a sane rate then trains on', () => {
    for (const learningRate of [1e30, 1e20]) {
      const model = lab.createTransformer(TINY);
      const twin = lab.createTransformer(TINY);
      const batch = reverseBatch();
      const before = model.parameters();
      // 1e20 without clipping: every weight finite after the update, but near 1e20 (beyond 65,504).
      const result = model.trainStep(batch, { learningRate, clipNorm: 0 });
      expect(result).toMatchObject({ diverged: true, step: 0 });
      expect(Number.isFinite(result.loss)).toBe(true);
      expect(model.parameters()).toEqual(before);
      expect(model.steps).toBe(0);
      // The next step is the one a model that never saw the refused one takes, bit for bit.
      const again = model.trainStep(batch, { learningRate: 1e-3 });
      expect(again).toEqual(twin.trainStep(batch, { learningRate: 1e-3 }));
      expect(again).toMatchObject({ diverged: false, step: 1 });
      expect(model.parameters()).toEqual(twin.parameters());
      model.dispose();
      twin.dispose();
    }
  });

  it('setParameters checks names and shapes before writing anything', () => {
    const model = lab.createTransformer(TINY);
    const p = model.parameters();
    const [first, second] = model.tensors;
    const wrong = { rows: first.rows + 1, cols: first.cols, data: new Float32Array((first.rows + 1) * first.cols) };
    expect(codeOf(() => model.setParameters({ [second.name]: { ...p[second.name], data: p[second.name].data.map(() => 7) }, [first.name]: wrong }))).toBe('SHAPE_MISMATCH');
    expect(messageOf(() => model.setParameters({ [first.name]: wrong }))).toContain(`this model's ${first.name} is ${first.rows}×${first.cols}`);
    expect(model.parameters()).toEqual(p);
    expect(messageOf(() => model.setParameters({ 'output.ww': p['output.w'] }))).toMatch(/no parameter output\.ww; did you mean output\.w\?/);
    const nan = p[first.name].data.slice();
    nan[0] = NaN;
    expect(codeOf(() => model.setParameters({ [first.name]: { rows: first.rows, cols: first.cols, data: nan } }))).toBe('NON_FINITE');
    const doubled = { rows: first.rows, cols: first.cols, data: p[first.name].data.map((x) => 2 * x) };
    model.setParameters({ [first.name]: doubled });
    expect(model.parameters()[first.name]).toEqual(doubled);
    model.dispose();
  });

  it('generate returns [layer][head] attention maps whose rows are distributions, the decoder causal', () => {
    const model = lab.createTransformer({ ...TINY, encoderLayers: 2, decoderLayers: 2 });
    const { tokens, attention } = model.generate([3, 4, 5, 6], { attention: true, maxLength: 4 });
    const rows = Math.min(tokens.length, 4);
    expect(attention.encoder.length).toBe(2);
    expect(attention.encoder[1].length).toBe(2);
    expect(attention.encoder[0][0].length).toBe(4);
    expect(attention.cross[1][1].length).toBe(rows);
    expect(attention.cross[0][0][0].length).toBe(4);
    expect(attention.decoder[0][0].length).toBe(rows);
    expect(attention.labels.cross.cols).toEqual(['3', '4', '5', '6']);
    expect(attention.labels.decoder.rows[0]).toBe('1');
    for (const kind of ['encoder', 'decoder', 'cross'])
      for (const layer of attention[kind]) for (const head of layer) for (const row of head) expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
    for (const row of attention.decoder[1][0].keys()) for (let j = row + 1; j < rows; j++) expect(attention.decoder[1][0][row][j]).toBe(0);
    expect(model.generate([3, 4]).attention).toBeUndefined();
    model.dispose();
  });

  it("a task's model: sizes from task.defaults, its typed-array batches, text and token labels, and a task again after loading", () => {
    const task = lab.tasks.dates;
    const model = lab.createTransformer({ task, seed: 1 });
    const sizes = task.defaults.model;
    expect(model.config).toMatchObject({ ...sizes, kind: 'seq2seq', vocabSize: task.vocabulary.length, maxLength: Math.max(task.maxLength, task.maxSourceLength) });
    expect(model.task).toBe(task);
    const batch = task.batch({ seed: 1, size: 4, split: 'train' });
    const step = model.trainStep(batch);
    expect(step.step).toBe(1);
    expect(model.evaluate(batch).counted).toBe(batch.target.filter((id) => id !== task.pad).length);
    const source = task.encode('2026年12月1日');
    const { tokens, text, attention } = model.generate(source, { attention: true });
    expect(text).toBe(task.decode(tokens));
    expect(attention.labels.cross.cols).toEqual(task.tokens(source));
    expect(attention.labels.decoder.rows[0]).toBe(task.vocabulary[task.bos]);
    expect(attention.encoder.length).toBe(sizes.encoderLayers);
    const copy = lab.loadTransformer(model.save(), { task });
    expect(copy.generate(source).text).toBe(text);
    expect(messageOf(() => lab.loadTransformer(model.save(), { task: lab.tasks.reverse }))).toMatch(/saved model has a vocabulary of \d+ but the task's has \d+/);
    for (const name of ['reverse', 'repeat', 'grammar']) {
      const t = lab.tasks[name];
      const m = lab.createTransformer({ task: t });
      expect(m.config.kind, name).toBe(t.kind);
      expect(m.config.encoderLayers === 0, name).toBe(t.kind === 'lm');
      expect(m.trainStep(t.batch({ seed: 2, size: 4, split: 'train' })).diverged, name).toBe(false);
      m.dispose();
    }
    model.dispose();
    copy.dispose();
  });

  it('a batch or decode too large for the core\'s activation limit is an AttentionRangeError, and the model keeps working', () => {
    const wide = lab.createTransformer({ vocabSize: VOCAB, maxLength: 4096, kind: 'lm', dModel: 16, heads: 2, dFF: 32 });
    const long = [Array(4096).fill(3)];
    for (const call of [() => wide.loss({ input: long, target: long }), () => wide.trainStep({ input: long, target: long }), () => wide.generate(long[0].slice(0, 3000), { maxLength: 1000 })]) {
      const error = thrown(call);
      expect(error).toBeInstanceOf(AttentionRangeError);
      expect(error.code).toBe('OUT_OF_MEMORY');
      expect(error.message).toMatch(/needs more than the 256 MiB of activations the model may hold/);
    }
    const short = [Array(64).fill(3)];
    expect(Number.isFinite(wide.loss({ input: short, target: short }))).toBe(true);
    expect(wide.steps).toBe(0);
    wide.dispose();
  });

  it('bad options are refused with messages naming them', () => {
    const cases = [
      [{ ...TINY, dmodel: 16 }, /unknown option dmodel.*did you mean dModel/],
      [{ ...TINY, dModel: 18, heads: 4 }, /dModel 18 does not split into 4 heads/],
      [{ ...TINY, kind: 'lm', encoderLayers: 2 }, /decoder-only \('lm'\) model has no encoder, so encoderLayers must be 0, got 2/],
      [{ ...TINY, kind: 'lm', encoderLayers: 0, crossScoring: 'dot' }, /no cross-attention, so crossScoring/],
      [{ ...TINY, crossScoring: 'bahdanau' }, /crossScoring must be 'dot' or 'additive', got "bahdanau"/],
      [{ ...TINY, norm: 'middle' }, /norm must be 'post' or 'pre'/],
      [{ ...TINY, kind: 'encoder' }, /kind must be 'seq2seq' or 'lm'/],
      [{ ...TINY, vocabSize: undefined }, /vocabSize is required without a task/],
      [{ ...TINY, maxLength: 0 }, /maxLength must be a positive integer/],
      [{ ...TINY, seed: -1 }, /seed must be an integer/],
      [{ ...TINY, heads: 2.5 }, /heads must be a positive integer/],
      [{ ...TINY, scaled: 'yes' }, /scaled must be true or false/],
      [{ task: { kind: 'seq2seq', vocabulary: ['a'], maxLength: 3 }, vocabSize: 4 }, /vocabSize is 4 but the task's is 1/],
      [{ task: 'dates' }, /task must be a task object/],
    ];
    for (const [options, message] of cases) {
      const error = thrown(() => lab.createTransformer(options));
      expect(error, JSON.stringify(options)).toBeInstanceOf(AttentionError);
      expect(error.message).toMatch(message);
      expect(error.message).toMatch(/^createTransformer: /);
    }
    expect(codeOf(() => lab.createTransformer())).toBe('INVALID_ARGUMENT');
    const model = lab.createTransformer(TINY);
    const batch = reverseBatch();
    expect(messageOf(() => model.trainStep(batch, { lr: 1 }))).toMatch(/unknown option lr/);
    expect(messageOf(() => model.trainStep(batch, { learningRate: -1 }))).toMatch(/learningRate must be positive and within float32 range, got -1/);
    expect(messageOf(() => model.trainStep(batch, { learningRate: 1e39 }))).toMatch(/learningRate must be positive/);
    expect(codeOf(() => model.trainStep(batch, { learningRate: NaN }))).toBe('NON_FINITE');
    expect(messageOf(() => model.trainStep(batch, { beta1: 1 }))).toMatch(/beta1 must be at least 0 and below 1, got 1/);
    expect(messageOf(() => model.trainStep(batch, { clipNorm: -2 }))).toMatch(/clipNorm must be at least 0/);
    expect(messageOf(() => model.generate([3], { maxLength: 7 }))).toMatch(/maxLength 7 is more tokens than fit/);
    expect(messageOf(() => model.generate([3], { beam: 2 }))).toMatch(/unknown option beam/);
    expect(model.steps).toBe(0);
    model.dispose();
  });

  it('bad batches are refused: ids out of range by row and column, lengths, a missing source', () => {
    const model = lab.createTransformer(TINY);
    const ok = reverseBatch();
    const bad = (change) => ({ ...ok, ...change });
    const fn = 'TransformerModel.trainStep';
    expect(messageOf(() => model.trainStep(bad({ target: [[5, 4, 3, 2], [9, 8, 7, 6, 2], [3, 10, 2], [6, 5, 5, 2]] }))))
      .toBe(`${fn}: batch.target row 2, column 1 is token id 10, outside the vocabulary (0 … 9)`);
    expect(messageOf(() => model.evaluate(bad({ source: [[3, 4, 5], [6, 7, -1, 9], [9, 3], [5, 5, 6]] }))))
      .toMatch(/batch\.source row 1, column 2 is token id -1, outside the vocabulary/);
    expect(messageOf(() => model.loss(bad({ input: [[1, 5, 4, 3.5], ...ok.input.slice(1)] })))).toMatch(/batch\.input row 0, column 3 is 3\.5; a token id must be an integer/);
    expect(messageOf(() => model.loss(bad({ source: [[3, 4, 5, 6, 7, 8, 9], ...SOURCES.slice(1)] })))).toMatch(/batch\.source rows have 7 tokens but this model takes at most maxLength = 6/);
    const long = [[1, 3, 3, 3, 3, 3, 3]];
    expect(messageOf(() => model.loss({ source: [[3]], input: long, target: long }))).toMatch(/batch\.input rows have 7 tokens but this model takes at most maxLength = 6/);
    expect(codeOf(() => model.loss({ input: ok.input, target: ok.target }))).toBe('SHAPE_MISMATCH');
    expect(messageOf(() => model.loss({ input: ok.input, target: ok.target }))).toMatch(/needs batch\.source/);
    expect(messageOf(() => model.loss(bad({ target: ok.target.slice(1) })))).toMatch(/batch\.input has 4 rows but batch\.target has 3/);
    expect(messageOf(() => model.loss(bad({ target: ok.input.map((r) => r.map(() => 0)) })))).toMatch(/batch\.target counts no position/);
    expect(messageOf(() => model.loss(bad({ weights: [] })))).toMatch(/batch has an unknown field weights/);
    expect(messageOf(() => model.loss({ size: 2, length: 3, input: new Int32Array(5), target: new Int32Array(6), source: [[3], [4]] }))).toMatch(/batch\.input has 5 ids but size 2 × length 3 needs 6/);
    expect(messageOf(() => model.generate([3, 11]))).toMatch(/ids\[1\] is 11, not a token id of this model/);
    const lm = lab.createTransformer({ vocabSize: VOCAB, maxLength: 6, kind: 'lm', dModel: 16, heads: 2, dFF: 32 });
    expect(messageOf(() => lm.loss(ok))).toMatch(/decoder-only \('lm'\) model, which reads no source/);
    // What was given is quoted with its type: the string '5' is not the id 5.
    expect(messageOf(() => model.loss(bad({ input: [[1, '5', 4], ...ok.input.slice(1)] })))).toMatch(/batch\.input row 0, column 1 is the string "5"; a token id must be an integer/);
    expect(messageOf(() => model.generate([3, '4']))).toMatch(/ids\[1\] is the string "4", not a token id of this model/);
    // 300,000 rows or ids: the documented error, not a RangeError from a spread onto the call stack.
    const many = Array.from({ length: 300000 }, () => [1]);
    expect(messageOf(() => lm.loss({ input: many, target: [[2.5], ...many.slice(1)] }))).toMatch(/batch\.target row 0, column 0 is 2\.5; a token id must be an integer/);
    expect(codeOf(() => lm.generate(new Array(300000).fill(3)))).toBe('INVALID_ARGUMENT');
    expect(messageOf(() => lm.generate(new Array(300000).fill(3)))).toMatch(/BOS and the 300000 ids already fill the model's 6 positions/);
    // a task-style flat batch is the same batch as its nested rows
    const flat = (rows, width) => Int32Array.from(rows.flatMap((r) => [...r, ...Array(width - r.length).fill(0)]));
    const typed = { size: 4, length: 5, input: flat(ok.input, 5), target: flat(ok.target, 5), sourceLength: 4, source: flat(SOURCES, 4) };
    expect(model.loss(typed)).toBe(model.loss(ok));
    expect(model.steps).toBe(0);
    model.dispose();
    lm.dispose();
  });
});
