// <attention-positions>'s DOM-free model (web/src/components/positions/encoding.js) in Node:
// the pair swapped, rows exchanged, the permuted difference, P and P Pᵀ against the formula,
// and the swap experiment: without P self-attention only permutes, with P it does not.
import { beforeAll, describe, expect, it } from 'vitest';

import { CHART_POSITIONS, chartColumns, encodingOf, permutedDifference, swapExperiment, swapPair, swapRows } from '../../web/src/components/positions/encoding.js';
import { buildModel } from '../../web/src/model.js';
import { expectClose, loadLab, ref } from './helpers.js';
import * as R from './reference.js';

const matrix = (rows, cols, f) => ({ rows, cols, data: Float32Array.from({ length: rows * cols }, (_, k) => f(Math.floor(k / cols), k % cols)) });

describe('swapPair', () => {
  it('defaults to the second and third tokens (the first two of two)', () => {
    expect(swapPair(null, 5)).toEqual([1, 2]);
    expect(swapPair('', 2)).toEqual([0, 1]);
  });

  it('clamps to 0…n−1, orders the pair and keeps it distinct', () => {
    expect(swapPair('3 0', 5)).toEqual([0, 3]);
    expect(swapPair('9 -2', 5)).toEqual([0, 4]);
    expect(swapPair('3 3', 5)).toEqual([3, 4]);
    expect(swapPair('4 4', 5)).toEqual([3, 4]);
    expect(swapPair('1.4, x', 4)).toEqual([1, 2]);
  });

  it('plots the columns that exist', () => {
    expect(chartColumns(64)).toEqual([0, 1, 2, 4]);
    expect(chartColumns(3)).toEqual([0, 1, 2]);
    expect(chartColumns(1)).toEqual([0]);
  });
});

describe('swapRows and permutedDifference', () => {
  const A = matrix(4, 4, (i, j) => 10 * i + j);

  it('exchanges two rows and leaves the rest', () => {
    const S = swapRows(A, 1, 3);
    expect(Array.from(S.data)).toEqual([0, 1, 2, 3, 30, 31, 32, 33, 20, 21, 22, 23, 10, 11, 12, 13]);
    expect(Array.from(A.data.subarray(4, 8))).toEqual([10, 11, 12, 13]);
  });

  it('is 0 for A with rows and columns i, j both exchanged, and the largest change otherwise', () => {
    const both = matrix(4, 4, (i, j) => A.data[[0, 3, 2, 1][i] * 4 + [0, 3, 2, 1][j]]);
    expect(permutedDifference(A, both, 1, 3)).toBe(0);
    // Rows only: B[π(a)][π(b)] = A[a][π(b)], which differs from A[a][b] by |π(b) − b| ≤ 2.
    expect(permutedDifference(A, swapRows(A, 1, 3), 1, 3)).toBe(2);
  });
});

describe('with the library', () => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(true);
  });

  it('P follows sin / cos of i / 10000^(2j/d), and P Pᵀ is P times its transpose', () => {
    const { P, chart, PPt } = encodingOf(lab, 6, 8);
    const want = Array.from({ length: 6 }, (_, i) => Array.from({ length: 8 }, (_, j) => (j % 2 === 0 ? Math.sin : Math.cos)(i / 10000 ** ((2 * Math.floor(j / 2)) / 8))));
    expectClose(P, want, { label: 'P' });
    expect([chart.rows, chart.cols]).toEqual([CHART_POSITIONS, 8]);
    expectClose(PPt, R.matmul(want, R.transpose(want)), { label: 'P Pᵀ' });
  });

  it('swapping two tokens only permutes the weights without P, and changes them with P', () => {
    const model = buildModel({ sentence: 'the cat sat on the mat', seed: 3, dModel: 8, dK: 4 });
    const e = swapExperiment(lab, model, 1, 4);
    expect(e.swappedTokens).toEqual([0, 4, 2, 3, 1, 5].map((k) => model.tokens[k]));
    expect(e.diffNoP).toBeLessThan(1e-6);
    expect(e.diffWithP).toBeGreaterThan(1e-3);
    expect(e.diffNoP).toBe(permutedDifference(e.noP, e.noPs, 1, 4));
    const P = ref(encodingOf(lab, model.n, 8).P);
    expectClose(e.XP, ref(model.X).map((row, i) => row.map((x, j) => x + P[i][j])), { label: 'X + P' });
  });
});
