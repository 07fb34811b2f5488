// lab.batchedAttention on both builds and both paths against the float64
// reference (batched-reference.js): 4-D and 3-D layouts, grouped-query heads,
// every rule alone and combined, broadcast masks and biases, the KV cache,
// float16 inputs, the trace; and a clear AttentionError for every bad shape,
// after which the module still computes correctly.
import { beforeAll, describe, expect, it } from 'vitest';

import { BUILDS, expectClose, loadLab, randomVector, rng, SIZES, thrown, TOL } from './helpers.js';
import { batchedReference, toRowsMajor } from './batched-reference.js';

const GROUPINGS = [[1, 1], [2, 2], [4, 2], [6, 3], [4, 1]];
const FLT_LOWEST = -3.4028234663852886e38;

function inputs(seed, { batch = 2, heads = 4, kvHeads = 2, n = 5, m = 7, d = 8, dv = 6 } = {}) {
  const rand = rng(seed);
  const q = randomVector(rand, batch * heads * n * d, -2, 2), k = randomVector(rand, batch * kvHeads * m * d, -2, 2);
  const v = randomVector(rand, batch * kvHeads * m * dv);
  return { rand, batch, heads, kvHeads, n, m, d, dv, q, k, v, scale: Math.fround(1 / Math.sqrt(d)) };
}

const t4 = (c, x, heads, rows, width) => ({ shape: [c.batch, heads, rows, width], data: Float32Array.from(x) });
const t3 = (c, x, heads, rows, width) => ({ shape: [c.batch, rows, heads * width], data: toRowsMajor(Float32Array.from(x), c.batch, heads, rows, width) });

// The rules of one case, as library options and as the reference's full planes.
function rules(c, kind) {
  const { rand, batch, heads, n, m } = c;
  const o = {}, r = {};
  const full = (gen) => Array.from({ length: batch * heads * n * m }, (_, at) => gen(Math.floor(at / (heads * n * m)), Math.floor(at / (n * m)) % heads, Math.floor(at / m) % n, at % m));
  if (kind === 'causal' || kind === 'all') [o.causal, r.causal] = [true, true];
  if (kind === 'offsets' || kind === 'all') [o.causal, r.causal, o.causalOffset, r.offsets] = [true, true, [m - n, -1], [m - n, -1]];
  if (kind === 'window' || kind === 'all') {
    [o.window, r.window] = [3, 3];
    if (!o.causalOffset) [o.causal, r.causal, o.causalOffset, r.offsets] = [true, true, 2, [2, 2]];
  }
  if (kind === 'kvLengths' || kind === 'all') [o.kvLengths, r.kvLengths] = [[m, Math.floor(m / 2)], [m, Math.floor(m / 2)]];
  if (kind === 'mask' || kind === 'all') {
    const bits = Array.from({ length: n * m }, () => (rand() < 0.7 ? 1 : 0));  // [n, m] over every batch entry and head
    o.mask = { shape: [n, m], data: Uint8Array.from(bits) };
    r.mask = full((b, h, i, j) => bits[i * m + j]);
  }
  if (kind === 'bias' || kind === 'all') {  // ALiBi-like, per head: [1, heads, n, m]
    const bias = Array.from({ length: heads * n * m }, (_, at) => Math.fround(-(2 ** -(Math.floor(at / (n * m)) + 1)) * Math.abs((Math.floor(at / m) % n) - (at % m))));
    o.bias = { shape: [1, heads, n, m], data: Float32Array.from(bias) };
    r.bias = full((b, h, i, j) => bias[(h * n + i) * m + j]);
  }
  if (kind === 'softcap' || kind === 'all') [o.softcap, r.softcap] = [1.5, Math.fround(1.5)];
  return { o, r };
}

function expectAll(result, expected, layout, c, label) {
  const out = layout === '3-D' ? toRowsMajor(Float32Array.from(expected.output), c.batch, c.heads, c.n, c.dv) : expected.output;
  expectClose(result.output.data, out, { ...TOL, atol: 1e-5 * (c.d + 1), label: `${label}: output` });
  if (result.weights) expectClose(result.weights.data, expected.weights, { ...TOL, label: `${label}: weights` });
}

