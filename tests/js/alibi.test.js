// ALiBi on both builds: the slopes against the paper (8 heads: 1/2 … 1/256)
// and its reference code for other head counts, the bias against its plain
// definition (offsets of either sign, symmetric or with the future hidden),
// batched attention with that bias against the float64 reference on both
// paths, a decode step with the offset equal to the last row of the full
// sequence, and every bad input refused with an error naming the value.
import { beforeAll, describe, expect, it } from 'vitest';

import { batchedReference } from './batched-reference.js';
import { BUILDS, expectClose, loadLab, randomMatrix, rng, thrown } from './helpers.js';

// get_slopes of the paper's reference code (ofirpress/attention_with_linear_biases), transcribed.
function paperSlopes(n) {
  const powerOf2 = (p) => {
    const start = 2 ** -(2 ** -(Math.log2(p) - 3));
    return Array.from({ length: p }, (_, i) => start * start ** i);
  };
  if (Number.isInteger(Math.log2(n))) return powerOf2(n);
  const closest = 2 ** Math.floor(Math.log2(n));
  return powerOf2(closest).concat(paperSlopes(2 * closest).filter((_, i) => i % 2 === 0).slice(0, n - closest));
}

// −m_h·(i + offset − j), hidden (−∞) past the query's own position unless symmetric.
function referenceBias(heads, queries, keys, offset = 0, symmetric = false) {
  const m = paperSlopes(heads);
  const out = [];
  for (let h = 0; h < heads; h++)
    for (let i = 0; i < queries; i++)
      for (let j = 0; j < keys; j++) {
        const distance = i + offset - j;
        out.push(symmetric || distance >= 0 ? -m[h] * Math.abs(distance) : -Infinity);
      }
  return Float64Array.from(out);
}

describe.each(BUILDS)('alibiSlopes ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  it('gives 8 heads the paper\'s slopes 1/2, 1/4, …, 1/256', () => {
    expect(Array.from(lab.alibiSlopes(8))).toEqual([1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]);
  });

  it('follows the reference code for head counts that are not powers of two', () => {
    // 6: the slopes of 4 heads, then every other slope of 8 (the first two)
    expect(Array.from(lab.alibiSlopes(6))).toEqual([1 / 4, 1 / 16, 1 / 64, 1 / 256, 1 / 2, 1 / 8]);
    // 12: the slopes of 8, then 2^−0.5, 2^−1.5, 2^−2.5, 2^−3.5
    expect(Array.from(lab.alibiSlopes(12))).toEqual([...paperSlopes(8), ...[0.5, 1.5, 2.5, 3.5].map((e) => 2 ** -e)].map(Math.fround));
    for (let heads = 1; heads <= 100; heads++) expectClose(lab.alibiSlopes(heads), paperSlopes(heads), { atol: 0, rtol: 2 ** -24, label: `${heads} heads` });
  });
});

