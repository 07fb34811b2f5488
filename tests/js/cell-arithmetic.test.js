// The arithmetic behind a cell (web/src/cell-arithmetic.js), DOM-free: every term is the library's
// own number, the page's float64 sum equals a plain float64 reference written here from the
// definitions, the truncation of more than 6 terms (first 3, …, last 2), masked cells and fully
// masked rows, and (a property, on the library's traces on every build) the page's result agrees
// with the library's value in every cell of every step, while a wrong value is caught.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { MAX_TERMS, agrees, cellArithmetic, shownTerms } from '../../web/src/cell-arithmetic.js';
import { MASKED } from '../../web/src/format.js';
import { BUILDS, loadLab, randomMatrix, rng } from './helpers.js';

const matrix = (rows, cols, values) => ({ rows, cols, data: Float32Array.from(values) });
const get = (M, i, j) => M.data[i * M.cols + j];
const byId = (steps) => Object.fromEntries(steps.map((s) => [s.id, s]));

// ---- plain float64 references, from the definitions
const refDot = (Q, K, i, j) => Array.from({ length: Q.cols }, (_, c) => get(Q, i, c) * get(K, j, c)).reduce((a, b) => a + b, 0);
function refWeight(L, visible, i, j) {
  const vis = (k) => visible(i, k);
  const xs = Array.from({ length: L.cols }, (_, k) => get(L, i, k));
  const max = Math.max(...xs.filter((_, k) => vis(k)));
  if (max === -Infinity) return 0;
  const e = xs.map((x, k) => (vis(k) ? Math.exp(x - max) : 0));
  return e[j] / e.reduce((a, b) => a + b, 0);
}
const refOut = (A, V, i, c) => Array.from({ length: A.cols }, (_, k) => get(A, i, k) * get(V, k, c)).reduce((a, b) => a + b, 0);

describe('shownTerms: all of up to 6 terms, else the first 3, …, the last 2', () => {
  it.each([
    [0, []],
    [1, [0]],
    [6, [0, 1, 2, 3, 4, 5]],
    [7, [0, 1, 2, null, 5, 6]],
    [64, [0, 1, 2, null, 62, 63]],
  ])('%i terms', (n, shown) => {
    expect(MAX_TERMS).toBe(6);
    expect(shownTerms(n)).toEqual(shown);
  });
});

describe('one cell of each step, by hand', () => {
  // q_1 = (1, 2, 3), k_2 = (0.5, −1, 2): s_12 = 0.5 − 2 + 6 = 4.5; d_k = 3.
  const Q = matrix(2, 3, [1, 2, 3, 0, 1, 0]);
  const K = matrix(2, 3, [1, 0, 0, 0.5, -1, 2]);
  const scores = matrix(2, 2, [1, 4.5, 0, -1]);
  const scaled = matrix(2, 2, [1, 4.5, 0, -1].map((v) => v / Math.sqrt(3)));

  it('a score: q_i · k_j term by term (the library numbers as they are), = the sum', () => {
    const a = cellArithmetic('scores', 0, 1, { Q, K, scores });
    expect(a.terms).toEqual([
      { a: 1, b: 0.5 },
      { a: 2, b: -1 },
      { a: 3, b: 2 },
    ]);
    expect(a.shown).toEqual([0, 1, 2]);
    expect(a.computed).toBe(4.5);
    expect(a.value).toBe(4.5);
    expect(a.agrees).toBe(true);
  });

  it('a scaled score: s ÷ √d_k, d_k the width of Q', () => {
    const a = cellArithmetic('scaled', 0, 1, { Q, scores, scaled });
    expect(a).toMatchObject({ dk: 3, root: Math.sqrt(3), score: 4.5, agrees: true });
    expect(a.computed).toBe(4.5 / Math.sqrt(3));
    expect(a.value).toBe(Math.fround(4.5 / Math.sqrt(3)));
  });

  it('a weight: the exponentials of its row (masked ones 0), their sum and the division', () => {
    // Row 0: x = (1, 2, MASKED, 0.5), the third masked.
    const logits = matrix(1, 4, [1, 2, MASKED, 0.5]);
    const mask = Uint8Array.from([1, 1, 0, 1]);
    const e = [Math.exp(-1), 1, 0, Math.exp(-1.5)];
    const sum = e[0] + e[1] + e[3];
    const weights = matrix(1, 4, e.map((v) => v / sum));
    const a = cellArithmetic('weights', 0, 0, { logits, mask, weights });
    expect(a.max).toBe(2);
    expect(a.row.map((r) => r.e)).toEqual(e);
    expect(a.row.map((r) => r.masked)).toEqual([false, false, true, false]);
    expect(a.sum).toBe(sum);
    expect(a.computed).toBe(e[0] / sum);
    expect(a.agrees).toBe(true);
    const masked = cellArithmetic('weights', 0, 2, { logits, mask, weights });
    expect(masked).toMatchObject({ masked: true, computed: 0, value: 0, agrees: true });
    // Without mask bits, the masked stand-in for −∞ is masked.
    expect(cellArithmetic('weights', 0, 2, { logits, weights }).masked).toBe(true);
  });

  it('a fully masked row: weights 0 by the library rule, said so', () => {
    const a = cellArithmetic('weights', 0, 1, { logits: matrix(1, 3, [MASKED, MASKED, MASKED]), mask: new Uint8Array(3), weights: matrix(1, 3, [0, 0, 0]) });
    expect(a).toMatchObject({ allMasked: true, max: null, computed: 0, value: 0, agrees: true });
  });

  it('an output: Σ_j a_ij × v_jc term by term; and a product A·B', () => {
    const A = matrix(1, 2, [0.25, 0.75]);
    const V = matrix(2, 2, [4, 1, 8, -1]);
    const a = cellArithmetic('output', 0, 0, { weights: A, V, output: matrix(1, 2, [7, -0.5]) });
    expect(a.terms).toEqual([
      { a: 0.25, b: 4 },
      { a: 0.75, b: 8 },
    ]);
    expect(a.computed).toBe(7);
    expect(a.agrees).toBe(true);
    expect(cellArithmetic('product', 0, 1, { A, B: V, C: matrix(1, 2, [7, -0.5]) }).computed).toBe(-0.5);
  });

  it('d_k > 6: every term is summed, the first 3, …, the last 2 are shown', () => {
    const rand = rng(7);
    const Q8 = matrix(1, 8, randomMatrix(rand, 1, 8).data);
    const K8 = matrix(1, 8, randomMatrix(rand, 1, 8).data);
    const s = refDot(Q8, K8, 0, 0);
    const a = cellArithmetic('scores', 0, 0, { Q: Q8, K: K8, scores: matrix(1, 1, [s]) });
    expect(a.terms).toHaveLength(8);
    expect(a.shown).toEqual([0, 1, 2, null, 6, 7]);
    expect(a.computed).toBeCloseTo(s, 14);
  });

  it('a wrong library value is not called agreeing; a missing operand gives no arithmetic', () => {
    expect(cellArithmetic('scores', 0, 1, { Q, K, scores: matrix(2, 2, [1, 4.51, 0, -1]) }).agrees).toBe(false);
    expect(agrees(1, Math.fround(1 + 1e-7))).toBe(true);
    expect(agrees(1, 1.001)).toBe(false);
    expect(cellArithmetic('scores', 0, 0, { scores })).toBe(null);
    expect(cellArithmetic('masked', 0, 0, { Q, K, scores })).toBe(null);
  });
});

