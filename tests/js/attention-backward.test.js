// lab.attentionBackward on both builds: the fused path (default) and the
// weights-kept path (trace: true, or fused: false) against a float64 JS
// reference backward and against central finite differences of the float64
// forward, for every mask kind at sizes below, at and above the vector width
// and the kernel's blocks; the two paths agree; the trace's steps are the
// reference's dP and dS; fully masked rows get zero gradients; bad inputs get
// an AttentionError naming the shapes.
import katex from 'katex';
import { beforeAll, describe, expect, it } from 'vitest';

import { AttentionError } from '../../dist/node.js';
import { DETERMINISTIC_BUILDS, SIZES, expectClose, loadTrainingLab, randomBits, randomMatrix, ref, rng, thrown } from './helpers.js';
import * as R from './reference.js';

// ---- the float64 reference: O = softmax(mask(QKᵀ·s))V; dV = Pᵀ dO, dP = dO Vᵀ,
// dS = P ∘ (dP − rowsum(P ∘ dP)), dQ = s·dS K, dK = s·dSᵀ Q.
function referenceBackward(Q, K, V, dO, { mask, scale } = {}) {
  const s = scale ?? 1 / Math.sqrt(Q[0]?.length ?? K[0]?.length ?? 1);
  const P = R.scaledDotProduct(Q, K, V, { mask, scale: s }).weights;
  const dP = R.matmul(dO, R.transpose(V));
  const dS = P.map((row, i) => {
    const D = row.reduce((sum, p, j) => sum + p * dP[i][j], 0);
    return row.map((p, j) => p * (dP[i][j] - D));
  });
  const times = (A, x) => A.map((row) => row.map((y) => y * x));
  return { P, dP, dS, dV: R.matmul(R.transpose(P), dO), dQ: times(R.matmul(dS, K), s), dK: times(R.matmul(R.transpose(dS), Q), s) };
}

// L = Σ dO ∘ O in float64: its gradient is what attentionBackward returns.
function loss(Q, K, V, dO, options) {
  const O = R.scaledDotProduct(Q, K, V, options).output;
  return O.reduce((sum, row, i) => sum + row.reduce((t, x, j) => t + x * dO[i][j], 0), 0);
}

const MASKS = ['none', 'causal', 'validLens', 'matrix'];

function maskFor(kind, rand, n, m) {
  if (kind === 'none') return undefined;
  if (kind === 'causal') return 'causal';
  if (kind === 'validLens') return { validLens: Array.from({ length: n }, (_, i) => (i === 0 ? 0 : Math.floor(rand() * (m + 1)))) };
  return randomBits(rand, n, m, 0.7);
}

function inputs(seed, n, m, d, dv, amplitude = 1.5) {
  const rand = rng(seed);
  return { rand, Q: randomMatrix(rand, n, d, -amplitude, amplitude), K: randomMatrix(rand, m, d, -amplitude, amplitude), V: randomMatrix(rand, m, dv), dO: randomMatrix(rand, n, dv) };
}

// float32 sums of n + m terms of width d: the tolerance grows with both.
const tol = (n, m, d) => ({ atol: 2e-6 * (d + 1) * Math.sqrt(n + m), rtol: 2e-4 });