describe.each(BUILDS)('alibiBias ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  it.each([
    [1, 1, 1], [2, 3, 3], [8, 5, 5], [6, 4, 9], [12, 1, 17], [3, 0, 4], [3, 4, 0],
  ])('%i heads, %i queries × %i keys match the definition at every offset, symmetric or not', (heads, queries, keys) => {
    for (const offset of [0, 2, -3, keys - queries])
      for (const symmetric of [false, true]) {
        const bias = lab.alibiBias({ heads, queries, keys, offset, symmetric });
        expect(bias.shape).toEqual([1, heads, queries, keys]);
        expectClose(bias.data, referenceBias(heads, queries, keys, offset, symmetric), { atol: 0, rtol: 2 ** -24, label: `offset ${offset}, symmetric ${symmetric}` });
      }
  });

  it('takes keys = queries and offset 0 by default; the diagonal is +0', () => {
    const bias = lab.alibiBias({ heads: 2, queries: 3 });
    expect(bias.shape).toEqual([1, 2, 3, 3]);
    expect(Array.from(bias.data)).toEqual([0, -Infinity, -Infinity, -1 / 16, 0, -Infinity, -2 / 16, -1 / 16, 0,
      0, -Infinity, -Infinity, -1 / 256, 0, -Infinity, -2 / 256, -1 / 256, 0]);
    expect(Object.is(bias.data[0], 0)).toBe(true);
  });

  it.each([false, true])('as the bias of batchedAttention matches the float64 reference (fused path %s)', (fused) => {
    const [batch, heads, kvHeads, n, m, d, dv] = [2, 4, 2, 5, 8, 6, 3];
    const rand = rng(fused ? 8 : 9);
    const [q, k, v] = [[batch * heads * n, d], [batch * kvHeads * m, d], [batch * kvHeads * m, dv]].map(([r, c]) => randomMatrix(rand, r, c, -2, 2).data);
    for (const [offset, symmetric] of [[m - n, false], [0, false], [1, true]]) {
      const bias = lab.alibiBias({ heads, queries: n, keys: m, offset, symmetric });
      const got = lab.batchedAttention({ shape: [batch, heads, n, d], data: q }, { shape: [batch, kvHeads, m, d], data: k }, { shape: [batch, kvHeads, m, dv], data: v }, { bias, weights: !fused });
      const want = batchedReference({ batch, heads, kvHeads, n, m, d, dv, q, k, v, scale: 1 / Math.sqrt(d), bias: [...bias.data, ...bias.data] });
      expectClose(got.output.data, want.output, { atol: 1e-5, rtol: 1e-4, label: `offset ${offset}, symmetric ${symmetric}` });
      if (!fused) expectClose(got.weights.data, want.weights, { atol: 1e-6, rtol: 1e-5 });
      // ALiBi alone (not symmetric) is causal attention with the offset: the same hidden keys
      if (!symmetric) expect(Array.from(lab.batchedAttention({ shape: [batch, heads, n, d], data: q }, { shape: [batch, kvHeads, m, d], data: k }, { shape: [batch, kvHeads, m, dv], data: v }, { bias, causal: true, causalOffset: offset, weights: !fused }).output.data)).toEqual(Array.from(got.output.data));
    }
  });

  it('for one decode step at offset = past gives the last row of the full sequence', () => {
    const [heads, n, d] = [3, 7, 4];
    const rand = rng(31);
    const [q, k, v] = [heads * n, n, n].map((r) => randomMatrix(rand, r, d).data);
    const full = lab.batchedAttention({ shape: [1, heads, n, d], data: q }, { shape: [1, 1, n, d], data: k }, { shape: [1, 1, n, d], data: v }, { bias: lab.alibiBias({ heads, queries: n }) });
    const last = Float32Array.from({ length: heads * d }, (_, t) => q[(Math.floor(t / d) * n + n - 1) * d + (t % d)]);
    const step = lab.batchedAttention({ shape: [1, heads, 1, d], data: last }, { shape: [1, 1, n, d], data: k }, { shape: [1, 1, n, d], data: v }, { bias: lab.alibiBias({ heads, queries: 1, keys: n, offset: n - 1 }) });
    for (let h = 0; h < heads; h++) expectClose(step.output.data.subarray(h * d, (h + 1) * d), full.output.data.subarray((h * n + n - 1) * d, (h * n + n) * d), { atol: 1e-6, rtol: 1e-6 });
  });

  it('penalises distant keys more in heads with larger slopes', () => {
    const n = 6;
    const ones = { shape: [1, 2, n, 2], data: new Float32Array(2 * n * 2).fill(1) };
    const kv = { shape: [1, 1, n, 2], data: new Float32Array(n * 2).fill(1) };
    const w = lab.batchedAttention(ones, kv, kv, { bias: lab.alibiBias({ heads: 2, queries: n }) }).weights.data;
    // equal scores, so the weights are the bias's softmax: head 0 (slope 1/16) favours the query's own key more than head 1 (1/256)
    const own = (h) => w[(h * n + n - 1) * n + n - 1];
    expect(own(0)).toBeGreaterThan(own(1));
    expect(own(1)).toBeGreaterThan(1 / n);
  });
});

describe.each(BUILDS)('alibi errors ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  it.each([
    ['0 heads', () => lab.alibiSlopes(0), /heads must be a positive integer, got number 0/],
    ['2^32 heads (it would wrap to 0 in the 32-bit argument block)', () => lab.alibiBias({ heads: 2 ** 32, queries: 0 }), /heads must be a positive integer up to 2147483647, got number 4294967296/],
    ['1.5 heads', () => lab.alibiSlopes(1.5), /got number 1\.5/],
    ['"8" heads', () => lab.alibiSlopes('8'), /got the string "8"/],
    ['no options', () => lab.alibiBias(), /options \{ heads, queries/],
    ['no heads', () => lab.alibiBias({ queries: 3 }), /options\.heads is required/],
    ['no queries', () => lab.alibiBias({ heads: 3 }), /options\.queries is required/],
    ['−2 heads', () => lab.alibiBias({ heads: -2, queries: 3 }), /heads.*-2/],
    ['−1 keys', () => lab.alibiBias({ heads: 2, queries: 3, keys: -1 }), /keys must be.*-1/],
    ['offset 0.5', () => lab.alibiBias({ heads: 2, queries: 3, offset: 0.5 }), /offset must be an integer.*got 0\.5/],
    ['offset 2^31', () => lab.alibiBias({ heads: 2, queries: 3, offset: 2 ** 31 }), /offset.*2147483648/],
    ['symmetric 1', () => lab.alibiBias({ heads: 2, queries: 3, symmetric: 1 }), /symmetric must be true or false, got number 1/],
    ['an unknown option', () => lab.alibiBias({ heads: 2, queries: 3, slope: 1 }), /unknown option slope\b/],
  ])('refuses %s', (_, call, message) => {
    const error = thrown(call);
    expect(error.name).toBe('AttentionError');
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(message);
  });

  it('refuses an offset of NaN as NON_FINITE', () => {
    expect(thrown(() => lab.alibiBias({ heads: 2, queries: 3, offset: NaN })).code).toBe('NON_FINITE');
  });
});
