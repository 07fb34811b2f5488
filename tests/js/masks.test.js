// Every mask kind through every attention function, on both builds: causal,
// validLens (array, typed array and a single number), 0/1 matrices as nested
// arrays and as { rows, cols, data }. Masked weights must be exactly 0; a
// fully masked row gives all-zero weights and an all-zero output row.
import { beforeAll, describe, expect, it } from 'vitest';

import { BUILDS, expectClose, expectIdentical, loadLab, randomBits, randomMatrix, randomVector, ref, rng } from './helpers.js';
import * as R from './reference.js';

/** Every mask kind for an n×m score matrix, each with a label. */
function maskKinds(rand, n, m) {
  const lens = Array.from({ length: n }, (_, i) => (i * 7 + 3) % (m + 1));
  const bits = randomBits(rand, n, m);
  return [
    ['causal', 'causal'],
    ['validLens array', { validLens: lens }],
    ['validLens Int32Array', { validLens: Int32Array.from(lens) }],
    ['validLens single number', { validLens: Math.max(1, m - 2) }],
    ['0/1 nested arrays', bits],
    ['0/1 { rows, cols, data: Float32Array }', { rows: n, cols: m, data: Float32Array.from(bits.flat()) }],
    ['0/1 { rows, cols, data: number[] }', { rows: n, cols: m, data: bits.flat() }],
  ];
}

/** Masked weights exactly 0; fully masked rows all-zero weights and output. */
function expectMaskHonoured(result, visible, label) {
  const { weights, output } = result;
  const m = weights.cols;
  for (let i = 0; i < weights.rows; i++) {
    for (let j = 0; j < m; j++) if (!visible[i][j]) expect(weights.data[i * m + j], `${label}: weight [${i}][${j}] is masked`).toBe(0);
    if (!visible[i].some(Boolean)) {
      expect(Array.from(weights.data.subarray(i * m, (i + 1) * m)), `${label}: fully masked row ${i} weights`).toEqual(new Array(m).fill(0));
      expect(Array.from(output.data.subarray(i * output.cols, (i + 1) * output.cols)), `${label}: fully masked row ${i} output`).toEqual(new Array(output.cols).fill(0));
    }
  }
}

