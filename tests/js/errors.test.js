// Every error of the contract on both builds: the class (AttentionError, or
// AttentionRangeError for memory), the `.code`, and a message that names the
// function and the offending sizes. After each error the module must still
// compute correctly.
import { beforeAll, describe, expect, it } from 'vitest';

import { AttentionError, AttentionRangeError } from '../../dist/node.js';
import { BUILDS, expectClose, loadLab, randomMatrix, ref, rng, thrown } from './helpers.js';
import * as R from './reference.js';
import { errorText } from '../../web/src/error-text.js';
import { translator } from '../../web/src/i18n.js';

const M = (rows, cols, length = rows * cols) => ({ rows, cols, data: new Float32Array(length).fill(0.5) });
const sdpa = (lab, Q, K, V, o) => lab.scaledDotProductAttention(Q, K, V, o);
const additive = (lab, o = {}, shapes = {}) => {
  const { Q = M(2, 3), K = M(5, 2), V = M(5, 4) } = shapes;
  return lab.additiveAttention(Q, K, V, { Wq: M(3, 8), Wk: M(2, 8), wv: new Float32Array(8), ...o });
};
const self = (lab, o = {}, X = M(4, 6)) => lab.selfAttention(X, { Wq: M(6, 3), Wk: M(6, 3), Wv: M(6, 2), ...o });
const multi = (lab, o = {}, X = M(4, 6)) => lab.multiHeadAttention(X, { heads: 2, Wq: M(6, 4), Wk: M(6, 4), Wv: M(6, 6), Wo: M(6, 5), ...o });
const nw = (lab, o, x = [0, 1, 2], y = [1, 2, 3]) => lab.nadarayaWatson(x, y, [0.5], o);

const { SHAPE_MISMATCH, INVALID_MATRIX, INVALID_ARGUMENT, INVALID_MASK, NON_FINITE } = AttentionError.codes;

