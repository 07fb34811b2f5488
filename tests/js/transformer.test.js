// The Transformer encoder block on both builds against the float64 reference:
// every traced step, every mask kind, defaults for the biases and the layer
// norms' γ and β, LayerNorm's row statistics, permutation equivariance, and
// the shape errors that name the offending matrices.
import { beforeAll, describe, expect, it } from 'vitest';

import { AttentionError } from '../../dist/node.js';
import { BUILDS, expectClose, loadLab, randomMatrix, randomVector, ref, rng, thrown } from './helpers.js';
import * as R from './reference.js';

const refWeights = (w) => Object.fromEntries(Object.entries(w).map(([k, v]) => [k, typeof v === 'object' && v.data ? ref(v) : v]));
const TOL = { atol: 1e-4, rtol: 1e-4 };

function block(rand, n, dModel, heads, dk, dFf, { biases = true } = {}) {
  const a = 1 / Math.sqrt(dModel);
  const w = {
    heads,
    Wq: randomMatrix(rand, dModel, heads * dk, -a, a),
    Wk: randomMatrix(rand, dModel, heads * dk, -a, a),
    Wv: randomMatrix(rand, dModel, heads * dk, -a, a),
    Wo: randomMatrix(rand, heads * dk, dModel, -a, a),
    W1: randomMatrix(rand, dModel, dFf, -a, a),
    W2: randomMatrix(rand, dFf, dModel, -a, a),
  };
  if (biases)
    Object.assign(w, {
      b1: randomVector(rand, dFf, -0.5, 0.5), b2: randomVector(rand, dModel, -0.5, 0.5),
      gamma1: randomVector(rand, dModel, 0.5, 1.5), beta1: randomVector(rand, dModel, -0.5, 0.5),
      gamma2: randomVector(rand, dModel, 0.5, 1.5), beta2: randomVector(rand, dModel, -0.5, 0.5),
    });
  return { X: randomMatrix(rand, n, dModel, -2, 2), w };
}