describe.each(DETERMINISTIC_BUILDS)('attentionBackward ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadTrainingLab(simd);
  });

  it('matches the float64 reference backward on both paths, every mask kind and size', () => {
    let seed = 1;
    for (const n of [...SIZES, 200])
      for (const m of [1, 5, 17, 65, 200]) {
        const [d, dv] = [SIZES[(n + m) % SIZES.length], SIZES[(n * 3 + m) % SIZES.length]];
        for (const kind of MASKS) {
          const { rand, Q, K, V, dO } = inputs(seed++, n, m, d, dv);
          const mask = maskFor(kind, rand, n, m);
          const want = referenceBackward(ref(Q), ref(K), ref(V), ref(dO), { mask });
          for (const fused of [true, false]) {
            const got = lab.attentionBackward(Q, K, V, dO, { mask, fused });
            for (const g of ['dQ', 'dK', 'dV']) expectClose(got[g], want[g], { ...tol(n, m, Math.max(d, dv)), label: `${g} n=${n} m=${m} d=${d} dv=${dv} ${kind} fused=${fused}` });
            expect(got.steps).toBeUndefined();
          }
        }
      }
  });

  it('agrees with central finite differences of the float64 forward', () => {
    let worst = 0;
    for (const n of [1, 3, 4, 5, 8, 17, 64, 65, 200])
      for (const kind of MASKS) {
        const m = n === 200 ? 65 : n + 2;
        const { rand, Q, K, V, dO } = inputs(1000 + n, n, m, 8, 5, 1);
        const mask = maskFor(kind, rand, n, m);
        const x = [ref(Q), ref(K), ref(V)];
        const dOd = ref(dO);
        const paths = [true, false].map((fused) => [fused, lab.attentionBackward(Q, K, V, dO, { mask, fused })]);
        ['dQ', 'dK', 'dV'].forEach((name, which) => {
          const a = x[which];
          const cols = a[0].length, count = a.length * cols, stride = Math.max(1, Math.floor(count / 8));
          for (let t = 0; t < count; t += stride) {
            const [i, j] = [Math.floor(t / cols), t % cols];
            const keep = a[i][j], h = 1e-5;
            a[i][j] = keep + h;
            const up = loss(...x, dOd, { mask });
            a[i][j] = keep - h;
            const down = loss(...x, dOd, { mask });
            a[i][j] = keep;
            const fd = (up - down) / (2 * h);
            for (const [fused, got] of paths) {
              const err = Math.abs(got[name].data[t] - fd) / (1 + Math.abs(fd));
              worst = Math.max(worst, err);
              expect(err, `${name}[${i}][${j}] n=${n} ${kind} fused=${fused}: ${got[name].data[t]} vs ${fd}`).toBeLessThan(1e-4);
            }
          }
        });
      }
    console.log(`[attentionBackward ${simd ? 'SIMD' : 'scalar'}] worst |error| / (1 + |fd|) vs finite differences: ${worst.toExponential(2)}`);
  });

  it('the fused and the weights-kept paths agree (custom scale, every mask kind)', () => {
    for (const kind of MASKS) {
      const { rand, Q, K, V, dO } = inputs(77, 70, 130, 16, 12, 3);
      const mask = maskFor(kind, rand, 70, 130);
      const a = lab.attentionBackward(Q, K, V, dO, { mask, scale: 0.3 });
      const b = lab.attentionBackward(Q, K, V, dO, { mask, scale: 0.3, trace: true });
      for (const g of ['dQ', 'dK', 'dV']) expectClose(a[g], ref(b[g]), { atol: 2e-5, rtol: 1e-4, label: `${g} ${kind}` });
    }
  });

  it('traces dO, dV, dP, dS, dQ, dK: the reference intermediates, with renderable formulas', () => {
    const { rand, Q, K, V, dO } = inputs(5, 6, 7, 4, 3);
    const mask = randomBits(rand, 6, 7, 0.6);
    mask[2] = mask[2].map(() => 0);  // a fully masked row
    const want = referenceBackward(ref(Q), ref(K), ref(V), ref(dO), { mask });
    const got = lab.attentionBackward(Q, K, V, dO, { mask, trace: true });
    expect(got.steps.map((s) => s.id)).toEqual(['dO', 'dV', 'dP', 'dS', 'dQ', 'dK']);
    for (const s of got.steps) {
      expect(s.title.length, s.id).toBeGreaterThan(0);
      expect(() => katex.renderToString(s.formula, { throwOnError: true }), `${s.id}: ${s.formula}`).not.toThrow();
      expectClose(s.matrix, s.id === 'dO' ? ref(dO) : want[s.id], { label: s.id });
    }
    const dS = got.steps[3].matrix;
    for (let i = 0; i < 6; i++) {  // rowsum(dS) = D_i − D_i Σ_j P_ij = 0; masked entries exactly 0
      let sum = 0;
      for (let j = 0; j < 7; j++) {
        sum += dS.data[i * 7 + j];
        if (!mask[i][j]) expect(dS.data[i * 7 + j] === 0, `dS[${i}][${j}] is masked: ${dS.data[i * 7 + j]}`).toBe(true);
      }
      expect(Math.abs(sum), `rowsum dS[${i}]`).toBeLessThan(1e-6);
    }
    expect(got.steps[4].formula).toContain('\\sqrt{d_k}');
    expect(lab.attentionBackward(Q, K, V, dO, { trace: true, scale: 0.5 }).steps[5].formula).toContain('0.5');
  });

  it('fully masked rows and keys nobody sees get exactly zero gradients', () => {
    const { Q, K, V, dO } = inputs(9, 40, 70, 8, 8);
    const validLens = Array.from({ length: 40 }, (_, i) => (i % 3 === 0 ? 0 : 1 + (i % 20)));  // keys 20 … 69 unseen
    for (const fused of [true, false]) {
      const g = lab.attentionBackward(Q, K, V, dO, { mask: { validLens }, fused });
      for (let i = 0; i < 40; i += 3) expect(Array.from(g.dQ.data.subarray(i * 8, i * 8 + 8)), `dQ row ${i}`).toEqual(new Array(8).fill(0));
      expect(Array.from(g.dK.data.subarray(20 * 8)).every((x) => x === 0), 'dK rows 20 …').toBe(true);
      expect(Array.from(g.dV.data.subarray(20 * 8)).every((x) => x === 0), 'dV rows 20 …').toBe(true);
    }
  });

  it('handles empty sizes: no queries, no keys, zero widths (both paths agree)', () => {
    const M = (r, c) => ({ rows: r, cols: c, data: new Float32Array(r * c).fill(0.5) });
    for (const [n, m, d, dv] of [[0, 3, 2, 2], [3, 0, 2, 2], [2, 2, 0, 2], [2, 2, 2, 0], [0, 0, 0, 0]]) {
      const [a, b] = [false, true].map((trace) => lab.attentionBackward(M(n, d), M(m, d), M(m, dv), M(n, dv), { trace }));
      expect([a.dQ, a.dK, a.dV].map((g) => [g.rows, g.cols])).toEqual([[n, d], [m, d], [m, dv]]);
      for (const g of ['dQ', 'dK', 'dV']) expect(Array.from(a[g].data), `${g} ${n} ${m} ${d} ${dv}`).toEqual(Array.from(b[g].data));
    }
    // d = 0: every score is 0, so P is uniform and dV = Pᵀ dO = 0.5 · (0.5 + 0.5)
    expect(Array.from(lab.attentionBackward(M(2, 0), M(2, 0), M(2, 2), M(2, 2)).dV.data)).toEqual([0.5, 0.5, 0.5, 0.5]);
  });

  it('refuses bad input with an AttentionError naming the shapes', () => {
    const Q = [[1, 2], [3, 4], [5, 6]], K = [[1, 0], [0, 1]], V = [[1], [2]];
    const e1 = thrown(() => lab.attentionBackward(Q, K, V, [[1], [2]]));
    expect(e1).toBeInstanceOf(AttentionError);
    expect(e1.code).toBe(AttentionError.codes.SHAPE_MISMATCH);
    expect(e1.message).toBe('attentionBackward: dO is 2×1 but O = softmax(QKᵀ·scale)V is 3×1 (dO must be n×d_v: Q.rows × V.cols)');
    expect(thrown(() => lab.attentionBackward(Q, K, V, [[1, 2], [3, 4], [5, 6]])).message).toContain('dO is 3×2');
    expect(thrown(() => lab.attentionBackward(Q, [[1, 2, 3]], V, [[1], [2], [3]])).message).toContain('Q is 3×2 but K is 1×3');
    expect(thrown(() => lab.attentionBackward(Q, K, [[1]], [[1], [2], [3]])).message).toContain('K is 2×2 but V is 1×1');
    expect(thrown(() => lab.attentionBackward(Q, K, V)).message).toBe('attentionBackward: dO is missing');
    expect(thrown(() => lab.attentionBackward(Q, K, V, [[1], [2], [3]], { trace: true, fused: true })).code).toBe(AttentionError.codes.INVALID_ARGUMENT);
    expect(thrown(() => lab.attentionBackward(Q, K, V, [[1], [2], [3]], { weights: false })).message).toContain('unknown option weights');
    expect(thrown(() => lab.attentionBackward(Q, K, V, [[1], [2], [3]], { fuse: true })).message).toContain('unknown option fuse (did you mean fused?)');
    expect(thrown(() => lab.attentionBackward(Q, K, V, [[1], [2], [3]], { mask: [[1, 1]] })).message).toContain('mask is 1×2 but the scores are 3×2');
    expect(thrown(() => lab.attentionBackward(Q, K, V, [[1], [NaN], [3]])).code).toBe(AttentionError.codes.NON_FINITE);
    expect(thrown(() => lab.attentionBackward(Q, K, V, [[1], [2], [3]], { scale: 1e300 })).code).toBe(AttentionError.codes.INVALID_ARGUMENT);
    expect(thrown(() => lab.attentionBackward(Q, K, V, [[3e38], [3e38], [3e38]])).code).toBe(AttentionError.codes.OVERFLOW);
    // and the module still works
    expect(lab.attentionBackward(Q, K, V, [[1], [0], [0]]).dQ.rows).toBe(3);
  });

  it('returns copies: a later call does not change an earlier result', () => {
    const { Q, K, V, dO } = inputs(11, 5, 6, 4, 3);
    const first = lab.attentionBackward(Q, K, V, dO);
    const saved = first.dQ.data.slice();
    lab.attentionBackward(inputs(12, 5, 6, 4, 3).Q, K, V, dO);
    expect(first.dQ.data).toEqual(saved);
  });
});
