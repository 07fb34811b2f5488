// lab.createKVCache and lab.kvCacheBytes on both builds: a prefill and then
// decode steps equal full causal attention over every token so far (the
// float64 reference of batched-reference.js, and lab.batchedAttention) for
// MHA, GQA and MQA, batch 1 and 2, with a soft cap and a window, on both
// paths; the cached keys and values; the work counted key by key; the bytes;
// every error, after which the cache and the module keep working; no leak.
import { beforeAll, describe, expect, it } from 'vitest';

import { AttentionError, AttentionRangeError } from '../../dist/node.js';
import { batchedReference } from './batched-reference.js';
import { BUILDS, expectClose, loadLab, randomVector, rng, thrown, TOL } from './helpers.js';

const GROUPINGS = [['MHA', 4, 4], ['GQA', 4, 2], ['MQA', 4, 1]];
const RULES = [{}, { softcap: 1.5 }, { window: 3 }, { softcap: 2, window: 4 }];

// T tokens of random queries, keys and values, canonical [batch, heads, T, width].
function tokens(seed, { batch, heads, kvHeads, T, dK, dV }) {
  const rand = rng(seed);
  return { q: randomVector(rand, batch * heads * T * dK, -2, 2), k: randomVector(rand, batch * kvHeads * T * dK, -2, 2), v: randomVector(rand, batch * kvHeads * T * dV) };
}

// Rows [from, to) of each [batch, heads, T, width] head, as a 4-D tensor.
function rows(x, batch, heads, T, width, from, to) {
  const data = new Float32Array(batch * heads * (to - from) * width);
  for (let head = 0; head < batch * heads; head++)
    data.set(x.subarray((head * T + from) * width, (head * T + to) * width), head * (to - from) * width);
  return { shape: [batch, heads, to - from, width], data };
}

// The reference weights of rows [from, to) restricted to the first `to` keys.
function weightRows(w, batch, heads, T, from, to) {
  const out = [];
  for (let head = 0; head < batch * heads; head++)
    for (let i = from; i < to; i++) out.push(...w.subarray((head * T + i) * T, (head * T + i) * T + to));
  return out;
}

// The work by its definition, key by key: (dK + dV) per visible key, per batch entry and query head.
function countedWork({ batch, heads, dK, dV, window }, past, n) {
  const visible = (t) => (window ? Math.min(t + 1, window) : t + 1);
  let withCache = 0, withoutCache = 0;
  for (let t = 0; t < past + n; t++) {
    withoutCache += visible(t);
    if (t >= past) withCache += visible(t);
  }
  const perKey = batch * heads * (dK + dV);
  return { withCache: perKey * withCache, withoutCache: perKey * withoutCache };
}

