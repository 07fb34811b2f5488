// Scaled dot-product and additive attention against the float64 reference on
// both builds: sizes around the vector width, cross-attention (n ≠ m), the
// scale override, and nested arrays vs Float32Array inputs.
import { beforeAll, describe, expect, it } from 'vitest';

import { BUILDS, SIZES, expectClose, expectIdentical, loadLab, randomMatrix, randomVector, ref, rng, toNested } from './helpers.js';
import * as R from './reference.js';

describe.each(BUILDS)('scaledDotProductAttention ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  it.each(SIZES)('n = m = d_k = d_v = %i matches the reference', (s) => {
    const rand = rng(1000 + s);
    const [Q, K, V] = [randomMatrix(rand, s, s), randomMatrix(rand, s, s), randomMatrix(rand, s, s)];
    const want = R.scaledDotProduct(ref(Q), ref(K), ref(V));
    const got = lab.scaledDotProductAttention(Q, K, V);
    expectClose(got.weights, want.weights, { label: 'weights' });
    expectClose(got.output, want.output, { label: 'output' });
    expect(got.steps).toBeUndefined();
  });

  // Cross-attention: n queries, m keys, head width d, value width dv, all different.
  const shapes = [
    [1, 65, 4, 3],
    [3, 5, 17, 1],
    [4, 1, 8, 5],
    [5, 8, 3, 17],
    [17, 4, 64, 8],
    [64, 3, 5, 4],
    [65, 17, 1, 65],
    [8, 64, 65, 3],
    [129, 257, 64, 64],
    [256, 33, 16, 31],
  ];
  it.each(shapes)('cross-attention n=%i, m=%i, d_k=%i, d_v=%i matches the reference', (n, m, d, dv) => {
    const rand = rng(n * 1e6 + m * 1e4 + d * 100 + dv);
    const [Q, K, V] = [randomMatrix(rand, n, d), randomMatrix(rand, m, d), randomMatrix(rand, m, dv)];
    const want = R.scaledDotProduct(ref(Q), ref(K), ref(V));
    const got = lab.scaledDotProductAttention(Q, K, V);
    expect([got.weights.rows, got.weights.cols, got.output.rows, got.output.cols]).toEqual([n, m, n, dv]);
    expectClose(got.weights, want.weights, { label: 'weights' });
    expectClose(got.output, want.output, { label: 'output' });
  });

  it.each([1, 0.25, 3, 1e-3])('scale %s overrides 1/√d_k', (scale) => {
    const rand = rng(77);
    const [Q, K, V] = [randomMatrix(rand, 5, 8), randomMatrix(rand, 7, 8), randomMatrix(rand, 7, 3)];
    const want = R.scaledDotProduct(ref(Q), ref(K), ref(V), { scale });
    const got = lab.scaledDotProductAttention(Q, K, V, { scale });
    expectClose(got.weights, want.weights, { label: 'weights' });
    expectClose(got.output, want.output, { label: 'output' });
  });

  it('scale: 1 is plain dot-product attention (differs from the default scale)', () => {
    const Q = [[1, 2], [0, 1]];
    const K = [[1, 0], [0, 1], [1, 1]];
    const V = [[1, 0], [0, 1], [2, 2]];
    const plain = lab.scaledDotProductAttention(Q, K, V, { scale: 1 });
    expectClose(plain.weights, R.softmax(R.matmul(Q, R.transpose(K))));
    const scaled = lab.scaledDotProductAttention(Q, K, V);
    expectClose(scaled.weights, R.softmax(R.matmul(Q, R.transpose(K)).map((r) => r.map((x) => x / Math.SQRT2))));
    expect(Math.abs(plain.weights.data[0] - scaled.weights.data[0])).toBeGreaterThan(1e-3);
  });

  it('weights rows sum to 1 and stay finite for scores of ±1e4', () => {
    const Q = [[100, 100, 100, 100], [-100, 50, 0, 100]];
    const K = [[100, 100, 100, 100], [-100, -100, -100, -100], [0, 0, 0, 0]];
    const V = [[1, 2], [3, 4], [5, 6]];
    const got = lab.scaledDotProductAttention(Q, K, V);
    expect(got.weights.data.every(Number.isFinite)).toBe(true);
    expect(got.output.data.every(Number.isFinite)).toBe(true);
    expectClose(got.weights, R.scaledDotProduct(Q, K, V).weights, { atol: 1e-6 });
    expectClose(got.output, [[1, 2], R.scaledDotProduct(Q, K, V).output[1]], { atol: 1e-5 });
  });

  it('gives identical results for nested arrays and Float32Array inputs', () => {
    const rand = rng(5);
    const [Q, K, V] = [randomMatrix(rand, 9, 17), randomMatrix(rand, 13, 17), randomMatrix(rand, 13, 5)];
    const a = lab.scaledDotProductAttention(Q, K, V, { mask: 'causal' });
    const b = lab.scaledDotProductAttention(toNested(Q), toNested(K), toNested(V), { mask: 'causal' });
    expectIdentical(a.weights, b.weights, 'weights');
    expectIdentical(a.output, b.output, 'output');
  });

  it('attends to no keys at all (m = 0) with an all-zero output', () => {
    const got = lab.scaledDotProductAttention([[1, 2], [3, 4]], { rows: 0, cols: 2, data: new Float32Array(0) }, { rows: 0, cols: 3, data: new Float32Array(0) });
    expect([got.weights.rows, got.weights.cols]).toEqual([2, 0]);
    expect([got.output.rows, got.output.cols]).toEqual([2, 3]);
    expect(Array.from(got.output.data)).toEqual([0, 0, 0, 0, 0, 0]);
  });
});

