// Single-head self-attention and multi-head attention against the float64
// reference on both builds.
import { beforeAll, describe, expect, it } from 'vitest';

import { BUILDS, SIZES, expectClose, expectIdentical, loadLab, randomMatrix, ref, rng, toNested } from './helpers.js';
import * as R from './reference.js';

const refWeights = (w) => Object.fromEntries(Object.entries(w).map(([k, v]) => [k, typeof v === 'object' && v.data ? ref(v) : v]));

describe.each(BUILDS)('selfAttention ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  it.each(SIZES)('n = d_model = d_k = d_v = %i matches the reference', (s) => {
    const rand = rng(3000 + s);
    const X = randomMatrix(rand, s, s);
    const w = { Wq: randomMatrix(rand, s, s), Wk: randomMatrix(rand, s, s), Wv: randomMatrix(rand, s, s) };
    const want = R.selfAttention(ref(X), refWeights(w));
    const got = lab.selfAttention(X, w);
    expectClose(got.weights, want.weights, { label: 'weights' });
    expectClose(got.output, want.output, { label: 'output' });
    expect(got.steps).toBeUndefined();
  });

  const shapes = [
    [1, 5, 3, 4],
    [3, 8, 17, 1],
    [5, 17, 4, 8],
    [17, 4, 64, 5],
    [64, 3, 8, 17],
    [65, 65, 5, 3],
  ];
  it.each(shapes)('n=%i, d_model=%i, d_k=%i, d_v=%i matches the reference', (n, dm, dk, dv) => {
    const rand = rng(n * 1e6 + dm * 1e4 + dk * 100 + dv);
    const X = randomMatrix(rand, n, dm);
    const w = { Wq: randomMatrix(rand, dm, dk), Wk: randomMatrix(rand, dm, dk), Wv: randomMatrix(rand, dm, dv) };
    const want = R.selfAttention(ref(X), refWeights(w));
    const got = lab.selfAttention(X, w);
    expect([got.weights.rows, got.weights.cols, got.output.rows, got.output.cols]).toEqual([n, n, n, dv]);
    expectClose(got.weights, want.weights, { label: 'weights' });
    expectClose(got.output, want.output, { label: 'output' });
  });

  it('equals scaled dot-product attention of XW_Q, XW_K, XW_V', () => {
    const rand = rng(41);
    const X = randomMatrix(rand, 7, 6);
    const w = { Wq: randomMatrix(rand, 6, 4), Wk: randomMatrix(rand, 6, 4), Wv: randomMatrix(rand, 6, 3) };
    const got = lab.selfAttention(X, { ...w, mask: 'causal' });
    const viaParts = lab.scaledDotProductAttention(lab.matmul(X, w.Wq), lab.matmul(X, w.Wk), lab.matmul(X, w.Wv), { mask: 'causal' });
    expectClose(got.output, R.fromMatrix(viaParts.output), { atol: 1e-6, rtol: 1e-5 });
    expectClose(got.weights, R.fromMatrix(viaParts.weights), { atol: 1e-6, rtol: 1e-5 });
  });

  it('is permutation-equivariant without a mask', () => {
    const rand = rng(42);
    const X = randomMatrix(rand, 6, 5);
    const w = { Wq: randomMatrix(rand, 5, 4), Wk: randomMatrix(rand, 5, 4), Wv: randomMatrix(rand, 5, 3) };
    const perm = [3, 0, 5, 1, 4, 2];
    const nested = toNested(X);
    const Xp = perm.map((i) => nested[i]);
    const out = R.fromMatrix(lab.selfAttention(X, w).output);
    expectClose(lab.selfAttention(Xp, w).output, perm.map((i) => out[i]), { atol: 1e-6, rtol: 1e-5 });
  });

  it('gives identical results for nested arrays and Float32Array inputs', () => {
    const rand = rng(43);
    const X = randomMatrix(rand, 9, 8);
    const w = { Wq: randomMatrix(rand, 8, 4), Wk: randomMatrix(rand, 8, 4), Wv: randomMatrix(rand, 8, 5) };
    const a = lab.selfAttention(X, w);
    const b = lab.selfAttention(toNested(X), { Wq: toNested(w.Wq), Wk: toNested(w.Wk), Wv: toNested(w.Wv) });
    expectIdentical(a.weights, b.weights, 'weights');
    expectIdentical(a.output, b.output, 'output');
  });
});