describe.each(BUILDS)('createKVCache ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  const cases = GROUPINGS.flatMap(([kind, heads, kvHeads]) => [1, 2].flatMap((batch) => RULES.map((rules) => [kind, heads, kvHeads, batch, rules])));
  it.each(cases)('%s %i/%i heads, batch %i, %o: prefill + decode steps equal full causal attention', (kind, heads, kvHeads, batch, rules) => {
    const c = { batch, heads, kvHeads, dK: 8, dV: 5, T: 11, ...rules };
    const x = tokens(heads * 10 + kvHeads + batch * 100 + (rules.window ?? 0), c);
    const expected = batchedReference({ ...c, n: c.T, m: c.T, d: c.dK, dv: c.dV, ...x, scale: Math.fround(1 / Math.sqrt(c.dK)),
      causal: true, offsets: new Array(batch).fill(0), softcap: rules.softcap && Math.fround(rules.softcap), window: rules.window });
    const full = lab.batchedAttention(rows(x.q, batch, heads, c.T, c.dK, 0, c.T), rows(x.k, batch, kvHeads, c.T, c.dK, 0, c.T),
      rows(x.v, batch, kvHeads, c.T, c.dV, 0, c.T), { causal: true, ...rules });
    const cache = lab.createKVCache({ heads, kvHeads, dK: c.dK, dV: c.dV, capacity: c.T, batch, ...rules });
    const calls = [[0, 6], ...Array.from({ length: c.T - 6 }, (_, i) => [6 + i, 7 + i])];  // a prefill of 6, then 5 steps
    for (const [from, to] of calls) {
      const args = [rows(x.q, batch, heads, c.T, c.dK, from, to), rows(x.k, batch, kvHeads, c.T, c.dK, from, to), rows(x.v, batch, kvHeads, c.T, c.dV, from, to)];
      const fused = from % 2 === 1;  // odd steps take the fused path
      const r = from === 0 ? cache.prefill(...args) : cache.step(...args, { weights: !fused });
      const label = `${kind} batch ${batch}, tokens ${from}…${to - 1}${fused ? ', fused' : ''}`;
      expect(r.output.shape).toEqual([batch, heads, to - from, c.dV]);
      const want = Array.from(rows(Float32Array.from(expected.output), batch, heads, c.T, c.dV, from, to).data);
      expectClose(r.output.data, want, { ...TOL, label: `${label}: output vs float64` });
      expectClose(r.output.data, rows(full.output.data, batch, heads, c.T, c.dV, from, to).data, { atol: 1e-5, rtol: 1e-4, label: `${label}: output vs batchedAttention` });
      if (fused) expect(r.weights, label).toBeUndefined();
      else {
        expect(r.weights.shape).toEqual([batch, heads, to - from, to]);
        expectClose(r.weights.data, weightRows(expected.weights, batch, heads, c.T, from, to), { ...TOL, label: `${label}: weights` });
      }
      expect(r.work, label).toEqual(countedWork(c, from, to - from));
      expect(cache.length).toBe(to);
    }
    expect(cache.keys()).toEqual(rows(x.k, batch, kvHeads, c.T, c.dK, 0, c.T));
    expect(cache.values()).toEqual(rows(x.v, batch, kvHeads, c.T, c.dV, 0, c.T));
    cache.release();
    expect(cache.length).toBe(0); // a released cache holds nothing
  });

  it('a decode step costs (p + 1)(dK + dV) per head with the cache and (p + 1)(p + 2)/2 (dK + dV) without', () => {
    const cache = lab.createKVCache({ heads: 2, kvHeads: 1, dK: 4, dV: 3, capacity: 40 });
    const rand = rng(5);
    const t = (heads, n, width) => ({ shape: [1, heads, n, width], data: randomVector(rand, heads * n * width) });
    cache.prefill(t(2, 30, 4), t(1, 30, 4), t(1, 30, 3));
    for (let p = 30; p < 40; p++) {
      const { work } = cache.step(t(2, 1, 4), t(1, 1, 4), t(1, 1, 3), { weights: false });
      expect(work).toEqual({ withCache: 2 * 7 * (p + 1), withoutCache: (2 * 7 * (p + 1) * (p + 2)) / 2 });
    }
    cache.release();
  });

  it('reports its memory (capacity rows of keys and values), its shape, and copies of the cache', () => {
    const cache = lab.createKVCache({ heads: 8, kvHeads: 2, dK: 16, dV: 12, capacity: 100, batch: 3, window: 9 });
    expect(cache.bytes).toBe(3 * 2 * 100 * (16 + 12) * 4);
    expect(cache.bytes).toBe(lab.kvCacheBytes({ layers: 1, batch: 3, kvHeads: 2, dK: 16, dV: 12, tokens: 100 }));
    expect([cache.batch, cache.heads, cache.kvHeads, cache.dK, cache.dV, cache.capacity, cache.window, cache.length]).toEqual([3, 8, 2, 16, 12, 100, 9, 0]);
    expect(cache.scale).toBe(Math.fround(1 / 4));
    expect(cache.keys()).toEqual({ shape: [3, 2, 0, 16], data: new Float32Array(0) });
    const K = { shape: [3, 2, 1, 16], data: new Float32Array(96).fill(1) };
    cache.step({ shape: [3, 8, 1, 16], data: new Float32Array(384) }, K, { shape: [3, 2, 1, 12], data: new Float32Array(72).fill(2) });
    const copy = cache.keys();
    copy.data[0] = 99;  // a copy: editing it leaves the cache alone
    expect(cache.keys().data[0]).toBe(1);
    cache.reset();
    expect(cache.length).toBe(0);
    cache.release();
  });

  it('truncate(length) drops the last tokens: the next step equals the same step on a cache that never held them', () => {
    const c = { heads: 4, kvHeads: 2, dK: 8, dV: 5 };
    const rand = rng(21);
    const t = (heads, n, width) => ({ shape: [1, heads, n, width], data: randomVector(rand, heads * n * width, -2, 2) });
    const prompt = [t(4, 7, 8), t(2, 7, 8), t(2, 7, 5)];
    const draft = [t(4, 3, 8), t(2, 3, 8), t(2, 3, 5)];  // three draft tokens, then rejected
    const next = [t(4, 1, 8), t(2, 1, 8), t(2, 1, 5)];
    const kept = lab.createKVCache({ ...c, capacity: 10 }), clean = lab.createKVCache({ ...c, capacity: 10 });
    kept.prefill(...prompt);
    clean.prefill(...prompt);
    kept.prefill(...draft);
    kept.truncate(7);
    expect(kept.length).toBe(7);
    expect(kept.keys()).toEqual(clean.keys());
    expect(kept.values()).toEqual(clean.values());
    for (const weights of [true, false]) {
      const a = kept.step(...next, { weights }), b = clean.step(...next, { weights });
      expect(a).toEqual(b);  // the same rows in the same order: bit for bit
      expect(a.work).toEqual(countedWork({ ...c, batch: 1 }, 7, 1));
      kept.truncate(7);
      clean.truncate(7);
    }
    kept.truncate(7);  // to its own length: nothing changes
    expect(kept.length).toBe(7);
    kept.truncate(0);
    expect([kept.length, kept.keys().shape]).toEqual([0, [1, 2, 0, 8]]);
    kept.step(...next);
    for (const [length, message] of [[2, /length 2 is beyond the 1 token cached; truncate keeps tokens, it cannot add them/],
      [-1, /length must be an integer from 0 to 2147483647, got number -1/], [1.5, /length must be an integer from 0/], ['1', /length must be an integer from 0/]]) {
      const error = thrown(() => kept.truncate(length));
      expect(error).toBeInstanceOf(AttentionError);
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(message);
      expect(kept.length).toBe(1);  // a refused truncate changes nothing
    }
    kept.release();
    clean.release();
  });

  it('truncate(length) forgets the norm of the keys it removes: a step a fresh cache takes is taken', () => {
    const one = { heads: 1, kvHeads: 1, dK: 2, dV: 1, capacity: 4 };
    const token = (q, k, v) => [{ shape: [1, 1, 1, 2], data: Float32Array.of(...q) }, { shape: [1, 1, 1, 2], data: Float32Array.of(...k) }, { shape: [1, 1, 1, 1], data: Float32Array.of(v) }];
    const kept = lab.createKVCache(one), fresh = lab.createKVCache(one);
    for (const cache of [kept, fresh]) cache.prefill(...token([1, 0], [1, 0], 1));
    kept.prefill(...token([1, 0], [2e19, 0], 2)); // a key of norm 2e19, then cut away
    kept.truncate(1);
    // A query of norm 2e19 against keys of norm 1 and 0.5: scores near 1.4e19, well inside float32.
    const next = token([2e19, 0], [0.5, 0], 3);
    const a = kept.step(...next), b = fresh.step(...next);
    expect(a).toEqual(b);
    expect(a.output.data.every(Number.isFinite)).toBe(true);
    // Kept, the big key still bounds the scores: such a step is refused before anything is computed.
    kept.prefill(...token([1, 0], [2e19, 0], 2));
    const error = thrown(() => kept.step(...next));
    expect(error.code).toBe('OVERFLOW');
    expect(kept.length).toBe(3);
    kept.release();
    fresh.release();
  });

  it('3-D tokens [batch, n, heads·d] (batchedAttention\'s and rotaryEmbedding\'s layout) give what the same tokens 4-D give', () => {
    const c = { batch: 2, heads: 4, kvHeads: 2, dK: 3, dV: 2, capacity: 8 };
    const rand = rng(33);
    // A 4-D [batch, heads, n, w] tensor and the same numbers as [batch, n, heads·w], written plainly.
    const pair = (heads, n, w) => {
      const four = { shape: [2, heads, n, w], data: randomVector(rand, 2 * heads * n * w, -2, 2) };
      const three = { shape: [2, n, heads * w], data: new Float32Array(four.data.length) };
      for (let b = 0; b < 2; b++) for (let h = 0; h < heads; h++) for (let i = 0; i < n; i++) for (let j = 0; j < w; j++)
        three.data[((b * n + i) * heads + h) * w + j] = four.data[((b * heads + h) * n + i) * w + j];
      return { four, three };
    };
    const flat = lab.createKVCache(c), heads = lab.createKVCache(c);
    for (const n of [3, 1, 1]) {
      const [q, k, v] = [pair(4, n, 3), pair(2, n, 3), pair(2, n, 2)];
      const call = n > 1 ? 'prefill' : 'step';
      const a = flat[call](q.three, k.three, v.three);
      const b = heads[call](q.four, k.four, v.four);
      expect(a.output.shape).toEqual([2, n, 4 * 2]);
      expect(a.weights).toEqual(b.weights); // [batch, heads, n, keys] in both
      expect(a.work).toEqual(b.work);
      const back = pair(4, n, 2); // the 4-D output, written as 3-D by the same rule
      back.four.data.set(b.output.data);
      for (let bb = 0; bb < 2; bb++) for (let h = 0; h < 4; h++) for (let i = 0; i < n; i++) for (let j = 0; j < 2; j++)
        back.three.data[((bb * n + i) * 4 + h) * 2 + j] = b.output.data[((bb * 4 + h) * n + i) * 2 + j];
      expect(a.output.data).toEqual(back.three.data);
    }
    expect(flat.keys()).toEqual(heads.keys());
    flat.release();
    heads.release();
  });

  it('kvCacheBytes: MHA, GQA and MQA shapes of real models', () => {
    // Llama 2 7B: 32 layers, 32 heads of 128, float16: 512 KiB per token, 2 GiB for 4,096 tokens
    expect(lab.kvCacheBytes({ layers: 32, kvHeads: 32, headDim: 128, tokens: 1, bytesPerValue: 2 })).toBe(512 * 1024);
    expect(lab.kvCacheBytes({ layers: 32, kvHeads: 32, headDim: 128, tokens: 4096, bytesPerValue: 2 })).toBe(2 * 1024 ** 3);
    // Llama 3 8B (GQA, 8 kv heads) and a multi-query model: 4× and 32× smaller than MHA
    expect(lab.kvCacheBytes({ layers: 32, kvHeads: 8, headDim: 128, tokens: 4096, bytesPerValue: 2 })).toBe(2 * 1024 ** 3 / 4);
    expect(lab.kvCacheBytes({ layers: 32, kvHeads: 1, headDim: 128, tokens: 4096, bytesPerValue: 2 })).toBe(2 * 1024 ** 3 / 32);
    for (const [layers, batch, kvHeads, dK, dV, tokens, bytesPerValue] of [[1, 1, 1, 1, 1, 0, 4], [3, 2, 5, 7, 11, 13, 1], [80, 4, 8, 128, 128, 131072, 2], [2, 1, 3, 5, 9, 17, 0.5]])
      expect(lab.kvCacheBytes({ layers, batch, kvHeads, dK, dV, tokens, bytesPerValue })).toBe(layers * batch * kvHeads * tokens * (dK + dV) * bytesPerValue);
    expect(lab.kvCacheBytes({ layers: 2, kvHeads: 3, headDim: 4, tokens: 5 })).toBe(2 * 3 * 5 * 8 * 4);  // float32 by default
  });

  it('survives lab.releaseMemory() and frees its block on release() (no leak)', () => {
    const t = (heads, n, width, value) => ({ shape: [1, heads, n, width], data: new Float32Array(heads * n * width).fill(value) });
    const cache = lab.createKVCache({ heads: 1, kvHeads: 1, dK: 2, dV: 1, capacity: 4, scale: 1 });
    cache.prefill(t(1, 1, 2, 0), t(1, 1, 2, 0), t(1, 1, 1, 5));
    lab.releaseMemory();
    lab.matmul([[1, 2, 3]], [[1], [2], [3]]);  // the workspace reallocated over whatever was freed
    expect(Array.from(cache.step(t(1, 1, 2, 0), t(1, 1, 2, 0), t(1, 1, 1, 7)).output.data)).toEqual([6]);
    cache.release();
    const before = lab.heapBytes;
    for (let i = 0; i < 300; i++) {  // 300 × 8 MiB would exceed the 1 GiB module if release() leaked
      const big = lab.createKVCache({ heads: 1, kvHeads: 1, dK: 256, dV: 256, capacity: 4096 });
      expect(big.bytes).toBe(8 * 1024 * 1024);
      big.step(t(1, 1, 256, 0.01), t(1, 1, 256, 0.01), t(1, 1, 256, 1));
      big.release();
    }
    expect(lab.heapBytes - before).toBeLessThanOrEqual(16 * 1024 * 1024);
  });
});

