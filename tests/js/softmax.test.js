// lab.softmax against the float64 reference on both builds: sizes around the
// vector width, every mask kind, fully masked rows, and scores where a naive
// exp would overflow.
import { beforeAll, describe, expect, it } from 'vitest';

import { BUILDS, SIZES, expectClose, expectIdentical, loadLab, randomBits, randomMatrix, ref, rng, toNested } from './helpers.js';
import * as R from './reference.js';

describe.each(BUILDS)('softmax ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  it.each(SIZES.flatMap((n) => SIZES.map((m) => [n, m])))('%i×%i without a mask matches the reference', (n, m) => {
    const S = randomMatrix(rng(n * 1000 + m), n, m, -4, 4);
    expectClose(lab.softmax(S), R.softmax(ref(S)));
  });

  it.each(SIZES)('%i×%i rows sum to 1', (s) => {
    const W = lab.softmax(randomMatrix(rng(s), s, s, -10, 10));
    for (let i = 0; i < s; i++) {
      let sum = 0;
      for (let j = 0; j < s; j++) sum += W.data[i * s + j];
      expect(Math.abs(sum - 1)).toBeLessThan(1e-5);
    }
  });

  it('gives the textbook values for [1, 2, 3]', () => {
    const e = [Math.exp(1), Math.exp(2), Math.exp(3)];
    const z = e[0] + e[1] + e[2];
    expectClose(lab.softmax([[1, 2, 3]]), [e.map((x) => x / z)], { atol: 1e-7, rtol: 1e-6 });
  });

  it.each(SIZES)('causal, validLens (array and number) and 0/1 masks on an n×n matrix (n = %i) match the reference', (s) => {
    const rand = rng(500 + s);
    const S = randomMatrix(rand, s, s, -3, 3);
    const lens = Array.from({ length: s }, () => Math.floor(rand() * (s + 1)));
    const bits = randomBits(rand, s, s);
    const masks = ['causal', { validLens: lens }, { validLens: Math.ceil(s / 2) }, bits, { rows: s, cols: s, data: Float32Array.from(bits.flat()) }];
    for (const mask of masks) {
      const W = lab.softmax(S, { mask });
      const visible = R.visibility(mask, s, s);
      expectClose(W, R.maskedSoftmax(ref(S), visible), { label: JSON.stringify(mask).slice(0, 40) });
      for (let i = 0; i < s; i++) for (let j = 0; j < s; j++) if (!visible[i][j]) expect(W.data[i * s + j]).toBe(0);
    }
  });

  it('gives all-zero rows (no NaN) where every entry is masked', () => {
    const S = [[1, 2, 3], [4, 5, 6], [7, 8, 9]];
    const W = lab.softmax(S, { mask: { validLens: [0, 2, 0] } });
    expect(Array.from(W.data.subarray(0, 3))).toEqual([0, 0, 0]);
    expect(Array.from(W.data.subarray(6, 9))).toEqual([0, 0, 0]);
    expectClose(W, R.softmax(S, { validLens: [0, 2, 0] }));
    const M = lab.softmax(S, { mask: [[0, 0, 0], [1, 1, 1], [0, 0, 0]] });
    expect(Array.from(M.data)).toEqual([0, 0, 0, ...Array.from(lab.softmax([[4, 5, 6]]).data), 0, 0, 0]);
  });

  it("treats mask 'none' and null like no mask", () => {
    const S = randomMatrix(rng(3), 5, 5);
    const plain = lab.softmax(S);
    expectIdentical(lab.softmax(S, { mask: 'none' }), plain);
    expectIdentical(lab.softmax(S, { mask: null }), plain);
    expectIdentical(lab.softmax(S, {}), plain);
  });

  it('stays finite and exact for scores of ±1e4 and huge equal scores', () => {
    const W = lab.softmax([[1e4, -1e4, 0], [1e4, 1e4, 1e4], [-1e4, -1e4, -1e4], [3e38, 3e38, -3e38]]);
    expect(W.data.every(Number.isFinite)).toBe(true);
    expectClose(W, [[1, 0, 0], [1 / 3, 1 / 3, 1 / 3], [1 / 3, 1 / 3, 1 / 3], [0.5, 0.5, 0]], { atol: 1e-7, rtol: 1e-6 });
  });

  it('is invariant to adding a constant to a row', () => {
    const S = randomMatrix(rng(11), 4, 17, -2, 2);
    const shifted = { ...S, data: S.data.map((x, i) => x + (i < 17 ? 1000 : i < 34 ? -1000 : 0.5)) };
    expectClose(lab.softmax(shifted), R.softmax(ref(S)), { atol: 1e-4 });
  });

  it('gives identical results for nested arrays and Float32Array data, with and without a mask', () => {
    const rand = rng(21);
    const S = randomMatrix(rand, 17, 9);
    const bits = randomBits(rand, 17, 9);
    expectIdentical(lab.softmax(toNested(S)), lab.softmax(S));
    expectIdentical(lab.softmax(toNested(S), { mask: bits }), lab.softmax(S, { mask: { rows: 17, cols: 9, data: Float32Array.from(bits.flat()) } }));
    expectIdentical(lab.softmax(S, { mask: { validLens: new Int32Array(17).fill(4) } }), lab.softmax(S, { mask: { validLens: 4 } }));
  });
});
