// Sinusoidal positional encoding on both builds: against the formula in
// float64, known values, the relative-position property of P_i·P_j, X + P,
// and the order-blindness it fixes (attention without P is permutation
// equivariant; with P it is not).
import { beforeAll, describe, expect, it } from 'vitest';

import { BUILDS, expectClose, loadLab, randomMatrix, rng } from './helpers.js';

// The formula as printed in "Attention Is All You Need", section 3.5.
function reference(n, d, base = 10000) {
  return Array.from({ length: n }, (_, i) =>
    Array.from({ length: d }, (_, c) => {
      const angle = i / base ** ((2 * Math.floor(c / 2)) / d);
      return c % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
    }),
  );
}
const row = (m, i) => Array.from(m.data.subarray(i * m.cols, (i + 1) * m.cols));
const permuteRows = (m, order) => order.map((i) => row(m, i));

describe.each(BUILDS)('positionalEncoding ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  it.each([
    [1, 1], [2, 2], [6, 8], [7, 5], [50, 64], [300, 3],
  ])('n=%i, d=%i matches the formula', (n, d) => {
    const p = lab.positionalEncoding(n, d);
    expect([p.rows, p.cols]).toEqual([n, d]);
    expectClose(p, reference(n, d), { atol: 1e-6, rtol: 1e-6 });
  });

  it.each([1, 100, 0.5])('base %f matches the formula', (base) => {
    expectClose(lab.positionalEncoding(20, 6, { base }), reference(20, 6, base), { atol: 1e-6, rtol: 1e-6 });
  });

  it('starts at (0, 1, 0, 1, …) and takes known values', () => {
    const p = lab.positionalEncoding(2, 4);
    expect(row(p, 0)).toEqual([0, 1, 0, 1]);
    expect(row(p, 1)).toEqual([Math.sin(1), Math.cos(1), Math.sin(0.01), Math.cos(0.01)].map(Math.fround));
  });

  it('gives an empty matrix for zero positions or zero width', () => {
    expect(lab.positionalEncoding(0, 4)).toMatchObject({ rows: 0, cols: 4, data: new Float32Array(0) });
    expect(lab.positionalEncoding(3, 0)).toMatchObject({ rows: 3, cols: 0, data: new Float32Array(0) });
  });

  it('has P_i·P_j depending on i − j only', () => {
    const [n, d] = [24, 16];
    const p = lab.positionalEncoding(n, d);
    const dot = (i, j) => row(p, i).reduce((s, x, c) => s + x * p.data[j * d + c], 0);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        let want = 0;
        for (let k = 0; k < d / 2; k++) want += Math.cos((i - j) / 10000 ** ((2 * k) / d));
        expect(Math.abs(dot(i, j) - want), `P_${i}·P_${j}`).toBeLessThan(1e-5);
      }
  });

  it('adds P to X', () => {
    const rand = rng(5);
    const X = randomMatrix(rand, 9, 6, -2, 2);
    const P = reference(9, 6);
    const want = P.map((r, i) => r.map((v, c) => X.data[i * 6 + c] + v));
    expectClose(lab.addPositionalEncoding(X), want, { atol: 1e-6, rtol: 1e-6 });
    expectClose(lab.addPositionalEncoding(X, { base: 10 }), reference(9, 6, 10).map((r, i) => r.map((v, c) => X.data[i * 6 + c] + v)), { atol: 1e-6, rtol: 1e-6 });
  });

  it.each([
    [9, 6, Math.sqrt(6)], [4, 64, 8], [7, 5, 0.25], [3, 8, 1],
  ])('n=%i, d=%i: X·scale + P for scale %f matches a float64 reference, rounded once', (n, d, scale) => {
    const X = randomMatrix(rng(n * 100 + d), n, d, -1, 1);
    const want = reference(n, d).map((r, i) => r.map((v, c) => scale * X.data[i * d + c] + v));
    const got = lab.addPositionalEncoding(X, { scale });
    expectClose(got, want, { atol: 1e-7, rtol: 2 ** -23 });
    // One rounding of the float64 value: every entry is the float32 nearest to it, or its neighbour.
    for (let k = 0; k < got.data.length; k++) expect(Math.abs(got.data[k] - Math.fround(want[Math.floor(k / d)][k % d]))).toBeLessThanOrEqual(2 ** -23 * Math.max(1, Math.abs(got.data[k])));
    expect(Array.from(lab.addPositionalEncoding(X, { scale, base: 10 }).data)).not.toEqual(Array.from(got.data));
  });

  it('scale 1 is X + P, and scale with base 10 uses both', () => {
    const X = randomMatrix(rng(8), 5, 4, -2, 2);
    expect(Array.from(lab.addPositionalEncoding(X, { scale: 1 }).data)).toEqual(Array.from(lab.addPositionalEncoding(X).data));
    const want = reference(5, 4, 10).map((r, i) => r.map((v, c) => 2 * X.data[i * 4 + c] + v));
    expectClose(lab.addPositionalEncoding(X, { base: 10, scale: 2 }), want, { atol: 1e-6, rtol: 1e-6 });
  });

  it.each([
    [0, 'INVALID_ARGUMENT', 'got 0'],
    [-2, 'INVALID_ARGUMENT', 'got -2'],
    [NaN, 'NON_FINITE', 'NaN'],
    [Infinity, 'NON_FINITE', 'Infinity'],
    ['2', 'INVALID_ARGUMENT', 'scale must be a finite number'],
  ])('refuses scale %s with %s', (scale, code, text) => {
    const call = () => lab.addPositionalEncoding([[1, 2]], { scale });
    expect(call).toThrow(expect.objectContaining({ code, message: expect.stringContaining('addPositionalEncoding: scale') }));
    expect(call).toThrow(text);
  });

  it('refuses scale for P alone, and reports X·scale beyond float32 as an overflow', () => {
    expect(() => lab.positionalEncoding(2, 2, { scale: 2 })).toThrow(/positionalEncoding: unknown option scale\b/);
    expect(() => lab.addPositionalEncoding([[3e38, 0]], { scale: 2 })).toThrow(expect.objectContaining({ code: 'OVERFLOW', message: expect.stringContaining('addPositionalEncoding: the result overflowed float32') }));
  });

  it('makes self-attention see order: without P, swapping tokens swaps the output rows; with P, it does not', () => {
    const rand = rng(11);
    const [n, d] = [5, 8];
    const X = randomMatrix(rand, n, d);
    const W = { Wq: randomMatrix(rand, d, 4), Wk: randomMatrix(rand, d, 4), Wv: randomMatrix(rand, d, 4) };
    const order = [1, 0, 2, 3, 4];
    const swapped = permuteRows(X, order);
    const plain = lab.selfAttention(X, W).output;
    expectClose(lab.selfAttention(swapped, W).output, permuteRows(plain, order), { atol: 1e-6, rtol: 1e-5 });
    const withP = lab.selfAttention(lab.addPositionalEncoding(X), W).output;
    const swappedWithP = lab.selfAttention(lab.addPositionalEncoding(swapped), W).output;
    const moved = permuteRows(withP, order);
    const diff = Math.max(...swappedWithP.data.map((v, t) => Math.abs(v - moved[Math.floor(t / 4)][t % 4])));
    expect(diff).toBeGreaterThan(1e-3);
  });
});