describe.each(BUILDS)('createKVCache errors ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });
  const shape = { heads: 4, kvHeads: 2, dK: 3, dV: 2, capacity: 5, batch: 2 };
  const t = (dims, value = 0.5) => ({ shape: dims, data: new Float32Array(dims.reduce((a, b) => a * b, 1)).fill(value) });

  it.each([
    ['a missing size', { ...shape, dV: undefined }, /options.dV is required/, 'INVALID_ARGUMENT'],
    ['a non-integer size', { ...shape, dK: 2.5 }, /dK must be a positive integer, got number 2.5/, 'INVALID_ARGUMENT'],
    ['a zero capacity', { ...shape, capacity: 0 }, /capacity must be a positive integer, got number 0/, 'INVALID_ARGUMENT'],
    ['heads not a multiple of kvHeads', { ...shape, heads: 3 }, /3 query heads cannot share 2 key\/value heads/, 'SHAPE_MISMATCH'],
    ['an unknown option', { ...shape, causal: true }, /unknown option causal\b/, 'INVALID_ARGUMENT'],
    ['a negative softcap', { ...shape, softcap: -1 }, /softcap is -1; it must be positive/, 'INVALID_ARGUMENT'],
    ['a zero window', { ...shape, window: 0 }, /window must be a positive integer, got number 0/, 'INVALID_ARGUMENT'],
    ['a NaN scale', { ...shape, scale: NaN }, /scale must be a finite number, got number NaN/, 'NON_FINITE'],
  ])('createKVCache refuses %s', (_, options, message, code) => {
    const error = thrown(() => lab.createKVCache(options));
    expect(error).toBeInstanceOf(AttentionError);
    expect(error.message).toMatch(message);
    expect(error.code).toBe(code);
  });

  it('a cache larger than the module refuses with an AttentionRangeError before allocating', () => {
    const error = thrown(() => lab.createKVCache({ heads: 8, kvHeads: 8, dK: 128, dV: 128, capacity: 200000 }));  // 1.6 GB
    expect(error).toBeInstanceOf(AttentionRangeError);
    expect(error.message).toMatch(/createKVCache: could not allocate 1638400000 bytes of WASM memory \(the module is limited to 1073741824 bytes/);
  });

  it('every bad call names the shapes; afterwards the cache and the module still compute correctly', () => {
    const cache = lab.createKVCache(shape);
    const [Q, K, V] = [t([2, 4, 2, 3]), t([2, 2, 2, 3]), t([2, 2, 2, 2])];
    cache.prefill(Q, K, V);
    const attempts = [
      [() => cache.prefill(t([2, 2, 2, 3]), K, V), /Q has shape \[2, 2, 2, 3\] but this cache \(batch 2, heads 4, kvHeads 2, dK 3, dV 2\) needs \[2, 4, 2, 3\]/, 'SHAPE_MISMATCH'],
      [() => cache.prefill(Q, t([2, 1, 2, 3]), V), /K has shape \[2, 1, 2, 3\] but .* needs \[2, 2, 2, 3\] \[batch, kvHeads, n, dK\]/, 'SHAPE_MISMATCH'],
      [() => cache.prefill(Q, K, t([2, 2, 2, 3])), /V has shape \[2, 2, 2, 3\] but .* needs \[2, 2, 2, 2\]/, 'SHAPE_MISMATCH'],
      [() => cache.prefill(Q, t([2, 2, 2, 4]), V), /K has shape \[2, 2, 2, 4\]/, 'SHAPE_MISMATCH'],
      [() => cache.prefill(t([1, 4, 2, 3]), K, V), /Q has shape \[1, 4, 2, 3\] but .* needs \[2, 4, 2, 3\]/, 'SHAPE_MISMATCH'],
      [() => cache.prefill(Q, t([2, 2, 1, 3]), V), /K has shape \[2, 2, 1, 3\] but .* needs \[2, 2, 2, 3\] .* for n = 2/, 'SHAPE_MISMATCH'],
      [() => cache.prefill(t([2, 4, 3]), K, V), /Q has shape \[2, 4, 3\] but K has \[2, 2, 2, 3\]; Q, K and V must all be 3-D or all 4-D/, 'SHAPE_MISMATCH'],
      [() => cache.prefill(t([2, 2, 12]), t([2, 2, 6]), t([2, 2, 5])), /V has shape \[2, 2, 5\] but .* needs \[2, 2, 4\] \[batch, n, kvHeads·dV\] for n = 2/, 'SHAPE_MISMATCH'],
      [() => cache.prefill(t([8, 6]), K, V), /Q has shape \[8, 6\]; expected 3 or 4 dimensions/, 'SHAPE_MISMATCH'],
      [() => cache.step(Q, K, V), /a step appends one token but Q has n = 2; use prefill/, 'SHAPE_MISMATCH'],
      [() => cache.prefill(t([2, 4, 0, 3]), t([2, 2, 0, 3]), t([2, 2, 0, 2])), /hold no token \(n = 0\)/, 'INVALID_ARGUMENT'],
      [() => cache.prefill(t([2, 4, 4, 3]), t([2, 2, 4, 3]), t([2, 2, 4, 2])), /appending n = 4 tokens to a cache of length 2 needs 6 rows but its capacity is 5/, 'INVALID_ARGUMENT'],
      [() => cache.prefill(Q, K, V, { trace: true }), /unknown option trace; the options are weights/, 'INVALID_ARGUMENT'],
      [() => cache.prefill(Q, K, V, { weights: 1 }), /weights must be true or false/, 'INVALID_ARGUMENT'],
      [() => cache.prefill(Q, { shape: [2, 2, 2, 3], data: Float32Array.from({ length: 24 }, (_, i) => (i === 11 ? NaN : i)) }, V), /K entry 11 is NaN/, 'NON_FINITE'],
      [() => cache.prefill(t([2, 4, 2, 3], 3e19), t([2, 2, 2, 3], 3e19), V), /beyond float32's 3.4e38/, 'OVERFLOW'],
    ];
    for (const [attempt, message, code] of attempts) {
      const error = thrown(attempt);
      expect(error, String(message)).toBeInstanceOf(AttentionError);
      expect(error.message).toMatch(message);
      expect(error.code, String(message)).toBe(code);
      expect(cache.length, `${message}: nothing appended`).toBe(2);
    }
    // the cache still equals a fresh one given the same tokens, and other operations still work
    const fresh = lab.createKVCache(shape);
    fresh.prefill(Q, K, V);
    const [q1, k1, v1] = [t([2, 4, 1, 3], 0.25), t([2, 2, 1, 3], -0.5), t([2, 2, 1, 2], 2)];
    expect(cache.step(q1, k1, v1)).toEqual(fresh.step(q1, k1, v1));
    expect(cache.keys()).toEqual(fresh.keys());
    expect(Array.from(lab.matmul([[2]], [[3]]).data)).toEqual([6]);
    fresh.release();
    cache.release();
  });

  it('a call whose result overflows after the core wrote its rows leaves the cache as it was', () => {
    const cache = lab.createKVCache({ heads: 1, kvHeads: 1, dK: 1, dV: 1, capacity: 3, scale: 1 });
    cache.prefill(t([1, 1, 1, 1], 0), t([1, 1, 1, 1], 0), t([1, 1, 1, 1], 3e38));
    // equal scores: the fused path sums 3e38 + 3e38 before it divides by 2, which overflows float32
    const error = thrown(() => cache.step(t([1, 1, 1, 1], 0), t([1, 1, 1, 1], 0), t([1, 1, 1, 1], 3e38), { weights: false }));
    expect(error.code).toBe('OVERFLOW');
    expect(cache.length).toBe(1);
    expect(Array.from(cache.step(t([1, 1, 1, 1], 0), t([1, 1, 1, 1], 0), t([1, 1, 1, 1], -3e38)).output.data)).toEqual([0]);
    expect(Array.from(cache.values().data)).toEqual([3e38, -3e38].map(Math.fround));
    cache.release();
  });

  it('a released cache throws DISPOSED from every method but release()', () => {
    const cache = lab.createKVCache(shape);
    cache.release();
    cache.release();  // twice is fine
    for (const attempt of [() => cache.prefill(t([2, 4, 1, 3]), t([2, 2, 1, 3]), t([2, 2, 1, 2])), () => cache.step(t([2, 4, 1, 3]), t([2, 2, 1, 3]), t([2, 2, 1, 2])),
      () => cache.keys(), () => cache.values(), () => cache.reset(), () => cache.truncate(0)]) {
      const error = thrown(attempt);
      expect(error.code).toBe('DISPOSED');
      expect(error.message).toMatch(/this KV cache was released; create a new one with createKVCache/);
    }
  });

  it.each([
    ['a missing size', { kvHeads: 8, headDim: 128, tokens: 10 }, /options.layers is required/],
    ['headDim with dK', { layers: 1, kvHeads: 8, headDim: 128, dK: 64, tokens: 10 }, /headDim .* or dK and dV, not both/],
    ['dK without dV', { layers: 1, kvHeads: 8, dK: 64, tokens: 10 }, /give headDim, or both dK and dV/],
    ['a fractional layer count', { layers: 1.5, kvHeads: 8, headDim: 128, tokens: 10 }, /layers must be a positive integer, got number 1.5/],
    ['negative tokens', { layers: 1, kvHeads: 8, headDim: 128, tokens: -1 }, /tokens must be an integer from 0/],
    ['zero bytes per value', { layers: 1, kvHeads: 8, headDim: 128, tokens: 1, bytesPerValue: 0 }, /bytesPerValue must be positive/],
    ['an unknown option', { layers: 1, heads: 8, kvHeads: 8, headDim: 128, tokens: 1 }, /unknown option heads\b/],
    ['a total beyond 2^53', { layers: 1e6, batch: 1e6, kvHeads: 1000, headDim: 1000, tokens: 1000 }, /beyond what a number counts exactly/],
  ])('kvCacheBytes refuses %s', (_, options, message) => {
    const error = thrown(() => lab.kvCacheBytes(options));
    expect(error).toBeInstanceOf(AttentionError);
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(message);
  });
});