describe.each(BUILDS)('masks ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  const sizes = [
    [1, 1],
    [3, 3],
    [4, 4],
    [5, 5],
    [8, 8],
    [17, 17],
    [65, 65],
    [5, 17], // cross-attention: fewer queries than keys
    [17, 4], // more queries than keys (causal rows beyond m see every key)
  ];

  it.each(sizes)('scaledDotProductAttention %i×%i: every mask kind matches the reference', (n, m) => {
    const rand = rng(n * 100 + m);
    const [Q, K, V] = [randomMatrix(rand, n, 8), randomMatrix(rand, m, 8), randomMatrix(rand, m, 5)];
    for (const [label, mask] of maskKinds(rand, n, m)) {
      const want = R.scaledDotProduct(ref(Q), ref(K), ref(V), { mask });
      const got = lab.scaledDotProductAttention(Q, K, V, { mask });
      expectClose(got.weights, want.weights, { label: `${label} weights` });
      expectClose(got.output, want.output, { label: `${label} output` });
      expectMaskHonoured(got, want.visible, label);
    }
  });

  it.each(sizes)('additiveAttention %i×%i: every mask kind matches the reference', (n, m) => {
    const rand = rng(n * 100 + m + 1);
    const [Q, K, V] = [randomMatrix(rand, n, 3), randomMatrix(rand, m, 6), randomMatrix(rand, m, 4)];
    const w = { Wq: randomMatrix(rand, 3, 5), Wk: randomMatrix(rand, 6, 5), wv: randomVector(rand, 5) };
    const refW = { Wq: ref(w.Wq), Wk: ref(w.Wk), wv: Array.from(w.wv) };
    for (const [label, mask] of maskKinds(rand, n, m)) {
      const want = R.additive(ref(Q), ref(K), ref(V), { ...refW, mask });
      const got = lab.additiveAttention(Q, K, V, { ...w, mask });
      expectClose(got.weights, want.weights, { label: `${label} weights` });
      expectClose(got.output, want.output, { label: `${label} output` });
      expectMaskHonoured(got, want.visible, label);
    }
  });

  it.each([1, 3, 4, 5, 17, 64])('selfAttention n=%i: every mask kind matches the reference', (n) => {
    const rand = rng(n + 7);
    const X = randomMatrix(rand, n, 6);
    const w = { Wq: randomMatrix(rand, 6, 4), Wk: randomMatrix(rand, 6, 4), Wv: randomMatrix(rand, 6, 3) };
    for (const [label, mask] of maskKinds(rand, n, n)) {
      const want = R.selfAttention(ref(X), { Wq: ref(w.Wq), Wk: ref(w.Wk), Wv: ref(w.Wv), mask });
      const got = lab.selfAttention(X, { ...w, mask });
      expectClose(got.weights, want.weights, { label: `${label} weights` });
      expectClose(got.output, want.output, { label: `${label} output` });
      expectMaskHonoured(got, want.visible, label);
    }
  });

  it.each([1, 3, 5, 17, 65])('multiHeadAttention n=%i: every mask kind applies to every head', (n) => {
    const rand = rng(n + 9);
    const X = randomMatrix(rand, n, 8);
    const w = { heads: 2, Wq: randomMatrix(rand, 8, 6), Wk: randomMatrix(rand, 8, 6), Wv: randomMatrix(rand, 8, 4), Wo: randomMatrix(rand, 4, 5) };
    const refW = { heads: 2, Wq: ref(w.Wq), Wk: ref(w.Wk), Wv: ref(w.Wv), Wo: ref(w.Wo) };
    for (const [label, mask] of maskKinds(rand, n, n)) {
      const want = R.multiHead(ref(X), { ...refW, mask });
      const got = lab.multiHeadAttention(X, { ...w, mask });
      expectClose(got.output, want.output, { label: `${label} output` });
      expectClose(got.concat, want.concat, { label: `${label} concat` });
      got.heads.forEach((head, h) => {
        expectClose(head.weights, want.heads[h].weights, { label: `${label} head ${h} weights` });
        expectMaskHonoured(head, want.heads[h].visible, `${label} head ${h}`);
      });
    }
  });

  it('causal, validLens [1 … n] and the lower-triangular 0/1 matrix are the same mask', () => {
    const rand = rng(61);
    const n = 9;
    const [Q, K, V] = [randomMatrix(rand, n, 4), randomMatrix(rand, n, 4), randomMatrix(rand, n, 3)];
    const causal = lab.scaledDotProductAttention(Q, K, V, { mask: 'causal' });
    const lens = lab.scaledDotProductAttention(Q, K, V, { mask: { validLens: Array.from({ length: n }, (_, i) => i + 1) } });
    const tri = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (j <= i ? 1 : 0)));
    const matrix = lab.scaledDotProductAttention(Q, K, V, { mask: tri });
    expectIdentical(lens.weights, causal.weights, 'validLens weights');
    expectIdentical(matrix.weights, causal.weights, 'matrix weights');
    expectIdentical(lens.output, causal.output, 'validLens output');
    expectIdentical(matrix.output, causal.output, 'matrix output');
    // the first query sees only the first key: its output is V's first row
    expect(causal.weights.data[0]).toBe(1);
    expect(Array.from(causal.output.data.subarray(0, 3))).toEqual(Array.from(V.data.subarray(0, 3)));
  });

  it('a single-number validLens equals the same length repeated for every row', () => {
    const rand = rng(62);
    const [Q, K, V] = [randomMatrix(rand, 6, 4), randomMatrix(rand, 10, 4), randomMatrix(rand, 10, 3)];
    const a = lab.scaledDotProductAttention(Q, K, V, { mask: { validLens: 3 } });
    const b = lab.scaledDotProductAttention(Q, K, V, { mask: { validLens: [3, 3, 3, 3, 3, 3] } });
    expectIdentical(a.weights, b.weights);
    expectIdentical(a.output, b.output);
  });

  it('an all-ones 0/1 mask, validLens = m and "none" equal no mask', () => {
    const rand = rng(63);
    const [Q, K, V] = [randomMatrix(rand, 5, 4), randomMatrix(rand, 7, 4), randomMatrix(rand, 7, 2)];
    const plain = lab.scaledDotProductAttention(Q, K, V);
    for (const mask of ['none', { validLens: 7 }, Array.from({ length: 5 }, () => new Array(7).fill(1))]) {
      const got = lab.scaledDotProductAttention(Q, K, V, { mask });
      expectIdentical(got.weights, plain.weights, JSON.stringify(mask));
      expectIdentical(got.output, plain.output, JSON.stringify(mask));
    }
  });

  it('fully masked rows (validLens 0 and an all-zero mask row) give all-zero weights and output, no NaN', () => {
    const rand = rng(64);
    const [Q, K, V] = [randomMatrix(rand, 4, 5), randomMatrix(rand, 6, 5), randomMatrix(rand, 6, 3, 1, 2)];
    for (const mask of [{ validLens: [0, 3, 0, 6] }, { validLens: 0 }, [[0, 0, 0, 0, 0, 0], [1, 0, 1, 0, 1, 0], [0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1]]]) {
      const got = lab.scaledDotProductAttention(Q, K, V, { mask });
      expect(got.weights.data.every(Number.isFinite)).toBe(true);
      expect(got.output.data.every(Number.isFinite)).toBe(true);
      const visible = R.visibility(mask, 4, 6);
      expectMaskHonoured(got, visible, JSON.stringify(mask));
      expectClose(got.output, R.scaledDotProduct(ref(Q), ref(K), ref(V), { mask }).output);
    }
    const all = lab.additiveAttention(Q, K, V, { Wq: [[1], [0], [0], [0], [0]], Wk: [[1], [0], [0], [0], [0]], wv: [1], mask: { validLens: 0 } });
    expect(Array.from(all.weights.data)).toEqual(new Array(24).fill(0));
    expect(Array.from(all.output.data)).toEqual(new Array(12).fill(0));
  });
});
