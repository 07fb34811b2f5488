// Property-based tests (fast-check) of the public API against a float64
// reference written here from the definitions: random shapes from 0 to 12
// (zero queries, zero keys and zero widths included), random masks (none,
// causal, valid lengths, 0/1 matrices, with fully masked rows), both builds.
// Fixed seed and a bounded number of runs, so every run checks the same cases.
//
// Properties, for every generated case:
//   - weights and outputs match the float64 reference within atol + rtol·|ref|;
//   - masked weights are exactly 0, a fully masked row (or m = 0) has all-zero
//     weights and an all-zero output, every other row sums to 1;
//   - traced intermediates match the reference too (scores, scaled, masked).
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

import { BUILDS, loadLab } from './helpers.js';

const SEED = 20261129;
const RUNS = 120;
const ATOL = 2e-4;
const RTOL = 2e-3;
const FLOAT32_MAX = 3.4028234663852886e38;

const options = { seed: SEED, numRuns: RUNS, endOnFailure: true };

// ---- arbitraries

const dim = (max = 12) => fc.integer({ min: 0, max });
const value = fc.float({ min: -2, max: 2, noNaN: true });
/** A rows×cols matrix { rows, cols, data: Float32Array }. */
const matrix = (rows, cols) =>
  fc.array(value, { minLength: rows * cols, maxLength: rows * cols }).map((a) => ({ rows, cols, data: Float32Array.from(a) }));
const vector = (n, lo = -2, hi = 2) =>
  fc.array(fc.float({ min: Math.fround(lo), max: Math.fround(hi), noNaN: true }), { minLength: n, maxLength: n }).map((a) => Float32Array.from(a));

/** A mask for n×m scores, with its visibility function; fully masked rows are common. */
const mask = (n, m) =>
  fc.oneof(
    fc.constant({ mask: undefined, visible: () => true }),
    fc.constant({ mask: 'causal', visible: (i, j) => j <= i }),
    fc.array(fc.integer({ min: 0, max: m }), { minLength: n, maxLength: n }).map((lens) => ({
      mask: { validLens: lens },
      visible: (i, j) => j < lens[i],
    })),
    fc
      .tuple(
        fc.array(fc.constantFrom(0, 1, 1), { minLength: n * m, maxLength: n * m }),
        fc.integer({ min: -1, max: Math.max(0, n - 1) }), // a row to hide entirely (-1: none)
      )
      .map(([bits, hidden]) => {
        if (hidden >= 0 && n > 0) bits.fill(0, hidden * m, (hidden + 1) * m);
        return { mask: { rows: n, cols: m, data: Float32Array.from(bits) }, visible: (i, j) => bits[i * m + j] === 1 };
      }),
  );

// ---- float64 reference (on the float32 input values)

const get = (M, i, j) => M.data[i * M.cols + j];
const zeros = (rows, cols) => Array.from({ length: rows }, () => new Array(cols).fill(0));
const toRows = (M) => Array.from({ length: M.rows }, (_, i) => Array.from({ length: M.cols }, (_, j) => get(M, i, j)));

/** A·B for A n×k and B k×cols (cols given: B may have no rows). */
function refMatmul(A, B, cols) {
  const C = zeros(A.length, cols);
  for (let i = 0; i < A.length; i++)
    for (let j = 0; j < cols; j++) {
      let sum = 0;
      for (let t = 0; t < B.length; t++) sum += A[i][t] * B[t][j];
      C[i][j] = sum;
    }
  return C;
}

/** Row-wise softmax over the visible entries; fully masked rows are all 0. */
function refSoftmax(S, visible) {
  return S.map((row, i) => {
    let max = -Infinity;
    row.forEach((s, j) => visible(i, j) && (max = Math.max(max, s)));
    if (max === -Infinity) return row.map(() => 0);
    const e = row.map((s, j) => (visible(i, j) ? Math.exp(s - max) : 0));
    const sum = e.reduce((a, b) => a + b, 0);
    return e.map((x) => x / sum);
  });
}

function refDotScores(Q, K, scale) {
  return Q.map((q) => K.map((k) => scale * q.reduce((sum, x, t) => sum + x * k[t], 0)));
}

function refAttention(scores, V, dv, visible) {
  const weights = refSoftmax(scores, visible);
  const output = weights.map((w) => Array.from({ length: dv }, (_, c) => w.reduce((sum, x, j) => sum + x * V[j][c], 0)));
  return { weights, output };
}

const defaultScale = (d) => (d > 0 ? Math.fround(1 / Math.sqrt(d)) : 1);

// ---- comparisons

