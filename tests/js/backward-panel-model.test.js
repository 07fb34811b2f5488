// The DOM-free part of <attention-backward> (web/src/components/backward/backward-model.js): the
// loss and its dO against float64, the head slices, the factor parsing, the sizes of dS, and the
// whole pass (library calls in order) against a float64 forward and backward of the same head;
// at large factors the softmax saturates and ‖dS‖ falls toward 0.
import { describe, expect, it } from 'vitest';

import { buildModel, normalise } from '../../web/src/model.js';
import { SCALE_FACTORS, STEP_KEYS, WEIGHT_OF, backwardPass, columns, headInputs, meanRowMax, outputGradient, parseFactor, saturationSweep, sizeOf, targetFor } from '../../web/src/components/backward/backward-model.js';
import { DETERMINISTIC_BUILDS, expectClose, loadTrainingLab, ref } from './helpers.js';
import * as R from './reference.js';

const mat = (rows) => ({ rows: rows.length, cols: rows[0].length, data: Float32Array.from(rows.flat()) });

// ---- float64: O, P of softmax(mask(QKᵀ·s))V; L = ½‖O − T‖², dO = O − T; the backward's dP, dS, dQ, dK, dV.
function reference(Q, K, V, T, { mask, scale }) {
  const { weights: P, output: O } = R.scaledDotProduct(Q, K, V, { mask, scale });
  const dO = O.map((row, i) => row.map((o, j) => o - T[i][j]));
  const dP = R.matmul(dO, R.transpose(V));
  const dS = P.map((row, i) => {
    const D = row.reduce((sum, p, j) => sum + p * dP[i][j], 0);
    return row.map((p, j) => p * (dP[i][j] - D));
  });
  const times = (A, x) => A.map((row) => row.map((y) => y * x));
  const loss = dO.flat().reduce((sum, x) => sum + x * x, 0) / 2;
  return { P, O, dO, loss, dP, dS, dV: R.matmul(R.transpose(P), dO), dQ: times(R.matmul(dS, K), scale), dK: times(R.matmul(R.transpose(dS), Q), scale) };
}

describe('the loss and its upstream gradient', () => {
  it('dO = O − T entry by entry (the float32 nearest the exact difference) and L = ½‖O − T‖² in double', () => {
    const O = mat([[1.5, -2], [0.1, 3e-8]]);
    const T = mat([[0.5, 1], [0.3, -1e-8]]);
    const { dO, loss } = outputGradient(O, T);
    const exact = [...O.data].map((o, k) => o - T.data[k]);
    expect([...dO.data]).toEqual(exact.map(Math.fround));
    expect(dO.rows).toBe(2);
    expect(dO.cols).toBe(2);
    expect(loss).toBeCloseTo(exact.reduce((s, x) => s + x * x, 0) / 2, 12);
  });

  it('refuses O and T of different shapes, naming both', () => {
    expect(() => outputGradient(mat([[1, 2]]), mat([[1], [2]]))).toThrow('O is 1×2 but T is 2×1');
  });

  it('the target is seeded: the same seed the same T, another seed another', () => {
    expect([...targetFor(3, 4, 7).data]).toEqual([...targetFor(3, 4, 7).data]);
    expect([...targetFor(3, 4, 7).data]).not.toEqual([...targetFor(3, 4, 8).data]);
    expect(targetFor(3, 4, 7).data.every(Number.isFinite)).toBe(true);
  });
});

describe('small parts', () => {
  it('columns: a head slice, row by row; out of range refused', () => {
    const W = mat([[1, 2, 3, 4], [5, 6, 7, 8]]);
    expect(columns(W, 2, 2)).toEqual(mat([[3, 4], [7, 8]]));
    expect(() => columns(W, 3, 2)).toThrow('outside a 2×4 matrix');
  });

  it('parseFactor: listed factors kept, others the nearest on a log scale, junk the default 1', () => {
    for (const c of SCALE_FACTORS) expect(parseFactor(String(c))).toBe(c);
    expect(parseFactor('3')).toBe(4); // |log 3/2| = 0.405 > |log 4/3| = 0.288
    expect(parseFactor('1000')).toBe(128);
    expect(parseFactor('0.01')).toBe(0.25);
    for (const bad of [null, '', 'abc', '-2', '0', 'Infinity']) expect(parseFactor(bad)).toBe(1);
  });

  it('sizeOf: Frobenius norm and largest magnitude; meanRowMax of weights', () => {
    expect(sizeOf(mat([[3, -4], [0, 0]]))).toEqual({ norm: 5, maxAbs: 4 });
    expect(meanRowMax(mat([[0.5, 0.5], [1, 0]]))).toBe(0.75);
  });
});

