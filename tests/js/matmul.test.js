// lab.matmul against the float64 reference on both builds, at sizes around
// the vector width, with nested-array and matrix-object inputs.
import { beforeAll, describe, expect, it } from 'vitest';

import { BUILDS, SIZES, expectClose, expectIdentical, loadLab, randomMatrix, ref, rng, toNested } from './helpers.js';
import * as R from './reference.js';

describe.each(BUILDS)('matmul ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
    expect([lab.simd, lab.fma]).toEqual([Boolean(simd), simd === 'fma']);
  });

  it.each(SIZES)('square %i×%i times %i×%i matches the reference', (s) => {
    const rand = rng(100 + s);
    const [A, B] = [randomMatrix(rand, s, s), randomMatrix(rand, s, s)];
    expectClose(lab.matmul(A, B), R.matmul(ref(A), ref(B)));
  });

  // Every (n, k, m) triple from a spread of sizes: odd tails in each dimension.
  const triples = [];
  for (const n of [1, 3, 5, 17, 65]) for (const k of [1, 4, 8, 17, 64]) for (const m of [1, 3, 5, 17, 65]) if ((n + 2 * k + 3 * m) % 4 === 0 || n === k) triples.push([n, k, m]);

  it.each(triples)('A %i×%i times B %i-column matches the reference', (n, k, m) => {
    const rand = rng(n * 10000 + k * 100 + m);
    const [A, B] = [randomMatrix(rand, n, k), randomMatrix(rand, k, m)];
    expectClose(lab.matmul(A, B), R.matmul(ref(A), ref(B)), { label: `${n}×${k}·${k}×${m}` });
  });

  it.each([
    [127, 129, 133],
    [256, 64, 256],
    [7, 300, 13],
    [300, 2, 9],
  ])('larger tiles: A %i×%i times B %i-column matches the reference', (n, k, m) => {
    const rand = rng(n + k + m);
    const [A, B] = [randomMatrix(rand, n, k), randomMatrix(rand, k, m)];
    expectClose(lab.matmul(A, B), R.matmul(ref(A), ref(B)), { atol: 5e-5 });
  });

  it('handles the known 2×3 · 3×2 product exactly', () => {
    const C = lab.matmul([[1, 2, 3], [4, 5, 6]], [[7, 8], [9, 10], [11, 12]]);
    expect(C.rows).toBe(2);
    expect(C.cols).toBe(2);
    expect(Array.from(C.data)).toEqual([58, 64, 139, 154]);
  });

  it('gives identical results for nested arrays, Float32Array data and plain-array data', () => {
    const rand = rng(7);
    const [A, B] = [randomMatrix(rand, 5, 17), randomMatrix(rand, 17, 3)];
    const fromObjects = lab.matmul(A, B);
    expectIdentical(lab.matmul(toNested(A), toNested(B)), fromObjects, 'nested');
    expectIdentical(lab.matmul({ rows: 5, cols: 17, data: Array.from(A.data) }, { ...B, data: Array.from(B.data) }), fromObjects, 'plain data');
    // rows given as Float32Arrays inside an outer array
    const rowsAsTyped = Array.from({ length: 5 }, (_, i) => A.data.slice(i * 17, (i + 1) * 17));
    expectIdentical(lab.matmul(rowsAsTyped, B), fromObjects, 'rows as Float32Array');
  });

  it('multiplies with an identity to the same matrix', () => {
    const rand = rng(8);
    const A = randomMatrix(rand, 17, 17);
    const I = Array.from({ length: 17 }, (_, i) => Array.from({ length: 17 }, (_, j) => (i === j ? 1 : 0)));
    expectIdentical(lab.matmul(A, I), A, 'A·I');
    expectIdentical(lab.matmul(I, A), A, 'I·A');
  });

  it('supports empty shapes (0 rows, 0 inner width)', () => {
    const C = lab.matmul({ rows: 0, cols: 3, data: new Float32Array(0) }, [[1], [2], [3]]);
    expect([C.rows, C.cols, C.data.length]).toEqual([0, 1, 0]);
    const Z = lab.matmul({ rows: 2, cols: 0, data: new Float32Array(0) }, { rows: 0, cols: 3, data: new Float32Array(0) });
    expect([Z.rows, Z.cols]).toEqual([2, 3]);
    expect(Array.from(Z.data)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('keeps large products finite and accurate (values up to 1e4)', () => {
    const rand = rng(9);
    const [A, B] = [randomMatrix(rand, 8, 17, -1e2, 1e2), randomMatrix(rand, 17, 5, -1e2, 1e2)];
    const C = lab.matmul(A, B);
    expect(C.data.every(Number.isFinite)).toBe(true);
    expectClose(C, R.matmul(ref(A), ref(B)), { atol: 1e-1, rtol: 1e-5 });
  });
});