function expectClose(label, got, ref) {
  expect(got.rows, `${label}: rows`).toBe(ref.length);
  const cols = ref[0]?.length ?? got.cols;
  expect(got.cols, `${label}: cols`).toBe(cols);
  for (let i = 0; i < got.rows; i++)
    for (let j = 0; j < got.cols; j++) {
      const g = get(got, i, j);
      const r = ref[i][j];
      if (!(Math.abs(g - r) <= ATOL + RTOL * Math.abs(r))) expect.fail(`${label}[${i}][${j}] = ${g}, float64 reference ${r}`);
    }
}

/** Masked weights exactly 0; rows sum to 1, or are all 0 when nothing is visible. */
function expectWeightsLaw(label, W, visible) {
  for (let i = 0; i < W.rows; i++) {
    let sum = 0;
    let any = false;
    for (let j = 0; j < W.cols; j++) {
      const w = get(W, i, j);
      if (!visible(i, j)) {
        if (w !== 0) expect.fail(`${label}[${i}][${j}] = ${w} but the key is masked`);
        continue;
      }
      any = true;
      sum += w;
    }
    if (any && Math.abs(sum - 1) > 1e-5 * Math.max(1, W.cols)) expect.fail(`${label}: row ${i} sums to ${sum}`);
    if (!any && sum !== 0) expect.fail(`${label}: fully masked row ${i} sums to ${sum}`);
  }
}

function expectZeroRowsWhereHidden(label, O, W, visible) {
  for (let i = 0; i < O.rows; i++) {
    let any = false;
    for (let j = 0; j < W.cols; j++) any ||= visible(i, j);
    if (!any) for (let c = 0; c < O.cols; c++) if (get(O, i, c) !== 0) expect.fail(`${label}[${i}][${c}] = ${get(O, i, c)} for a fully masked row`);
  }
}

const stepOf = (steps, id) => steps.find((s) => s.id === id)?.matrix;