describe.each(BUILDS)('batchedAttention ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  const KINDS = ['none', 'causal', 'offsets', 'window', 'kvLengths', 'mask', 'bias', 'softcap', 'all'];
  it.each(KINDS)('rule %s: both layouts, every grouping, both paths match the float64 reference', (kind) => {
    for (const [g, [heads, kvHeads]] of GROUPINGS.entries())
      for (const layout of ['4-D', '3-D']) {
        const c = inputs(100 + g, { heads, kvHeads });
        const { o, r } = rules(c, kind);
        const expected = batchedReference({ ...c, ...r });
        const t = layout === '4-D' ? t4 : t3;
        const [Q, K, V] = [t(c, c.q, heads, c.n, c.d), t(c, c.k, kvHeads, c.m, c.d), t(c, c.v, kvHeads, c.m, c.dv)];
        const options = { ...o, ...(layout === '3-D' ? { heads, kvHeads } : {}) };
        const label = `${kind}, ${heads}/${kvHeads} heads, ${layout}`;
        expectAll(lab.batchedAttention(Q, K, V, options), expected, layout, c, label);
        expectAll(lab.batchedAttention(Q, K, V, { ...options, weights: false }), expected, layout, c, `${label}, fused`);
      }
  });

  it.each(SIZES)('n = %i against every key count in SIZES (all rules combined, GQA 4/2)', (n) => {
    for (const m of SIZES) {
      const c = inputs(200 + n * 100 + m, { n, m, d: SIZES[(n + m) % SIZES.length], dv: SIZES[(n * 3 + m) % SIZES.length] });
      const { o, r } = rules(c, 'all');
      const expected = batchedReference({ ...c, ...r });
      const [Q, K, V] = [t4(c, c.q, 4, n, c.d), t4(c, c.k, 2, m, c.d), t4(c, c.v, 2, m, c.dv)];
      expectAll(lab.batchedAttention(Q, K, V, o), expected, '4-D', c, `n ${n}, m ${m}`);
      expectAll(lab.batchedAttention(Q, K, V, { ...o, weights: false }), expected, '4-D', c, `n ${n}, m ${m}, fused`);
    }
  });

  it('rows that see no key are exactly zero (weights and output) on both paths', () => {
    const c = inputs(300, { n: 4, m: 4 });
    const [Q, K, V] = [t4(c, c.q, 4, 4, 8), t4(c, c.k, 2, 4, 8), t4(c, c.v, 2, 4, 6)];
    for (const weights of [true, false]) {
      const result = lab.batchedAttention(Q, K, V, { causal: true, causalOffset: -2, weights });  // rows 0 and 1 see nothing
      for (let bh = 0; bh < 8; bh++)
        for (const i of [0, 1]) expect(Array.from(result.output.data.subarray((bh * 4 + i) * 6, (bh * 4 + i + 1) * 6))).toEqual(new Array(6).fill(0));
      if (weights) for (let bh = 0; bh < 8; bh++) expect(Array.from(result.weights.data.subarray(bh * 16, bh * 16 + 8))).toEqual(new Array(8).fill(0));
    }
  });

  it('broadcast masks: [n, keys], [keys], [batch, 1, n, keys], [1, heads, 1, keys] and a short last axis', () => {
    const c = inputs(400);
    const [Q, K, V] = [t4(c, c.q, 4, 5, 8), t4(c, c.k, 2, 7, 8), t4(c, c.v, 2, 7, 6)];
    const bits = (count) => Uint8Array.from({ length: count }, () => (c.rand() < 0.7 ? 1 : 0));
    for (const shape of [[5, 7], [1, 7], [2, 1, 5, 7], [1, 4, 1, 7], [5, 4], [2, 4, 5, 7]]) {
      const data = bits(shape.reduce((a, b) => a * b, 1));
      const s = [...Array(4 - shape.length).fill(1), ...shape];
      const full = Array.from({ length: 2 * 4 * 5 * 7 }, (_, at) => {
        const [b, h, i, j] = [Math.floor(at / 140), Math.floor(at / 35) % 4, Math.floor(at / 7) % 5, at % 7];
        if (j >= s[3]) return 0;  // a short mask hides the keys past its end
        return data[(((s[0] === 1 ? 0 : b) * s[1] + (s[1] === 1 ? 0 : h)) * s[2] + (s[2] === 1 ? 0 : i)) * s[3] + j];
      });
      const expected = batchedReference({ ...c, mask: full });
      expectAll(lab.batchedAttention(Q, K, V, { mask: { shape, data } }), expected, '4-D', c, `mask ${shape}`);
      expectAll(lab.batchedAttention(Q, K, V, { bias: { shape, data: Float32Array.from(data, (x) => (x ? 0.25 : -Infinity)) }, weights: false }),
        batchedReference({ ...c, mask: full, bias: full.map((x) => (x ? 0.25 : 0)) }), '4-D', c, `bias ${shape}, fused`);
    }
  });

  it('the KV cache: present = past ++ new, and the default bottom-right offset equals full causal attention', () => {
    const [batch, heads, kvHeads, past, fresh, d] = [2, 4, 2, 5, 3, 8];
    const T = past + fresh;
    const c = inputs(500, { batch, heads, kvHeads, n: T, m: T, d, dv: d });
    const full = lab.batchedAttention(t4(c, c.q, heads, T, d), t4(c, c.k, kvHeads, T, d), t4(c, c.v, kvHeads, T, d), { causal: true });
    const split = (x, from, to) => Float32Array.from({ length: batch * kvHeads * (to - from) * d }, (_, at) => {
      const [bg, j, t] = [Math.floor(at / ((to - from) * d)), Math.floor(at / d) % (to - from), at % d];
      return x[(bg * T + from + j) * d + t];
    });
    const tail = Float32Array.from({ length: batch * heads * fresh * d }, (_, at) => c.q[(Math.floor(at / (fresh * d)) * T + past + Math.floor(at / d) % fresh) * d + (at % d)]);
    const tensor = (data, h, rows) => ({ shape: [batch, h, rows, d], data });
    for (const weights of [true, false]) {
      const step = lab.batchedAttention(tensor(tail, heads, fresh), tensor(split(c.k, past, T), kvHeads, fresh), tensor(split(c.v, past, T), kvHeads, fresh),
        { causal: true, pastKey: tensor(split(c.k, 0, past), kvHeads, past), pastValue: tensor(split(c.v, 0, past), kvHeads, past), weights });
      expect(step.presentKey.shape).toEqual([batch, kvHeads, T, d]);
      expect(Array.from(step.presentKey.data)).toEqual(Array.from(Float32Array.from(c.k)));
      expect(Array.from(step.presentValue.data)).toEqual(Array.from(Float32Array.from(c.v)));
      const rows = Float32Array.from({ length: tail.length }, (_, at) => full.output.data[(Math.floor(at / (fresh * d)) * T + past + Math.floor(at / d) % fresh) * d + (at % d)]);
      expectClose(step.output.data, rows, { atol: 2e-6, rtol: 1e-5, label: `decode step = full causal rows (weights ${weights})` });
    }
  });

  it('float16 inputs are converted exactly: the same result as their float32 values', () => {
    const bits = Uint16Array.from({ length: 2 * 2 * 3 * 4 }, (_, i) => 0x3000 + ((i * 37) % 0x0c00) + (i % 3 === 0 ? 0x8000 : 0));
    const f16 = { shape: [2, 2, 3, 4], data: bits, dtype: 'float16' };
    const decoded = Float32Array.from(bits, (b) => (b & 0x8000 ? -1 : 1) * (1 + (b & 0x3ff) / 1024) * 2 ** (((b >> 10) & 0x1f) - 15));
    const f32 = { shape: [2, 2, 3, 4], data: decoded };
    expect(lab.batchedAttention(f16, f16, f16).output.data).toEqual(lab.batchedAttention(f32, f32, f32).output.data);
    // the smallest subnormal 2^-24 and the largest finite 65504 survive: scores q·k_j with k_j one-hot are q's entries
    const q = { shape: [1, 1, 1, 2], data: Uint16Array.of(0x0001, 0x7bff), dtype: 'float16' };
    const traced = lab.batchedAttention(q, { shape: [1, 1, 2, 2], data: [1, 0, 0, 1] }, { shape: [1, 1, 2, 1], data: [3, 5] }, { scale: 1, trace: true });
    expect(Array.from(traced.steps[0].tensor.data)).toEqual([2 ** -24, 65504]);
  });

  it('the trace: scores, capped, biased (hidden = -3.4e38) and weights match the reference', () => {
    const c = inputs(600);
    const { o, r } = rules(c, 'all');
    const expected = batchedReference({ ...c, ...r });
    const result = lab.batchedAttention(t4(c, c.q, 4, 5, 8), t4(c, c.k, 2, 7, 8), t4(c, c.v, 2, 7, 6), { ...o, trace: true });
    expect(result.steps.map((s) => s.id)).toEqual(['scores', 'capped', 'biased', 'weights']);
    const biased = result.steps[2].tensor;
    expect(biased.shape).toEqual([2, 4, 5, 7]);
    expectClose(biased.data, expected.biased, { ...TOL, label: 'biased', infinityAs: FLT_LOWEST });
    expect(result.steps[3].tensor).toBe(result.weights);
    expectClose(result.steps[0].tensor.data, batchedReference(c).biased, { ...TOL, label: 'scores' });  // no rules: biased = scaled scores
    expectClose(result.steps[1].tensor.data, batchedReference({ ...c, softcap: r.softcap }).biased, { ...TOL, label: 'capped' });
  });

  const c = inputs(700);
  const good = () => [t4(c, c.q, 4, 5, 8), t4(c, c.k, 2, 7, 8), t4(c, c.v, 2, 7, 6)];
  const [Q, K, V] = good();
  const BAD = [
    ['query heads that do not divide', () => lab.batchedAttention(t4(c, c.q.slice(0, 3 * 2 * 5 * 8), 3, 5, 8), K, V), /3 query heads cannot share 2 key\/value heads/],
    ['3-D without head counts', () => lab.batchedAttention(t3(c, c.q, 4, 5, 8), t3(c, c.k, 2, 7, 8), t3(c, c.v, 2, 7, 6)), /need options.heads and options.kvHeads/],
    ['3-D width not a multiple of heads', () => lab.batchedAttention(t3(c, c.q, 4, 5, 8), t3(c, c.k, 2, 7, 8), t3(c, c.v, 2, 7, 6), { heads: 5, kvHeads: 2 }), /not a multiple of 5 heads/],
    ['3-D and 4-D mixed', () => lab.batchedAttention(Q, t3(c, c.k, 2, 7, 8), V), /must all be 3-D or all 4-D/],
    ['heads option disagreeing with the shape', () => lab.batchedAttention(Q, K, V, { heads: 2 }), /options.heads is 2 but the 4-D shapes give 4/],
    ['key width differing from query width', () => lab.batchedAttention(Q, { shape: [2, 2, 7, 4], data: new Float32Array(112) }, V), /queries have width 8 but keys 4/],
    ['one value per key', () => lab.batchedAttention(Q, K, { shape: [2, 2, 6, 6], data: new Float32Array(144) }), /K has 7 keys but V has 6 values/],
    ['batch sizes', () => lab.batchedAttention(Q, { shape: [1, 2, 7, 8], data: new Float32Array(112) }, V), /batch sizes 2, 1, 2/],
    ['data length', () => lab.batchedAttention({ shape: [2, 4, 5, 8], data: new Float32Array(3) }, K, V), /has shape \[2, 4, 5, 8\] but its data has 3 entries/],
    ['a mask that does not broadcast', () => lab.batchedAttention(Q, K, V, { mask: { shape: [3, 5, 7], data: new Uint8Array(105) } }), /mask has shape \[3, 5, 7\], which does not broadcast to \[batch 2, heads 4, n 5, keys 7\]/],
    ['a mask wider than the keys', () => lab.batchedAttention(Q, K, V, { mask: { shape: [5, 8], data: new Uint8Array(40) } }), /does not broadcast/],
    ['mask entries other than 0/1', () => lab.batchedAttention(Q, K, V, { mask: { shape: [5, 7], data: new Float32Array(35).fill(0.5) } }), /mask entry 0 is 0.5/],
    ['a NaN bias', () => lab.batchedAttention(Q, K, V, { bias: { shape: [5, 7], data: new Float32Array(35).fill(NaN) } }), /bias entry 0 is NaN/],
    ['a +Infinity bias', () => lab.batchedAttention(Q, K, V, { bias: { shape: [5, 7], data: new Float32Array(35).fill(Infinity) } }), /not NaN or \+Infinity/],
    ['kvLengths of the wrong count', () => lab.batchedAttention(Q, K, V, { kvLengths: [1, 2, 3] }), /kvLengths has 3 entries but the batch has 2/],
    ['kvLengths beyond the keys', () => lab.batchedAttention(Q, K, V, { kvLengths: [7, 8] }), /kvLengths\[1\] is 8; it must be an integer from 0 to 7/],
    ['kvLengths and its alias validLens both', () => lab.batchedAttention(Q, K, V, { kvLengths: [7, 7], validLens: [7, 7] }), /give kvLengths or its alias validLens, not both/],
    ['pastKey without pastValue', () => lab.batchedAttention(Q, K, V, { pastKey: { shape: [2, 2, 1, 8], data: new Float32Array(32) } }), /pastKey and pastValue together/],
    ['pastKey of the wrong heads', () => lab.batchedAttention(Q, K, V, { pastKey: { shape: [2, 4, 1, 8], data: new Float32Array(64) }, pastValue: { shape: [2, 2, 1, 6], data: new Float32Array(24) } }), /pastKey has shape \[2, 4, 1, 8\] but \[2, 2, 1, 8\] was expected/],
    ['a negative softcap', () => lab.batchedAttention(Q, K, V, { softcap: -1 }), /softcap is -1/],
    ['a window of 0', () => lab.batchedAttention(Q, K, V, { window: 0 }), /window must be a positive integer/],
    ['causalOffset without causal', () => lab.batchedAttention(Q, K, V, { causalOffset: 1 }), /causalOffset needs causal: true/],
    ['trace on the fused path', () => lab.batchedAttention(Q, K, V, { trace: true, weights: false }), /trace: true needs the weights/],
    ['an unknown option', () => lab.batchedAttention(Q, K, V, { is_causal: true }), /unknown option is_causal\b/],
    ['float16 data that is not bits', () => lab.batchedAttention({ shape: [2, 4, 5, 8], data: new Float32Array(320), dtype: 'float16' }, K, V), /must be a Uint16Array of float16 bits/],
    ['overflowing scores', () => lab.batchedAttention({ shape: [2, 4, 5, 8], data: new Float32Array(320).fill(3e38) }, K, V), /beyond float32's 3.4e38/],
    // |q||k| = 1e38 alone fits; the bias's largest finite entry (3e38, beside a hidden −∞) tips the bound over
    ['scores that the bias overflows', () => lab.batchedAttention(...bigScores(), { bias: { shape: [1, 2], data: [-Infinity, 3e38] } }), /up to 4\.00e\+38, beyond float32's 3.4e38/],
  ];
  it('validLens is taken for kvLengths (the word of the matrix functions\' masks): the same result', () => {
    expect(lab.batchedAttention(Q, K, V, { validLens: [7, 3] })).toEqual(lab.batchedAttention(Q, K, V, { kvLengths: [7, 3] }));
    expect(lab.batchedAttention(Q, K, V, { validLens: 3 })).not.toEqual(lab.batchedAttention(Q, K, V));
  });
  it('counts only finite bias entries in the bound (−∞ hides, it does not overflow)', () => {
    const r = lab.batchedAttention(...bigScores(), { bias: { shape: [1, 2], data: [-Infinity, 0] } });
    expect(Array.from(r.output.data)).toEqual([2]);  // only key 1 visible: its value
  });
  function bigScores() {
    const row = (x) => [x, 0, 0, 0, 0, 0, 0, 0];
    return [{ shape: [1, 1, 1, 8], data: row(1e19) }, { shape: [1, 1, 2, 8], data: [...row(1e19), ...row(1e19)] }, { shape: [1, 1, 2, 1], data: [1, 2] }];
  }
  it.each(BAD)('rejects %s with a clear AttentionError, and keeps working', (_, call, message) => {
    const error = thrown(call);
    expect(error.name).toBe('AttentionError');
    expect(error.message).toMatch(/^batchedAttention: /);
    expect(error.message).toMatch(message);
    expectAll(lab.batchedAttention(...good()), batchedReference(c), '4-D', c, 'after the error');
  });
});
