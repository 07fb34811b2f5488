// <attention-positions>'s DOM-free model (web/src/components/positions/encoding.js) in Node:
// the pair swapped, rows exchanged, the permuted difference, P and P Pᵀ against the formula,
// and the swap experiment: without P self-attention only permutes, with P it does not.
import { beforeAll, describe, expect, it } from 'vitest';

import { CHART_POSITIONS, chartColumns, encodingOf, permutedDifference, swapExperiment, swapPair, swapRows } from '../../web/src/components/positions/encoding.js';
import { DEFAULT_SHIFT, ROTATED_POSITIONS, SHIFT_MAX, pairCount, pairFrequency, pairRotation, rotationCheck, rotationChoice, rotationError } from '../../web/src/components/positions/rotation.js';
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

describe('P_{i+δ} as a rotation of P_i (rotation.js)', () => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(true);
  });

  it('builds R from δ and ω_j alone: an orthogonal matrix whose inverse is the map for −δ', () => {
    expect(pairFrequency(0, 8)).toBe(1);
    expect(pairFrequency(2, 8)).toBeCloseTo(10000 ** (-4 / 8), 15);
    const R = pairRotation(3, 0.1);
    const a = 3 * 0.1;
    expect(R).toEqual([[Math.cos(a), Math.sin(a)], [-Math.sin(a), Math.cos(a)]]);
    const back = pairRotation(-3, 0.1);
    expect(back[0][1]).toBe(R[1][0]);
    expect(back[1][0]).toBe(R[0][1]);
    expect(pairCount(8)).toBe(4);
    expect(pairCount(9)).toBe(4);
    expect(pairCount(1)).toBe(0);
  });

  // Each float32 entry of P is within 2⁻²⁵ of its exact value (|P| ≤ 1); R P_i sums two such
  // entries with weights |cos| + |sin| ≤ √2, so the difference stays below 2⁻²³.
  it.each([2, 8, 9, 64])('d = %i: R P_i equals the library’s P_{i+δ} up to float32 rounding for every i and δ', (d) => {
    const P = lab.positionalEncoding(CHART_POSITIONS, d);
    let worst = 0;
    for (const delta of [1, 2, 3, 7, 16, SHIFT_MAX]) for (const i of [0, 1, 3, 10, 30, CHART_POSITIONS - 1 - SHIFT_MAX]) worst = Math.max(worst, rotationError(P, i, delta));
    expect(worst).toBeLessThan(2 ** -23);
    expect(worst).toBeGreaterThan(0);
    // The wrong way round (R for −δ) misses P_{i+δ} by far more than rounding: the map has a direction.
    const wrong = pairRotation(-3, 1);
    const p = (i) => [P.data[i * d], P.data[i * d + 1]];
    const got = [wrong[0][0] * p(5)[0] + wrong[0][1] * p(5)[1], wrong[1][0] * p(5)[0] + wrong[1][1] * p(5)[1]];
    expect(Math.max(Math.abs(got[0] - p(8)[0]), Math.abs(got[1] - p(8)[1]))).toBeGreaterThan(0.1);
  });

  it('rotationCheck: the same R for both positions, each row against the library', () => {
    const P = lab.positionalEncoding(CHART_POSITIONS, 8);
    const c = rotationCheck(P, 5, 1);
    expect(c.R).toEqual(pairRotation(5, 10000 ** (-2 / 8)));
    expect(c.rows.map((r) => r.i)).toEqual(ROTATED_POSITIONS);
    for (const r of c.rows) {
      expect(r.before).toEqual([P.data[r.i * 8 + 2], P.data[r.i * 8 + 3]]);
      expect(r.after).toEqual([P.data[(r.i + 5) * 8 + 2], P.data[(r.i + 5) * 8 + 3]]);
      expect(r.error).toBeLessThanOrEqual(r.allPairs);
      expect(r.allPairs).toBeLessThan(2 ** -23);
    }
    expect(c.worst).toBe(Math.max(...c.rows.map((r) => r.allPairs)));
    expect(Math.max(...ROTATED_POSITIONS) + SHIFT_MAX).toBeLessThan(CHART_POSITIONS);
  });

  it('rotationChoice clamps δ to 1…SHIFT_MAX and j to the pairs, with defaults', () => {
    expect(rotationChoice(null, null, 8)).toEqual({ delta: DEFAULT_SHIFT, pair: 0 });
    expect(rotationChoice('0', '9', 8)).toEqual({ delta: 1, pair: 3 });
    expect(rotationChoice('99', '-1', 8)).toEqual({ delta: SHIFT_MAX, pair: 0 });
    expect(rotationChoice('2.6', 'x', 5)).toEqual({ delta: 3, pair: 0 });
    expect(rotationChoice('4', '1', 1)).toEqual({ delta: 4, pair: 0 });
  });

  // The note's claim: the left columns change fast, the right ones slowly (a mirrored counter).
  it('column pairs change more slowly from left to right', () => {
    const d = 16;
    const P = lab.positionalEncoding(CHART_POSITIONS, d);
    const change = (c) => {
      let sum = 0;
      for (let i = 1; i < CHART_POSITIONS; i++) sum += Math.abs(P.data[i * d + c] - P.data[(i - 1) * d + c]);
      return sum;
    };
    const sines = Array.from({ length: d / 2 }, (_, j) => change(2 * j));
    for (let j = 1; j < sines.length; j++) expect(sines[j], `column ${2 * j}`).toBeLessThan(sines[j - 1]);
  });
});

describe('the swap sentences follow their numbers', () => {
  it('equal up to float32 rounding at ROUNDING or less, different above it', async () => {
    const { ROUNDING, sameUpToRounding } = await import('../../web/src/components/positions/encoding.js');
    expect(sameUpToRounding(0)).toBe(true);
    expect(sameUpToRounding(6e-8)).toBe(true);
    expect(sameUpToRounding(ROUNDING)).toBe(true);
    expect(sameUpToRounding(ROUNDING * 2)).toBe(false);
    expect(sameUpToRounding(0.03)).toBe(false);
  });
});