describe.each(BUILDS)('properties against float64 ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
    expect([lab.simd, lab.fma]).toEqual([Boolean(simd), simd === 'fma']);
  });

  it('matmul', () => {
    const arb = fc.tuple(dim(), dim(), dim()).chain(([n, k, m]) => fc.tuple(matrix(n, k), matrix(k, m)));
    fc.assert(
      fc.property(arb, ([A, B]) => {
        expectClose('C', lab.matmul(A, B), refMatmul(toRows(A), toRows(B), B.cols));
      }),
      options,
    );
  });

  it('softmax with masks', () => {
    const arb = fc.tuple(dim(), dim()).chain(([n, m]) => fc.tuple(matrix(n, m), mask(n, m)));
    fc.assert(
      fc.property(arb, ([S, { mask: M, visible }]) => {
        const W = lab.softmax(S, { mask: M });
        expectWeightsLaw('W', W, visible);
        expectClose('W', W, refSoftmax(toRows(S), visible));
      }),
      options,
    );
  });

  it('scaled dot-product attention: weights, output and trace', () => {
    const arb = fc
      .tuple(dim(), dim(), dim(), dim())
      .chain(([n, m, d, dv]) =>
        fc.tuple(matrix(n, d), matrix(m, d), matrix(m, dv), mask(n, m), fc.option(fc.float({ min: Math.fround(0.05), max: 2, noNaN: true })), fc.boolean()),
      );
    fc.assert(
      fc.property(arb, ([Q, K, V, { mask: M, visible }, scaleOption, trace]) => {
        const opts = { mask: M, trace, ...(scaleOption === null ? {} : { scale: scaleOption }) };
        const result = lab.scaledDotProductAttention(Q, K, V, opts);
        const scale = scaleOption === null ? defaultScale(Q.cols) : Math.fround(scaleOption);
        const scores = refDotScores(toRows(Q), toRows(K), 1);
        const scaled = scores.map((row) => row.map((s) => s * scale));
        const ref = refAttention(scaled, toRows(V), V.cols, visible);
        expectWeightsLaw('weights', result.weights, visible);
        expectClose('weights', result.weights, ref.weights);
        expectClose('output', result.output, ref.output);
        expectZeroRowsWhereHidden('output', result.output, result.weights, visible);
        if (trace) {
          expectClose('scores', stepOf(result.steps, 'scores'), scores);
          expectClose('scaled', stepOf(result.steps, 'scaled'), scaled);
          const masked = stepOf(result.steps, 'masked');
          expect(Boolean(masked)).toBe(M !== undefined);
          if (masked)
            for (let i = 0; i < masked.rows; i++)
              for (let j = 0; j < masked.cols; j++)
                if (!visible(i, j) && get(masked, i, j) !== -FLOAT32_MAX) expect.fail(`masked[${i}][${j}] = ${get(masked, i, j)}, not -FLT_MAX`);
        } else {
          // The fused path (no weights matrix) computes the same output.
          const fused = lab.scaledDotProductAttention(Q, K, V, { ...opts, trace: false, weights: false });
          expectClose('fused output', fused.output, ref.output);
        }
      }),
      options,
    );
  });

  it('additive attention', () => {
    const arb = fc
      .tuple(dim(), dim(), dim(), dim(), dim(), dim())
      .chain(([n, m, dq, dk, dv, h]) =>
        fc.tuple(matrix(n, dq), matrix(m, dk), matrix(m, dv), matrix(dq, h), matrix(dk, h), vector(h), mask(n, m)),
      );
    fc.assert(
      fc.property(arb, ([Q, K, V, Wq, Wk, wv, { mask: M, visible }]) => {
        const result = lab.additiveAttention(Q, K, V, { Wq, Wk, wv, mask: M });
        const qh = refMatmul(toRows(Q), toRows(Wq), Wq.cols);
        const kh = refMatmul(toRows(K), toRows(Wk), Wk.cols);
        const scores = qh.map((q) => kh.map((k) => Array.from(wv).reduce((sum, w, t) => sum + w * Math.tanh(q[t] + k[t]), 0)));
        const ref = refAttention(scores, toRows(V), V.cols, visible);
        expectWeightsLaw('weights', result.weights, visible);
        expectClose('weights', result.weights, ref.weights);
        expectClose('output', result.output, ref.output);
      }),
      options,
    );
  });

  it('self-attention', () => {
    const arb = fc
      .tuple(dim(), dim(), dim(), dim())
      .chain(([n, dModel, dk, dv]) => fc.tuple(matrix(n, dModel), matrix(dModel, dk), matrix(dModel, dk), matrix(dModel, dv), mask(n, n)));
    fc.assert(
      fc.property(arb, ([X, Wq, Wk, Wv, { mask: M, visible }]) => {
        const result = lab.selfAttention(X, { Wq, Wk, Wv, mask: M });
        const x = toRows(X);
        const scores = refDotScores(refMatmul(x, toRows(Wq), Wq.cols), refMatmul(x, toRows(Wk), Wk.cols), defaultScale(Wq.cols));
        const ref = refAttention(scores, refMatmul(x, toRows(Wv), Wv.cols), Wv.cols, visible);
        expectWeightsLaw('weights', result.weights, visible);
        expectClose('weights', result.weights, ref.weights);
        expectClose('output', result.output, ref.output);
      }),
      options,
    );
  });

  it('multi-head attention (and the packed layer)', () => {
    const arb = fc
      .tuple(dim(), dim(), fc.integer({ min: 1, max: 3 }), dim(4), dim(4), dim())
      .chain(([n, dModel, heads, dk, dv, dOut]) =>
        fc.tuple(
          fc.constant(heads),
          matrix(n, dModel),
          matrix(dModel, heads * dk),
          matrix(dModel, heads * dk),
          matrix(dModel, heads * dv),
          matrix(heads * dv, dOut),
          mask(n, n),
        ),
      );
    fc.assert(
      fc.property(arb, ([heads, X, Wq, Wk, Wv, Wo, { mask: M, visible }]) => {
        const result = lab.multiHeadAttention(X, { heads, Wq, Wk, Wv, Wo, mask: M });
        const x = toRows(X);
        const [q, k, v] = [Wq, Wk, Wv].map((W) => refMatmul(x, toRows(W), W.cols));
        const [dk, dv] = [Wq.cols / heads, Wv.cols / heads];
        const concat = zeros(X.rows, Wv.cols);
        for (let h = 0; h < heads; h++) {
          const slice = (m, w) => m.map((row) => row.slice(h * w, (h + 1) * w));
          const ref = refAttention(refDotScores(slice(q, dk), slice(k, dk), defaultScale(dk)), slice(v, dv), dv, visible);
          expectWeightsLaw(`head ${h} weights`, result.heads[h].weights, visible);
          expectClose(`head ${h} weights`, result.heads[h].weights, ref.weights);
          ref.output.forEach((row, i) => row.forEach((o, c) => (concat[i][h * dv + c] = o)));
        }
        expectClose('concat', result.concat, concat);
        const output = refMatmul(concat, toRows(Wo), Wo.cols);
        expectClose('output', result.output, output);
        const layer = lab.createMultiHeadAttention({ heads, Wq, Wk, Wv, Wo });
        try {
          const fast = layer.forward(X, { mask: M });
          expectClose('layer output', fast.output, output);
          expectClose('layer concat', fast.concat, concat);
        } finally {
          layer.dispose();
        }
      }),
      options,
    );
  });

  it('Nadaraya-Watson regression with every kernel', () => {
    const arb = fc
      .tuple(dim(), dim())
      .chain(([m, n]) =>
        fc.tuple(
          vector(m, -5, 5),
          vector(m),
          vector(n, -6, 6),
          fc.constantFrom('gaussian', 'boxcar', 'epanechnikov', 'constant'),
          fc.float({ min: Math.fround(0.1), max: 3, noNaN: true }),
        ),
      );
    fc.assert(
      fc.property(arb, ([xTrain, yTrain, xQuery, kernel, bandwidth]) => {
        const result = lab.nadarayaWatson(xTrain, yTrain, xQuery, { kernel, bandwidth });
        const h = Math.fround(bandwidth);
        const K = {
          gaussian: (u) => -0.5 * u * u, // a log-weight: normalised by softmax below
          boxcar: (u) => (Math.abs(u) <= 1 ? 1 : 0),
          epanechnikov: (u) => (Math.abs(u) <= 1 ? 0.75 * (1 - u * u) : 0),
          constant: () => 1,
        }[kernel];
        const weights = Array.from(xQuery, (x) => {
          const raw = Array.from(xTrain, (xi) => K((x - xi) / h));
          if (kernel === 'gaussian') return refSoftmax([raw], () => true)[0];
          const sum = raw.reduce((a, b) => a + b, 0);
          return raw.map((w) => (sum > 0 ? w / sum : 0));
        });
        expectClose('weights', result.weights, weights.length ? weights : []);
        const predictions = weights.map((w) => w.reduce((sum, x, j) => sum + x * yTrain[j], 0));
        expect(result.predictions.length).toBe(xQuery.length);
        predictions.forEach((p, i) => {
          if (!(Math.abs(result.predictions[i] - p) <= ATOL + RTOL * Math.abs(p))) expect.fail(`prediction ${i} = ${result.predictions[i]}, float64 reference ${p}`);
        });
        // Rows sum to 1, or 0 when a compact kernel's window holds no training point.
        for (let i = 0; i < result.weights.rows; i++) {
          let sum = 0;
          for (let j = 0; j < result.weights.cols; j++) sum += get(result.weights, i, j);
          if (!(Math.abs(sum - 1) < 1e-5 * Math.max(1, xTrain.length) || sum === 0)) expect.fail(`weights row ${i} sums to ${sum}`);
        }
      }),
      options,
    );
  });
});