describe.each(DETERMINISTIC_BUILDS)('the pass on the $name build', ({ simd }) => {
  const cases = [
    { label: 'no mask, one head', settings: {} },
    { label: 'causal, head 2 of 2', settings: { mask: 'causal', heads: '2', dK: '4' }, head: 1 },
    { label: 'padding', settings: { mask: 'padding', validLen: '2', sentence: 'a b c d e' } },
  ];
  it.each(cases)('every step against float64 at c = 1 and c = 8 ($label)', async ({ settings, head = 0 }) => {
    const lab = await loadTrainingLab(simd);
    const model = buildModel(normalise(settings));
    const { Q, K, V, head: used } = headInputs(lab, model, head);
    expect(used).toBe(head);
    const dK = model.config.dK;
    expectClose(Q, R.matmul(ref(model.X), ref(columns(model.Wq, head * dK, dK))), { label: 'Q' });
    const T = targetFor(model.n, V.cols, model.config.seed);
    for (const factor of [1, 8]) {
      const pass = backwardPass(lab, { Q, K, V, mask: model.mask, T }, factor);
      expect(pass.steps.map((s) => s.key)).toEqual(STEP_KEYS);
      const e = reference(ref(Q), ref(K), ref(V), ref(T), { mask: model.mask, scale: factor / Math.sqrt(dK) });
      const step = Object.fromEntries(pass.steps.map((s) => [s.key, s.matrix]));
      for (const key of ['P', 'O', 'dO', 'dV', 'dP', 'dS', 'dQ', 'dK']) expectClose(step[key], e[key], { label: `${key} at c = ${factor}` });
      expect(pass.loss).toBeCloseTo(e.loss, 3);
      expect(pass.scale).toBeCloseTo(factor / Math.sqrt(dK), 7);
      const norm = Math.sqrt(e.dS.flat().reduce((s, x) => s + x * x, 0));
      expect(pass.dS.norm).toBeCloseTo(norm, 4);
      // Every row of dS sums to 0 (the softmax's Jacobian).
      for (const row of R.fromMatrix(step.dS)) expect(Math.abs(row.reduce((s, x) => s + x, 0))).toBeLessThan(1e-5);
    }
  });

  it('the weight gradients: dW_Q = Xᵀ dQ, dW_K = Xᵀ dK, dW_V = Xᵀ dV, and they are what changes the loss', async () => {
    const lab = await loadTrainingLab(simd);
    const model = buildModel(normalise({ mask: 'causal', heads: '2', dK: '4' }));
    const { Q, K, V } = headInputs(lab, model, 1);
    const T = targetFor(model.n, V.cols, model.config.seed);
    const pass = backwardPass(lab, { Q, K, V, X: model.X, mask: model.mask, T }, 1);
    const X = ref(model.X);
    const grads = {};
    for (const s of pass.steps) {
      if (!WEIGHT_OF[s.key]) {
        expect(s.weightGrad, s.key).toBeUndefined();
        continue;
      }
      expect([s.weightGrad.rows, s.weightGrad.cols]).toEqual([model.config.dModel, 4]);
      expectClose(s.weightGrad, R.matmul(R.transpose(X), ref(s.matrix)), { label: `dW_${WEIGHT_OF[s.key]}` });
      grads[WEIGHT_OF[s.key]] = s.weightGrad;
    }
    // A finite difference in one entry of the head's W_K agrees with dW_K there (float64 forward).
    const loss = (Wk) => {
      const Kh = R.matmul(X, Wk);
      const { output } = R.scaledDotProduct(ref(Q), Kh, ref(V), { mask: model.mask, scale: 1 / 2 });
      return output.flat().reduce((a, o, k) => a + (o - T.data[k]) ** 2, 0) / 2;
    };
    const Wk = ref(columns(model.Wk, 4, 4));
    const [r, c, h] = [1, 2, 1e-4];
    const plus = Wk.map((row, i) => row.map((w, j) => (i === r && j === c ? w + h : w)));
    const minus = Wk.map((row, i) => row.map((w, j) => (i === r && j === c ? w - h : w)));
    expect((loss(plus) - loss(minus)) / (2 * h)).toBeCloseTo(grads.K.data[r * 4 + c], 3);
    // Without X no weight gradients are made.
    expect(backwardPass(lab, { Q, K, V, mask: model.mask, T }, 1).steps.some((s) => s.weightGrad)).toBe(false);
  });

  it('a saturated row of dS: each entry has one vanishing factor, P_ij for the small weights, dP_ij − D_i for the large one', async () => {
    const lab = await loadTrainingLab(simd);
    const model = buildModel(normalise({}));
    const { Q, K, V } = headInputs(lab, model, 0);
    const T = targetFor(model.n, V.cols, model.config.seed);
    const pass = backwardPass(lab, { Q, K, V, mask: model.mask, T }, 64);
    const step = Object.fromEntries(pass.steps.map((s) => [s.key, R.fromMatrix(s.matrix)]));
    const i = pass.rows.most.row;
    const [P, dP] = [step.P[i], step.dP[i]];
    const top = P.indexOf(Math.max(...P));
    const D = P.reduce((a, p, j) => a + p * dP[j], 0);
    const spread = Math.max(...dP) - Math.min(...dP);
    expect(P[top]).toBeGreaterThan(0.999);
    // The large weight's second factor vanishes: its dP is the row's weighted average.
    expect(Math.abs(dP[top] - D)).toBeLessThan(1e-2 * spread);
    // The small weights' first factor vanishes, while their second does not.
    for (let j = 0; j < P.length; j++) if (j !== top) expect(P[j]).toBeLessThan(1e-3);
    expect(Math.max(...dP.map((x, j) => (j === top ? 0 : Math.abs(x - D))))).toBeGreaterThan(0.1 * spread);
  });

  it('saturation: at c = 32 the weights are nearly one-hot and ‖dS‖ is under 1% of its value at c = 1', async () => {
    const lab = await loadTrainingLab(simd);
    const model = buildModel(normalise({}));
    const { Q, K, V } = headInputs(lab, model, 0);
    const sweep = saturationSweep(lab, { Q, K, V, mask: model.mask, T: targetFor(model.n, V.cols, model.config.seed) });
    expect(sweep.map((r) => r.factor)).toEqual(SCALE_FACTORS);
    const at = (c) => sweep.find((r) => r.factor === c);
    expect(at(32).saturation).toBeGreaterThan(0.99);
    expect(at(32).norm).toBeLessThan(0.01 * at(1).norm);
    // From c = 4 on, each doubling lowers ‖dS‖ and does not lower the saturation (1 in float32 from c = 64).
    for (let k = SCALE_FACTORS.indexOf(4); k < SCALE_FACTORS.length - 1; k++) {
      expect(sweep[k + 1].norm).toBeLessThan(sweep[k].norm);
      expect(sweep[k + 1].saturation).toBeGreaterThanOrEqual(sweep[k].saturation);
    }
  });
});