// [what, call, code, function name, substrings the message must contain]
const CASES = [
  // mismatched inner widths
  ['matmul inner widths', (lab) => lab.matmul(M(3, 4), M(5, 3)), SHAPE_MISMATCH, 'matmul', ['3×4', '5×3']],
  ['Q.cols ≠ K.cols', (lab) => sdpa(lab, M(3, 4), M(5, 3), M(5, 2)), SHAPE_MISMATCH, 'scaledDotProductAttention', ['Q is 3×4', 'K is 5×3']],
  ['additive Wq.rows ≠ Q.cols', (lab) => additive(lab, { Wq: M(4, 8) }), SHAPE_MISMATCH, 'additiveAttention', ['2×3', '4×8']],
  ['additive Wk.rows ≠ K.cols', (lab) => additive(lab, { Wk: M(3, 8) }), SHAPE_MISMATCH, 'additiveAttention', ['5×2', '3×8']],
  ['additive hidden sizes differ', (lab) => additive(lab, { Wk: M(2, 7) }), SHAPE_MISMATCH, 'additiveAttention', ['3×8', '2×7']],
  ['additive wv length ≠ h', (lab) => additive(lab, { wv: [1, 2, 3, 4, 5] }), SHAPE_MISMATCH, 'additiveAttention', ['wv', '5', '8']],
  ['selfAttention Wq.rows ≠ X.cols', (lab) => self(lab, { Wq: M(5, 3) }), SHAPE_MISMATCH, 'selfAttention', ['4×6', '5×3']],
  ['selfAttention Wv.rows ≠ X.cols', (lab) => self(lab, { Wv: M(7, 2) }), SHAPE_MISMATCH, 'selfAttention', ['4×6', '7×2']],
  ['selfAttention d_k of Wq and Wk differ', (lab) => self(lab, { Wk: M(6, 4) }), SHAPE_MISMATCH, 'selfAttention', ['6×3', '6×4']],
  ['multiHead Wo.rows ≠ Wv.cols', (lab) => multi(lab, { Wo: M(4, 5) }), SHAPE_MISMATCH, 'multiHeadAttention', ['6×6', '4×5']],
  // K/V row mismatch
  ['K.rows ≠ V.rows', (lab) => sdpa(lab, M(3, 4), M(5, 4), M(6, 2)), SHAPE_MISMATCH, 'scaledDotProductAttention', ['K is 5×4', 'V is 6×2']],
  ['additive K.rows ≠ V.rows', (lab) => additive(lab, {}, { V: M(4, 3) }), SHAPE_MISMATCH, 'additiveAttention', ['5×2', '4×3']],
  ['nadarayaWatson xTrain/yTrain lengths', (lab) => nw(lab, {}, [0, 1, 2], [1, 2]), SHAPE_MISMATCH, 'nadarayaWatson', ['3', '2']],
  // data.length ≠ rows·cols
  ['matmul A.data too short', (lab) => lab.matmul(M(2, 3, 5), M(3, 2)), INVALID_MATRIX, 'matmul', ['A', '2×3', '5', '6']],
  ['V.data too long', (lab) => sdpa(lab, M(2, 2), M(2, 2), M(2, 3, 7)), INVALID_MATRIX, 'scaledDotProductAttention', ['V', '2×3', '7', '6']],
  ['multiHead Wo.data wrong', (lab) => multi(lab, { Wo: M(6, 5, 29) }), INVALID_MATRIX, 'multiHeadAttention', ['Wo', '6×5', '29', '30']],
  ['plain-array data wrong length', (lab) => lab.softmax({ rows: 2, cols: 2, data: [1, 2, 3] }), INVALID_MATRIX, 'softmax', ['S', '2×2', '3', '4']],
  ['ragged nested arrays', (lab) => lab.matmul([[1, 2], [3]], [[1], [2]]), INVALID_MATRIX, 'matmul', ['A', 'ragged', '2', '1']],
  // heads not dividing the width
  ['heads do not divide Wq.cols', (lab) => multi(lab, { heads: 3, Wv: M(6, 6) }), SHAPE_MISMATCH, 'multiHeadAttention', ['Wq', '6×4', '3 heads', '4 columns']],
  ['heads do not divide Wv.cols', (lab) => multi(lab, { heads: 2, Wv: M(6, 5), Wo: M(5, 5) }), SHAPE_MISMATCH, 'multiHeadAttention', ['Wv', '6×5', '2 heads', '5 columns']],
  ['heads not a positive integer (0)', (lab) => multi(lab, { heads: 0 }), INVALID_ARGUMENT, 'multiHeadAttention', ['heads', '0']],
  ['heads not an integer (1.5)', (lab) => multi(lab, { heads: 1.5 }), INVALID_ARGUMENT, 'multiHeadAttention', ['heads', '1.5']],
  // mask or validLens of the wrong size
  ['0/1 mask of the wrong size', (lab) => sdpa(lab, M(3, 2), M(5, 2), M(5, 1), { mask: [[1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]] }), INVALID_MASK, 'scaledDotProductAttention', ['3×4', '3×5']],
  ['{ rows, cols, data } mask of the wrong size', (lab) => lab.softmax(M(3, 3), { mask: { rows: 3, cols: 2, data: new Float32Array(6).fill(1) } }), INVALID_MASK, 'softmax', ['3×2', '3×3']],
  ['selfAttention mask of the wrong size', (lab) => self(lab, { mask: [[1, 1], [1, 1]] }), INVALID_MASK, 'selfAttention', ['2×2', '4×4']],
  ['validLens with too few entries', (lab) => sdpa(lab, M(3, 2), M(5, 2), M(5, 1), { mask: { validLens: [1, 2] } }), INVALID_MASK, 'scaledDotProductAttention', ['validLens', '2', '3']],
  ['validLens with too many entries', (lab) => multi(lab, { mask: { validLens: [1, 2, 3, 4, 4] } }), INVALID_MASK, 'multiHeadAttention', ['validLens', '5', '4']],
  ['validLens above the key count', (lab) => additive(lab, { mask: { validLens: [2, 6] } }), INVALID_MASK, 'additiveAttention', ['validLens[1]', '6', '5']],
  ['single validLens above the key count', (lab) => lab.softmax(M(2, 3), { mask: { validLens: 4 } }), INVALID_MASK, 'softmax', ['validLens', '4', '3']],
  ['negative validLens', (lab) => lab.softmax(M(2, 3), { mask: { validLens: [1, -1] } }), INVALID_MASK, 'softmax', ['validLens[1]', '-1']],
  ['non-integer validLens', (lab) => lab.softmax(M(2, 3), { mask: { validLens: [1.5, 1] } }), INVALID_MASK, 'softmax', ['validLens[0]', '1.5']],
  ['mask entries not 0/1', (lab) => lab.softmax(M(2, 2), { mask: [[1, 0.5], [1, 1]] }), INVALID_MASK, 'softmax', ['mask[0][1]', '0.5']],
  // unknown mask or kernel name; non-positive bandwidth
  ['unknown mask name', (lab) => lab.softmax(M(2, 2), { mask: 'diagonal' }), INVALID_MASK, 'softmax', ['diagonal']],
  ['unknown mask name in attention', (lab) => sdpa(lab, M(2, 2), M(2, 2), M(2, 2), { mask: 'Causal' }), INVALID_MASK, 'scaledDotProductAttention', ['Causal']],
  ['unknown kernel name', (lab) => nw(lab, { kernel: 'triangle' }), INVALID_ARGUMENT, 'nadarayaWatson', ['triangle', 'gaussian']],
  ['bandwidth 0', (lab) => nw(lab, { bandwidth: 0 }), INVALID_ARGUMENT, 'nadarayaWatson', ['bandwidth', '0']],
  ['negative bandwidth', (lab) => nw(lab, { kernel: 'boxcar', bandwidth: -2 }), INVALID_ARGUMENT, 'nadarayaWatson', ['bandwidth', '-2']],
  ['bandwidth that underflows float32', (lab) => nw(lab, { bandwidth: 1e-50 }), INVALID_ARGUMENT, 'nadarayaWatson', ['bandwidth']],
  ['NaN bandwidth', (lab) => nw(lab, { bandwidth: NaN }), NON_FINITE, 'nadarayaWatson', ['bandwidth', 'NaN']],
  // non-integer or negative dimensions
  ['non-integer rows', (lab) => lab.matmul({ rows: 1.5, cols: 2, data: new Float32Array(3) }, M(2, 2)), INVALID_MATRIX, 'matmul', ['A', '1.5', '2']],
  ['negative cols', (lab) => sdpa(lab, M(2, 2), { rows: 2, cols: -2, data: new Float32Array(0) }, M(2, 2)), INVALID_MATRIX, 'scaledDotProductAttention', ['K', '-2']],
  ['NaN rows', (lab) => lab.softmax({ rows: NaN, cols: 2, data: new Float32Array(0) }), INVALID_MATRIX, 'softmax', ['S', 'NaN']],
  ['string rows', (lab) => lab.softmax({ rows: '2', cols: 2, data: new Float32Array(4) }), INVALID_MATRIX, 'softmax', ['S', '2']],
  // unknown option names and missing required options
  ['unknown option (softmax)', (lab) => lab.softmax(M(2, 2), { masks: 'causal' }), INVALID_ARGUMENT, 'softmax', ['unknown option masks']],
  ['unknown option (scaledDotProductAttention)', (lab) => sdpa(lab, M(2, 2), M(2, 2), M(2, 2), { scal: 1 }), INVALID_ARGUMENT, 'scaledDotProductAttention', ['unknown option scal']],
  ['unknown option (additiveAttention)', (lab) => additive(lab, { Wv: M(2, 2) }), INVALID_ARGUMENT, 'additiveAttention', ['unknown option Wv']],
  ['unknown option (selfAttention)', (lab) => self(lab, { heads: 2 }), INVALID_ARGUMENT, 'selfAttention', ['unknown option heads']],
  ['unknown option (multiHeadAttention)', (lab) => multi(lab, { numHeads: 2 }), INVALID_ARGUMENT, 'multiHeadAttention', ['unknown option numHeads']],
  ['unknown option (nadarayaWatson)', (lab) => nw(lab, { width: 1 }), INVALID_ARGUMENT, 'nadarayaWatson', ['unknown option width']],
  ['missing Wv (selfAttention)', (lab) => self(lab, { Wv: undefined }), INVALID_ARGUMENT, 'selfAttention', ['Wv']],
  ['missing heads (multiHeadAttention)', (lab) => multi(lab, { heads: undefined }), INVALID_ARGUMENT, 'multiHeadAttention', ['heads']],
  ['missing wv (additiveAttention)', (lab) => additive(lab, { wv: undefined }), INVALID_ARGUMENT, 'additiveAttention', ['wv']],
  ['options not an object', (lab) => lab.softmax(M(2, 2), 'causal'), INVALID_ARGUMENT, 'softmax', ['options']],
  // not a matrix / not finite
  ['a string where a matrix belongs', (lab) => lab.matmul('[[1]]', M(1, 1)), INVALID_MATRIX, 'matmul', ['A']],
  ['data of the wrong type', (lab) => lab.matmul({ rows: 1, cols: 1, data: 'x' }, M(1, 1)), INVALID_MATRIX, 'matmul', ['A.data']],
  ['a non-number entry', (lab) => lab.matmul([[1, '2']], M(2, 1)), INVALID_MATRIX, 'matmul', ['A[0][1]']],
  ['NaN entry', (lab) => sdpa(lab, [[1, NaN]], M(2, 2), M(2, 2)), NON_FINITE, 'scaledDotProductAttention', ['Q[0][1]', 'NaN']],
  ['Infinity entry in data', (lab) => lab.matmul(M(1, 1), { rows: 1, cols: 2, data: Float32Array.of(1, Infinity) }), NON_FINITE, 'matmul', ['B[0][1]', 'Infinity']],
  ['NaN in a vector', (lab) => nw(lab, {}, [0, NaN, 2]), NON_FINITE, 'nadarayaWatson', ['xTrain[1]', 'NaN']],
  ['vector that is not an array', (lab) => nw(lab, {}, 'abc'), INVALID_ARGUMENT, 'nadarayaWatson', ['xTrain']],
  // finite inputs whose result would overflow float32
  ['scores beyond float32 (bound checked before the call)', (lab) => sdpa(lab, [[1e20, 0]], [[1e20, 0]], [[1]]), 'OVERFLOW', 'scaledDotProductAttention', ['1.00e+20', '1.00e+40']],
  ['a product beyond float32', (lab) => lab.matmul([[3e38, 3e38]], [[1], [1]]), 'OVERFLOW', 'matmul', ['Infinity']],
  ['fitParametricPooling with one point', (lab) => lab.fitParametricPooling([1], [2]), SHAPE_MISMATCH, 'fitParametricPooling', ['2 training points', '1']],
  ['fitParametricPooling xTrain/yTrain lengths', (lab) => lab.fitParametricPooling([0, 1, 2], [1, 2]), SHAPE_MISMATCH, 'fitParametricPooling', ['3', '2']],
  ['fitParametricPooling with a negative learning rate', (lab) => lab.fitParametricPooling([0, 1], [1, 2], { learningRate: -1 }), INVALID_ARGUMENT, 'fitParametricPooling', ['learningRate', '-1']],
  ['fitParametricPooling with NaN w', (lab) => lab.fitParametricPooling([0, 1], [1, 2], { w: NaN }), NON_FINITE, 'fitParametricPooling', ['w', 'NaN']],
  ['fitParametricPooling with fractional epochs', (lab) => lab.fitParametricPooling([0, 1], [1, 2], { epochs: 2.5 }), INVALID_ARGUMENT, 'fitParametricPooling', ['epochs', '2.5']],
  ['fitParametricPooling that would run too long', (lab) => lab.fitParametricPooling(new Float32Array(50000), new Float32Array(50000), { epochs: 1 }), INVALID_ARGUMENT, 'fitParametricPooling', ['50000', 'fewer points or epochs']],
  // A step of 1e308 × the gradient overflows w itself (a far but finite w only gives the nearest-neighbour loss).
  ['fitParametricPooling that diverges', (lab) => lab.fitParametricPooling([0, 1, 2, 3], [0, 1, 4, 9], { w: 0.5, learningRate: 1e308, epochs: 3 }), 'OVERFLOW', 'fitParametricPooling', ['diverged', 'w = Infinity', 'learningRate', '1e+308']],
  // Targets of ±6e18: L(w0) fits in float32, and the nearest-neighbour loss a step reaches does not.
  ['fitParametricPooling whose loss overflows after a step', (lab) => lab.fitParametricPooling([0, 1, 2, 3, 4, 5], [6e18, -6e18, 6e18, -6e18, 6e18, -6e18], { w: 0.5, learningRate: 1e-30, epochs: 3 }), 'OVERFLOW', 'fitParametricPooling', ['epoch 1', 'Infinity', 'float32', 'rescale yTrain', '1e-30']],
  ['fitParametricPooling whose first loss overflows', (lab) => lab.fitParametricPooling([0, 1, 2], [0, 1e30, -1e30], { w: 0.5, learningRate: 0, epochs: 3 }), 'OVERFLOW', 'fitParametricPooling', ['starting w = 0.5', 'before any step', 'yTrain']],
  ['unknown option (fitParametricPooling)', (lab) => lab.fitParametricPooling([0, 1], [1, 2], { lr: 1 }), INVALID_ARGUMENT, 'fitParametricPooling', ['unknown option lr']],
  ['positionalEncoding with a negative n', (lab) => lab.positionalEncoding(-1, 4), INVALID_ARGUMENT, 'positionalEncoding', ['n', '-1']],
  ['positionalEncoding with a fractional d', (lab) => lab.positionalEncoding(4, 2.5), INVALID_ARGUMENT, 'positionalEncoding', ['d', '2.5']],
  ['positionalEncoding with base 0', (lab) => lab.positionalEncoding(4, 4, { base: 0 }), INVALID_ARGUMENT, 'positionalEncoding', ['base', '0']],
  ['positionalEncoding with a NaN base', (lab) => lab.positionalEncoding(4, 4, { base: NaN }), NON_FINITE, 'positionalEncoding', ['base', 'NaN']],
  ['unknown option (positionalEncoding)', (lab) => lab.positionalEncoding(4, 4, { period: 10 }), INVALID_ARGUMENT, 'positionalEncoding', ['unknown option period']],
  ['addPositionalEncoding of a NaN entry', (lab) => lab.addPositionalEncoding([[0, 1], [NaN, 0]]), NON_FINITE, 'addPositionalEncoding', ['X[1][0]', 'NaN']],
  ['NaN scale', (lab) => sdpa(lab, M(2, 2), M(2, 2), M(2, 2), { scale: NaN }), NON_FINITE, 'scaledDotProductAttention', ['scale', 'NaN']],
  ['scale outside float32 range', (lab) => sdpa(lab, M(2, 2), M(2, 2), M(2, 2), { scale: 1e39 }), INVALID_ARGUMENT, 'scaledDotProductAttention', ['scale', '1e+39']],
];