// Found by the fuzzers (tests/fuzz/regressions/*/projection-overflow-*, additive/overflow-hidden-*):
// finite inputs inside the score bound whose projections overflow float32 give NaN scores, and the
// softmax took an all-NaN row for a fully masked one: finite, wrong results that no OVERFLOW error
// reported. Fixed (the JS layer bounds each projection; the core turns a row with a non-finite
// visible score into NaN, which the result check reports). The property: such a call throws
// OVERFLOW or returns the right answer.
describe.each(BUILDS)('overflowing projections ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });
  const overflowOr = (call, check) => {
    let result;
    try {
      result = call();
    } catch (error) {
      expect(error.code).toBe('OVERFLOW');
      return;
    }
    check(result);
  };

  it('selfAttention: Q = XW_Q overflows (true weights are uniform)', () => {
    overflowOr(
      () => lab.selfAttention([[2], [1]], { Wq: [[FLOAT32_MAX]], Wk: [[0]], Wv: [[1]] }),
      (r) => expect(Array.from(r.weights.data)).toEqual([0.5, 0.5, 0.5, 0.5]),
    );
  });

  it('multiHeadAttention and the packed layer: the same', () => {
    const options = { heads: 1, Wq: [[FLOAT32_MAX]], Wk: [[0]], Wv: [[1]], Wo: [[1]] };
    overflowOr(() => lab.multiHeadAttention([[2], [1]], options), (r) => expect(Array.from(r.output.data)).toEqual([1.5, 1.5]));
    const layer = lab.createMultiHeadAttention(options);
    try {
      overflowOr(() => layer.forward([[2], [1]]), (r) => expect(Array.from(r.output.data)).toEqual([1.5, 1.5]));
    } finally {
      layer.dispose();
    }
  });

  it('additiveAttention: q·W_q and k·W_k overflow with opposite signs (true weights ≈ [0.269, 0.731])', () => {
    overflowOr(
      () => lab.additiveAttention([[3e38]], [[-3e38], [1]], [[1], [2]], { Wq: [[10]], Wk: [[10]], wv: [1] }),
      (r) => {
        expect(r.weights.data[0]).toBeCloseTo(1 / (1 + Math.E), 5);
        expect(r.weights.data[1]).toBeCloseTo(Math.E / (1 + Math.E), 5);
      },
    );
  });
});