describe('saturation with many tokens', () => {
  it('128 tokens: ‖dS‖ first grows from nearly uniform weights, peaks, then falls below half its peak by c = 128', async () => {
    const lab = await loadTrainingLab(true);
    const model = buildModel(normalise({ sentence: Array.from({ length: 128 }, (_, i) => `w${i}`).join(' ') }));
    const { Q, K, V } = headInputs(lab, model, 0);
    const sweep = saturationSweep(lab, { Q, K, V, mask: model.mask, T: targetFor(model.n, V.cols, model.config.seed) });
    const norms = sweep.map((r) => r.norm);
    const peak = norms.indexOf(Math.max(...norms));
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThan(norms.length - 1);
    expect(norms[0]).toBeLessThan(norms[peak] / 2);
    expect(norms.at(-1)).toBeLessThan(norms[peak] / 2);
    expect(sweep.at(-1).saturation).toBeGreaterThan(0.98);
  });
});

describe('rowSaturation', () => {
  it('per row max P and ‖dS row‖; the most and least saturated rows', async () => {
    const { rowSaturation } = await import('../../web/src/components/backward/backward-model.js');
    const r = rowSaturation(mat([[0.5, 0.5], [0.99, 0.01], [0.7, 0.3]]), mat([[3, -4], [0, 0], [1, -1]]));
    expect(r.rows.map((x) => x.norm)).toEqual([5, 0, Math.SQRT2]);
    expect(r.most.row).toBe(1);
    expect(r.least.row).toBe(0);
    expect(r.most.maxP).toBeCloseTo(0.99, 6);
  });
});