describe.each(BUILDS)('multiHeadAttention ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  function inputs(rand, n, dm, heads, dk, dv, dout) {
    return {
      X: randomMatrix(rand, n, dm),
      w: {
        heads,
        Wq: randomMatrix(rand, dm, heads * dk),
        Wk: randomMatrix(rand, dm, heads * dk),
        Wv: randomMatrix(rand, dm, heads * dv),
        Wo: randomMatrix(rand, heads * dv, dout),
      },
    };
  }

  function expectMatches(got, want, heads) {
    // output = concat·W_O: its error follows the row's magnitude (FMA: one entry 2.2e-5 off in a row of 45s)
    expectClose(got.output, want.output, { label: 'output', rowScale: true });
    expectClose(got.concat, want.concat, { label: 'concat' });
    expect(got.heads).toHaveLength(heads);
    for (let h = 0; h < heads; h++) {
      expectClose(got.heads[h].weights, want.heads[h].weights, { label: `head ${h} weights` });
      expectClose(got.heads[h].output, want.heads[h].output, { label: `head ${h} output` });
    }
  }

  it.each(SIZES)('n = d_model = %i with 1 head of width %i matches the reference', (s) => {
    const { X, w } = inputs(rng(4000 + s), s, s, 1, s, s, s);
    expectMatches(lab.multiHeadAttention(X, w), R.multiHead(ref(X), refWeights(w)), 1);
  });

  const shapes = [
    // n, d_model, heads, d_k, d_v, d_out
    [1, 4, 2, 2, 2, 4],
    [3, 8, 4, 2, 3, 8],
    [4, 5, 3, 1, 4, 5],
    [5, 17, 2, 4, 8, 3],
    [8, 16, 8, 2, 2, 16],
    [17, 12, 3, 4, 4, 12],
    [64, 8, 2, 4, 4, 8],
    [65, 6, 5, 3, 1, 7],
  ];
  it.each(shapes)('n=%i, d_model=%i, heads=%i, d_k=%i, d_v=%i, d_out=%i matches the reference', (n, dm, heads, dk, dv, dout) => {
    const { X, w } = inputs(rng(n * 1e5 + dm * 1e3 + heads * 100 + dk * 10 + dv), n, dm, heads, dk, dv, dout);
    const got = lab.multiHeadAttention(X, w);
    expect([got.output.rows, got.output.cols, got.concat.rows, got.concat.cols]).toEqual([n, dout, n, heads * dv]);
    expectMatches(got, R.multiHead(ref(X), refWeights(w)), heads);
    expect(got.steps).toBeUndefined();
    for (const head of got.heads) expect(head.steps).toBeUndefined();
  });

  it('with one head equals selfAttention followed by W_O', () => {
    const { X, w } = inputs(rng(51), 7, 6, 1, 4, 3, 5);
    const single = lab.selfAttention(X, { Wq: w.Wq, Wk: w.Wk, Wv: w.Wv, mask: 'causal' });
    const multi = lab.multiHeadAttention(X, { ...w, mask: 'causal' });
    expectClose(multi.heads[0].weights, R.fromMatrix(single.weights), { atol: 1e-6, rtol: 1e-5 });
    expectClose(multi.concat, R.fromMatrix(single.output), { atol: 1e-6, rtol: 1e-5 });
    expectClose(multi.output, R.matmul(R.fromMatrix(single.output), ref(w.Wo)));
  });

  it('each head output is its block of concat', () => {
    const { X, w } = inputs(rng(52), 5, 8, 4, 2, 3, 6);
    const got = lab.multiHeadAttention(X, w);
    const concat = R.fromMatrix(got.concat);
    got.heads.forEach((head, h) => expectClose(head.output, R.columns(concat, h * 3, 3), { atol: 0, rtol: 0 }));
  });

  it('gives identical results for nested arrays and Float32Array inputs', () => {
    const { X, w } = inputs(rng(53), 9, 8, 2, 4, 4, 8);
    const a = lab.multiHeadAttention(X, w);
    const b = lab.multiHeadAttention(toNested(X), { heads: 2, Wq: toNested(w.Wq), Wk: toNested(w.Wk), Wv: toNested(w.Wv), Wo: toNested(w.Wo) });
    expectIdentical(a.output, b.output, 'output');
    expectIdentical(a.concat, b.concat, 'concat');
    a.heads.forEach((head, h) => expectIdentical(head.weights, b.heads[h].weights, `head ${h}`));
  });
});