describe.each(BUILDS)('errors ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  // A small attention checked against the reference after every error.
  const rand = rng(99);
  const [Q, K, V] = [randomMatrix(rand, 5, 4), randomMatrix(rand, 6, 4), randomMatrix(rand, 6, 3)];
  const want = R.scaledDotProduct(ref(Q), ref(K), ref(V), { mask: 'causal' });
  function expectStillWorks() {
    const got = lab.scaledDotProductAttention(Q, K, V, { mask: 'causal' });
    expectClose(got.weights, want.weights);
    expectClose(got.output, want.output);
    expect(Array.from(lab.matmul([[1, 2]], [[3], [4]]).data)).toEqual([11]);
  }

  it.each(CASES)('%s', (_, call, code, fn, parts) => {
    const error = thrown(() => call(lab));
    expect(error).toBeInstanceOf(AttentionError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('AttentionError');
    expect(error.code).toBe(code);
    expect(error.message.startsWith(`${fn}: `), error.message).toBe(true);
    for (const part of parts) expect(error.message).toContain(part);
    expectStillWorks();
  });

  it('throws AttentionRangeError (a RangeError, code OUT_OF_MEMORY) before allocating too much, then keeps working', () => {
    // 20000 queries × 20000 keys: the 1.6 GB weight matrix exceeds the module's memory limit
    const tall = { rows: 20000, cols: 1, data: new Float32Array(20000).fill(1) };
    const error = thrown(() => lab.scaledDotProductAttention(tall, tall, tall));
    expect(error).toBeInstanceOf(AttentionRangeError);
    expect(error).toBeInstanceOf(RangeError);
    expect(error).not.toBeInstanceOf(AttentionError);
    expect(error.code).toBe('OUT_OF_MEMORY');
    expect(error.name).toBe('AttentionRangeError');
    expect(error.message).toMatch(/^scaledDotProductAttention: /);
    expect(error.message).toContain(String(lab.memoryLimit));
    const multiError = thrown(() => lab.multiHeadAttention(tall, { heads: 1, Wq: [[1]], Wk: [[1]], Wv: [[1]], Wo: [[1]] }));
    expect(multiError).toBeInstanceOf(AttentionRangeError);
    expect(multiError.message).toMatch(/^multiHeadAttention: /);
    expectStillWorks();
  });

  it('keeps working after every error in a row, interleaved with correct calls', () => {
    for (const [, call] of CASES) {
      expect(() => call(lab)).toThrow(AttentionError);
      expectStillWorks();
    }
  });

  it('AttentionError is constructible, lists its codes and carries a code', () => {
    const e = new AttentionError('INVALID_MASK', 'x: y');
    expect(e).toBeInstanceOf(Error);
    expect(e.code).toBe('INVALID_MASK');
    expect(e.message).toBe('x: y');
    for (const code of ['SHAPE_MISMATCH', 'INVALID_MATRIX', 'INVALID_ARGUMENT', 'INVALID_MASK', 'NON_FINITE', 'OUT_OF_MEMORY', 'INTERNAL'])
      expect(AttentionError.codes[code], code).toBe(code);
    for (const [name, code] of Object.entries(AttentionError.codes)) expect(code).toBe(name);
    expect(Object.isFrozen(AttentionError.codes)).toBe(true);
  });
});