describe.each(BUILDS)('additiveAttention ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  function inputs(rand, n, m, dq, dk, h, dv) {
    return {
      Q: randomMatrix(rand, n, dq),
      K: randomMatrix(rand, m, dk),
      V: randomMatrix(rand, m, dv),
      Wq: randomMatrix(rand, dq, h),
      Wk: randomMatrix(rand, dk, h),
      wv: randomVector(rand, h),
    };
  }

  it.each(SIZES)('n = m = d_q = d_k = h = d_v = %i matches the reference', (s) => {
    const { Q, K, V, Wq, Wk, wv } = inputs(rng(2000 + s), s, s, s, s, s, s);
    const want = R.additive(ref(Q), ref(K), ref(V), { Wq: ref(Wq), Wk: ref(Wk), wv: Array.from(wv) });
    const got = lab.additiveAttention(Q, K, V, { Wq, Wk, wv });
    expectClose(got.weights, want.weights, { label: 'weights' });
    expectClose(got.output, want.output, { label: 'output' });
  });

  // Query and key widths differ; n ≠ m (cross-attention).
  const shapes = [
    [1, 3, 2, 5, 4, 1],
    [3, 17, 20, 2, 8, 4],
    [5, 4, 1, 64, 17, 3],
    [17, 65, 8, 3, 5, 8],
    [65, 8, 4, 17, 1, 5],
    [4, 5, 65, 8, 64, 17],
  ];
  it.each(shapes)('n=%i, m=%i, d_q=%i, d_k=%i, h=%i, d_v=%i matches the reference', (n, m, dq, dk, h, dv) => {
    const { Q, K, V, Wq, Wk, wv } = inputs(rng(n * 7 + m * 11 + dq * 13 + dk * 17 + h * 19 + dv), n, m, dq, dk, h, dv);
    const want = R.additive(ref(Q), ref(K), ref(V), { Wq: ref(Wq), Wk: ref(Wk), wv: Array.from(wv) });
    const got = lab.additiveAttention(Q, K, V, { Wq, Wk, wv });
    expect([got.weights.rows, got.weights.cols, got.output.rows, got.output.cols]).toEqual([n, m, n, dv]);
    expectClose(got.weights, want.weights, { label: 'weights' });
    expectClose(got.output, want.output, { label: 'output' });
  });

  it('accepts wv as number[] and matrices as nested arrays with identical results', () => {
    const { Q, K, V, Wq, Wk, wv } = inputs(rng(31), 6, 9, 5, 3, 8, 4);
    const a = lab.additiveAttention(Q, K, V, { Wq, Wk, wv, mask: { validLens: [1, 2, 3, 4, 5, 9] } });
    const b = lab.additiveAttention(toNested(Q), toNested(K), toNested(V), { Wq: toNested(Wq), Wk: toNested(Wk), wv: Array.from(wv), mask: { validLens: [1, 2, 3, 4, 5, 9] } });
    expectIdentical(a.weights, b.weights, 'weights');
    expectIdentical(a.output, b.output, 'output');
  });

  it('does not scale its scores (a hand-computed 1×2 case)', () => {
    // h = 1, W_q = W_k = [[1]], w_v = [2]: score_j = 2·tanh(q + k_j)
    const got = lab.additiveAttention([[0.5]], [[0], [1]], [[10], [20]], { Wq: [[1]], Wk: [[1]], wv: [2] });
    const s = [2 * Math.tanh(0.5), 2 * Math.tanh(1.5)];
    const e = s.map(Math.exp);
    const w = e.map((x) => x / (e[0] + e[1]));
    expectClose(got.weights, [w], { atol: 1e-6 });
    expectClose(got.output, [[10 * w[0] + 20 * w[1]]], { atol: 1e-5 });
  });
});
