// The argument errors an author meets in the library: a misspelt option names the one meant, for every
// function that takes options; a missing matrix says it is missing; a flat Float32Array or a
// { shape, data } tensor given where a matrix is wanted (and a matrix given to batchedAttention)
// gets a hint at the form that is. Messages name the function, the argument and the value.
import { beforeAll, describe, expect, it } from 'vitest';

import { AttentionError } from '../../dist/node.js';
import { BUILDS, loadLab, thrown } from './helpers.js';

const { INVALID_ARGUMENT, INVALID_MATRIX, INVALID_MASK } = AttentionError.codes;
const M = (rows, cols) => ({ rows, cols, data: new Float32Array(rows * cols).fill(0.25) });
const T = (shape) => ({ shape, data: new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(0.25) });
const P = { Wq: M(2, 2), Wk: M(2, 2), Wv: M(2, 2) };
const W = { heads: 1, ...P, Wo: M(2, 2) };

// [function, call with options o, a typo, the option it should name]: every public function with options.
const TYPOS = [
  ['softmax', (lab, o) => lab.softmax(M(2, 2), o), 'mask_', 'mask'],
  ['scaledDotProductAttention', (lab, o) => lab.scaledDotProductAttention(M(2, 2), M(2, 2), M(2, 2), o), 'scal', 'scale'],
  ['additiveAttention', (lab, o) => lab.additiveAttention(M(2, 2), M(2, 2), M(2, 2), o), 'wV', 'wv'],
  ['selfAttention', (lab, o) => lab.selfAttention(M(2, 2), o), 'wq', 'Wq'],
  ['multiHeadAttention', (lab, o) => lab.multiHeadAttention(M(2, 2), o), 'head', 'heads'],
  ['createMultiHeadAttention', (lab, o) => lab.createMultiHeadAttention(o), 'Wo_', 'Wo'],
  ['MultiHeadAttention.forward', (lab, o) => lab.createMultiHeadAttention(W).forward(M(2, 2), o), 'trac', 'trace'],
  ['transformerBlock', (lab, o) => lab.transformerBlock(M(2, 2), o), 'epsilom', 'epsilon'],
  ['localAttention', (lab, o) => lab.localAttention(M(2, 2), M(2, 2), M(2, 2), o), 'windw', 'window'],
  ['linearAttention', (lab, o) => lab.linearAttention(M(2, 2), M(2, 2), M(2, 2), o), 'casual', 'causal'],
  ['linformerAttention', (lab, o) => lab.linformerAttention(M(2, 2), M(2, 2), M(2, 2), o), 'e', 'E'],
  ['onlineSoftmax', (lab, o) => lab.onlineSoftmax(M(2, 2), M(2, 2), M(2, 2), o), 'blocks', 'block'],
  ['nadarayaWatson', (lab, o) => lab.nadarayaWatson([0, 1], [1, 2], [0.5], o), 'kernal', 'kernel'],
  ['fitParametricPooling', (lab, o) => lab.fitParametricPooling([0, 1], [1, 2], o), 'epoch', 'epochs'],
  ['positionalEncoding', (lab, o) => lab.positionalEncoding(4, 4, o), 'bas', 'base'],
  ['addPositionalEncoding', (lab, o) => lab.addPositionalEncoding(M(2, 2), o), 'scales', 'scale'],
  ['batchedAttention', (lab, o) => lab.batchedAttention(T([1, 1, 2, 2]), T([1, 1, 2, 2]), T([1, 1, 2, 2]), o), 'kvHead', 'kvHeads'],
];