// What the page shows for an error (web/src/error-text.js): the library's messages are English, so
// a Chinese page explains the code in Chinese and labels the message as the library's own.
describe('errorText: the error as each language of the page says it', () => {
  const zh = translator('zh-CN');
  const en = translator('en');
  const han = /[\u4e00-\u9fff]/;

  it('every code has its own explanation in both languages, Chinese in Chinese', () => {
    const seen = { en: new Set(), zh: new Set() };
    for (const code of Object.values(AttentionError.codes)) {
      const key = `error.code.${code}`;
      expect(en(key), key).not.toBe(key);
      expect(zh(key), key).toMatch(han);
      seen.en.add(en(key));
      seen.zh.add(zh(key));
    }
    expect(seen.en.size).toBe(Object.keys(AttentionError.codes).length);
    expect(seen.zh.size).toBe(Object.keys(AttentionError.codes).length);
  });

  it('a real refusal: in Chinese the explanation first, the message marked as the library’s English; in English the message', async () => {
    const lab = await loadLab(true);
    const error = thrown(() => sdpa(lab, M(3, 4), M(5, 3), M(5, 2)));
    const shown = errorText(zh, error);
    expect(shown.startsWith(`库拒绝了这个输入：${zh('error.code.SHAPE_MISMATCH')}`)).toBe(true);
    expect(shown).toContain(`库的原始信息（英文）：${error.message}`);
    expect(errorText(en, error)).toMatch(/^The library refused this input: scaledDotProductAttention: Q is 3×4/);
    // Without the detail (the compare panel keeps it apart): no English sentence at all.
    expect(errorText(zh, error, { detail: false })).not.toMatch(/[A-Za-z]{2,}/);
    // An error without a code (not the library's), and another key: the key's text around the message.
    expect(errorText(zh, new TypeError('boom'))).toBe(zh('error.generic', { msg: 'boom' }));
    expect(errorText(zh, error, { key: 'error.load' })).toBe(zh('error.load', { msg: error.message }));
  });
});