describe.each(BUILDS)('transformerBlock ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  const cases = [
    [1, 4, 1, 4, 8, undefined], [5, 8, 2, 4, 16, 'causal'], [6, 8, 4, 2, 32, { validLens: [0, 1, 2, 3, 6, 6] }], [17, 16, 2, 8, 64, undefined], [32, 64, 4, 16, 128, 'causal'],
  ];
  it.each(cases)('n=%i, d_model=%i, %i heads of %i, d_ff=%i, mask %j: every step matches the reference', (n, dModel, heads, dk, dFf, mask) => {
    const { X, w } = block(rng(n * 100 + dModel), n, dModel, heads, dk, dFf);
    const got = lab.transformerBlock(X, { ...w, mask, trace: true });
    const want = R.transformerBlock(ref(X), { ...refWeights(w), mask });
    const byId = Object.fromEntries(got.steps.map((s) => [s.id, s.matrix]));
    expect(got.steps.map((s) => s.id)).toEqual(['Q', 'K', 'V', 'concat', 'attention', 'residual1', 'norm1', 'hidden', 'ffn', 'residual2', 'output']);
    expectClose(byId.attention, want.attention.output, { ...TOL, label: 'attention' });
    expectClose(byId.residual1, want.sum1, { ...TOL, label: 'X + A' });
    expectClose(byId.norm1, want.norm1, { ...TOL, label: 'norm1' });
    expectClose(byId.hidden, want.hidden, { ...TOL, label: 'hidden' });
    expectClose(byId.ffn, want.ffn, { ...TOL, label: 'ffn' });
    expectClose(byId.residual2, want.sum2, { ...TOL, label: 'Y + F' });
    expectClose(got.output, want.output, { ...TOL, label: 'output' });
    expect(got.heads).toHaveLength(heads);
    expectClose(byId.Q, want.attention.Q, { ...TOL, label: 'Q' });
    expectClose(byId.K, want.attention.K, { ...TOL, label: 'K' });
    expectClose(byId.V, want.attention.V, { ...TOL, label: 'V' });
    expectClose(byId.concat, want.attention.concat, { ...TOL, label: 'concat' });
    got.heads.forEach((head, h) => {
      const r = want.attention.heads[h];
      expectClose(head.weights, r.weights, { ...TOL, label: `head ${h} weights` });
      expectClose(head.output, r.output, { ...TOL, label: `head ${h} output` });
      expectClose(head.Q, r.Q, { ...TOL, label: `head ${h} Q` });
      expectClose(head.K, r.K, { ...TOL, label: `head ${h} K` });
      expectClose(head.V, r.V, { ...TOL, label: `head ${h} V` });
    });
    for (const s of got.steps) expect(s.formula.length, s.id).toBeGreaterThan(0);
  });

  it('defaults to zero biases, γ = 1 and β = 0: output rows have mean 0 and variance ≈ 1', () => {
    const { X, w } = block(rng(7), 9, 16, 2, 8, 32, { biases: false });
    const got = lab.transformerBlock(X, w);
    expectClose(got.output, R.transformerBlock(ref(X), refWeights(w)).output, TOL);
    expect(got.steps).toBeUndefined();
    for (const row of R.fromMatrix(got.output)) {
      const mean = row.reduce((s, v) => s + v, 0) / row.length;
      const variance = row.reduce((s, v) => s + (v - mean) ** 2, 0) / row.length;
      expect(Math.abs(mean)).toBeLessThan(1e-6);
      expect(Math.abs(variance - 1)).toBeLessThan(1e-3);
    }
  });

  it('is permutation equivariant without a mask (it needs positional encoding to see order)', () => {
    const { X, w } = block(rng(8), 7, 8, 2, 4, 16);
    const order = [2, 0, 6, 1, 5, 3, 4];
    const rows = R.fromMatrix(X);
    const out = R.fromMatrix(lab.transformerBlock(X, w).output);
    expectClose(lab.transformerBlock(order.map((i) => rows[i]), w).output, order.map((i) => out[i]), { atol: 1e-5, rtol: 1e-5 });
  });

  it('names the offending shapes', () => {
    const { X, w } = block(rng(9), 4, 8, 2, 4, 16);
    const cases = [
      [{ Wo: randomMatrix(rng(1), 8, 6) }, ['Wo', '8×6', 'd_model']],
      [{ W2: randomMatrix(rng(1), 16, 5) }, ['W2', '16×5', 'd_model']],
      [{ W2: randomMatrix(rng(1), 12, 8) }, ['W1', '8×16', 'W2', '12×8', 'd_ff']],
      [{ W1: randomMatrix(rng(1), 7, 16) }, ['W1', '7×16', 'd_model']],
      [{ b1: new Float32Array(3) }, ['b1', '3', 'd_ff (W1.cols) = 16']],
      [{ gamma2: [1, 2] }, ['gamma2', '2', 'd_model (X.cols) = 8']],
    ];
    for (const [change, parts] of cases) {
      const error = thrown(() => lab.transformerBlock(X, { ...w, ...change }));
      expect(error).toBeInstanceOf(AttentionError);
      expect(error.code).toBe('SHAPE_MISMATCH');
      expect(error.message.startsWith('transformerBlock: ')).toBe(true);
      for (const part of parts) expect(error.message).toContain(part);
    }
    for (const epsilon of [0, -1, 1e-50]) expect(thrown(() => lab.transformerBlock(X, { ...w, epsilon })).code).toBe('INVALID_ARGUMENT');
    expect(thrown(() => lab.transformerBlock(X, { ...w, epsilon: NaN })).code).toBe('NON_FINITE');
    expect(thrown(() => lab.transformerBlock(X, { ...w, W1: undefined })).message).toContain('W1');
    expect(thrown(() => lab.transformerBlock(X, { ...w, dropout: 0.1 })).message).toContain('unknown option dropout;');
    // still working
    expectClose(lab.transformerBlock(X, w).output, R.transformerBlock(ref(X), refWeights(w)).output, TOL);
  });

  it('handles zero tokens', () => {
    const { w } = block(rng(10), 1, 8, 2, 4, 16);
    expect(lab.transformerBlock({ rows: 0, cols: 8, data: new Float32Array(0) }, w).output).toMatchObject({ rows: 0, cols: 8 });
  });
});