describe.each(BUILDS)("on the library's traces ($name build)", ({ simd }) => {
  const masks = fc.constantFrom(undefined, 'causal', { validLens: [1, 0, 3, 2, 5, 1, 4, 2] });
  it('every cell of every step: the page equals the float64 reference and agrees with the library', async () => {
    const lab = await loadLab(simd);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 12 }), masks, fc.integer({ min: 0, max: 2 ** 31 }), (n, m, dk, mask, seed) => {
        const rand = rng(seed);
        const Q = randomMatrix(rand, n, dk, -3, 3);
        const K = randomMatrix(rand, m, dk, -3, 3);
        const V = randomMatrix(rand, m, dk, -3, 3);
        const lens = mask?.validLens?.slice(0, n).map((v) => Math.min(v, m));
        const used = mask?.validLens ? { validLens: lens.concat(Array(Math.max(0, n - lens.length)).fill(m)) } : mask === 'causal' && n === m ? mask : undefined;
        const r = lab.scaledDotProductAttention(Q, K, V, { mask: used, trace: true });
        const s = byId(r.steps);
        // The inputs as the library read them (float32), as the panels read them from its trace.
        const toM = (M) => matrix(M.rows, M.cols, M.data);
        const mats = { Q: toM(Q), K: toM(K), V: toM(V), scores: s.scores.matrix, scaled: s.scaled.matrix, logits: (s.masked ?? s.scaled).matrix, mask: s.masked?.mask, weights: r.weights, output: r.output };
        const visible = (i, k) => (s.masked ? s.masked.mask[i * m + k] === 1 : true);
        for (let i = 0; i < n; i++) {
          for (let j = 0; j < m; j++) {
            const sc = cellArithmetic('scores', i, j, mats);
            expect(sc.computed).toBeCloseTo(refDot(mats.Q, mats.K, i, j), 12);
            expect(sc.agrees, `score ${i},${j}`).toBe(true);
            const sd = cellArithmetic('scaled', i, j, mats);
            expect(sd.computed).toBe(get(mats.scores, i, j) / Math.sqrt(dk));
            expect(sd.agrees, `scaled ${i},${j}`).toBe(true);
            const w = cellArithmetic('weights', i, j, mats);
            expect(w.computed).toBeCloseTo(refWeight(mats.logits, visible, i, j), 12);
            expect(w.agrees, `weight ${i},${j}`).toBe(true);
          }
          // A row's page weights sum to 1 (or it is fully masked, all 0).
          const row = Array.from({ length: m }, (_, j) => cellArithmetic('weights', i, j, mats));
          const total = row.reduce((a, w) => a + w.computed, 0);
          expect(row[0].allMasked ? total : Math.abs(total - 1) < 1e-12).toBe(row[0].allMasked ? 0 : true);
          for (let c = 0; c < dk; c++) {
            const o = cellArithmetic('output', i, c, mats);
            expect(o.computed).toBeCloseTo(refOut(mats.weights, mats.V, i, c), 12);
            expect(o.agrees, `output ${i},${c}`).toBe(true);
            expect(o.shown).toEqual(shownTerms(m));
          }
        }
        // A value off by a little more than float32 rounding is caught.
        const wrong = { ...mats, output: { ...r.output, data: r.output.data.map((v) => v + 1e-3 + Math.abs(v) * 1e-3) } };
        expect(cellArithmetic('output', 0, 0, wrong).agrees).toBe(false);
      }),
      { seed: 20261206, numRuns: 40 },
    );
  });
});