describe.each(BUILDS)('option and argument hints ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });
  const expectError = (call, code, fn, parts) => {
    const error = thrown(call);
    expect(error).toBeInstanceOf(AttentionError);
    expect(error.code).toBe(code);
    expect(error.message.startsWith(`${fn}: `), error.message).toBe(true);
    for (const part of parts) expect(error.message).toContain(part);
    return error.message;
  };

  it.each(TYPOS)('%s: a misspelt option names the one meant', (fn, call, typo, meant) => {
    expectError(() => call(lab, { [typo]: 1 }), INVALID_ARGUMENT, fn, [`unknown option ${typo} (did you mean ${meant}?)`, 'the options are']);
    // A name far from every option gets the list only.
    const message = expectError(() => call(lab, { zzzzzzzz: 1 }), INVALID_ARGUMENT, fn, ['unknown option zzzzzzzz;']);
    expect(message).not.toContain('did you mean');
  });

  it('a one- or two-letter key is not "meant" as another short name (only a case difference is)', () => {
    const bytes = { layers: 1, kvHeads: 1, headDim: 2, tokens: 1 };
    expect(expectError(() => lab.kvCacheBytes({ ...bytes, n: 3 }), INVALID_ARGUMENT, 'kvCacheBytes', ['unknown option n;'])).not.toContain('did you mean');
    expectError(() => lab.kvCacheBytes({ ...bytes, dk: 2 }), INVALID_ARGUMENT, 'kvCacheBytes', ['unknown option dk (did you mean dK?)']);
  });

  it('{ validLen: 2 } among the options: "did you mean validLens?", and where it goes', () => {
    for (const [fn, call] of [TYPOS[1], TYPOS[3], TYPOS[4]])
      expectError(() => call(lab, { validLen: 2 }), INVALID_ARGUMENT, fn, ['unknown option validLen (did you mean validLens?', '{ mask: { validLens: 2 } }']);
  });

  it('{ validLen: 2 } as the mask: the unknown key, not "rows = undefined"', () => {
    const message = expectError(() => lab.softmax(M(2, 2), { mask: { validLen: 2 } }), INVALID_MASK, 'softmax', ['unknown key validLen (did you mean validLens?)']);
    expect(message).not.toContain('undefined');
    expectError(() => lab.softmax(M(2, 2), { mask: {} }), INVALID_MASK, 'softmax', ['mask is an empty object']);
  });

  it('a missing V (or Q, K, X) says it is missing, never "got undefined undefined"', () => {
    for (const [fn, call, name] of [
      ['scaledDotProductAttention', () => lab.scaledDotProductAttention(M(2, 2), M(2, 2)), 'V'],
      ['additiveAttention', () => lab.additiveAttention(M(2, 2), undefined, M(2, 2), { Wq: M(2, 2), Wk: M(2, 2), wv: [1, 1] }), 'K'],
      ['selfAttention', () => lab.selfAttention(undefined, P), 'X'],
      ['batchedAttention', () => lab.batchedAttention(T([1, 1, 2, 2]), T([1, 1, 2, 2])), 'V'],
    ]) {
      const message = expectError(call, INVALID_MATRIX, fn, [`${fn}: ${name} is missing`]);
      expect(message).not.toContain('undefined');
    }
  });

  it('a flat Float32Array where a matrix is wanted: use { rows, cols, data }', () => {
    expectError(() => lab.scaledDotProductAttention(new Float32Array(6), M(2, 3), M(2, 2)), INVALID_MATRIX, 'scaledDotProductAttention', ['Q is a flat Float32Array of 6 numbers', '{ rows, cols, data }']);
    expectError(() => lab.matmul(M(2, 2), new Float64Array(4)), INVALID_MATRIX, 'matmul', ['B is a flat Float64Array of 4 numbers', '{ rows, cols, data }']);
    expectError(() => lab.softmax(M(2, 2), { mask: new Uint8Array(4) }), INVALID_MATRIX, 'softmax', ['mask is a flat Uint8Array', '{ rows, cols, data }']);
  });

  it('a { shape, data } tensor where a matrix is wanted: use { rows, cols, data } (its sizes named)', () => {
    expectError(() => lab.selfAttention(T([3, 2]), P), INVALID_MATRIX, 'selfAttention', ['X is a tensor { shape: [3,2], data }', 'pass { rows, cols, data } (rows: 3, cols: 2)', 'batchedAttention takes { shape, data }']);
    expectError(() => lab.matmul(T([1, 2, 2]), M(2, 2)), INVALID_MATRIX, 'matmul', ['A is a tensor { shape: [1,2,2], data }', '{ rows, cols, data }']);
  });

  it('batchedAttention given a matrix or a flat array: use { shape, data }', () => {
    expectError(() => lab.batchedAttention(M(3, 2), T([1, 1, 3, 2]), T([1, 1, 3, 2])), INVALID_MATRIX, 'batchedAttention', ['Q is a matrix { rows, cols, data }', '{ shape: [batch, heads, 3, 2], data }']);
    expectError(() => lab.batchedAttention(T([1, 1, 3, 2]), new Float32Array(6), T([1, 1, 3, 2])), INVALID_MATRIX, 'batchedAttention', ['K is a flat Float32Array of 6 numbers', '{ shape: [batch, heads, rows, width], data }']);
  });
});
