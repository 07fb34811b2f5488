// <attention-decoding>'s DOM-free parts (web/src/components/decoding/) in Node: its settings, the
// KV cache prefilled and decoded token by token against a float64 causal-attention reference, the
// soft-capped scores and curve against c·tanh(s/c), and the sliding window's visible keys.
import { describe, expect, it } from 'vitest';

import { decodeTrace, firstColumns, headProjections, rowsAndKeys } from '../../web/src/components/decoding/kv-model.js';
import { decodeChoice, largestDivisor, numberSetting, presetOf, shapeSetting, shapeText, sharingVariants } from '../../web/src/components/decoding/settings.js';
import { bytesText, headGroups, memoryRows } from '../../web/src/components/decoding/memory-model.js';
import { CURVE_POINTS, factorText, largestWeightRatio, softcapCurve, softcapRun, windowRun } from '../../web/src/components/decoding/softcap-model.js';
import { buildModel } from '../../web/src/model.js';
import { BUILDS, expectClose, loadLab } from './helpers.js';
import * as R from './reference.js';

describe('settings', () => {
  it('clamps numbers, rounds integers and falls back to the default', () => {
    expect(numberSetting('prefill', null)).toBe(3);
    expect(numberSetting('prefill', '0')).toBe(1);
    expect(numberSetting('prefill', '2.6')).toBe(3);
    expect(numberSetting('softcap', '0.25')).toBe(0.25);
    expect(numberSetting('softcap', 'x')).toBe(0.5);
    expect(numberSetting('sliding-window', '999')).toBe(128);
  });

  it('bounds prefill by n and the generated tokens by n − prefill', () => {
    expect(decodeChoice(null, null, 6)).toEqual({ prefill: 3, step: 1, steps: 3 });
    expect(decodeChoice('9', '4', 6)).toEqual({ prefill: 6, step: 0, steps: 0 });
    expect(decodeChoice('2', '9', 6)).toEqual({ prefill: 2, step: 4, steps: 4 });
  });

  it('reads kv-shape, keeps kvHeads a divisor of heads and names the presets', () => {
    expect(shapeSetting(null)).toEqual({ layers: 32, heads: 32, kvHeads: 8, headDim: 128 });
    expect(shapeSetting('32 71 1 64')).toEqual({ layers: 32, heads: 71, kvHeads: 1, headDim: 64 });
    expect(shapeSetting('4 12 5 64').kvHeads).toBe(4);
    expect(shapeSetting('4 12 40 64').kvHeads).toBe(12);
    expect(shapeSetting('0 x').layers).toBe(1);
    expect(shapeText(shapeSetting('32 32 32 128'))).toBe('32 32 32 128');
    expect(presetOf(shapeSetting('32 32 32 128')).label).toBe('Llama 2 7B');
    expect(presetOf(shapeSetting('32 71 1 64')).label).toBe('Falcon 7B');
    expect(presetOf(shapeSetting('2 2 2 2'))).toBeNull();
  });

  it('offers MHA, GQA and MQA; no GQA for a prime head count', () => {
    expect(largestDivisor(32, 8)).toBe(8);
    expect(largestDivisor(71, 70)).toBe(1);
    expect(sharingVariants({ heads: 32, kvHeads: 8 }).map((v) => v.kvHeads)).toEqual([32, 8, 1]);
    expect(sharingVariants({ heads: 32, kvHeads: 32 }).map((v) => v.kvHeads)).toEqual([32, 8, 1]);
    expect(sharingVariants({ heads: 71, kvHeads: 1 }).map((v) => v.kvHeads)).toEqual([71, null, 1]);
    expect(sharingVariants({ heads: 12, kvHeads: 12 }).map((v) => v.kvHeads)).toEqual([12, 6, 1]);
  });
});

/** Head 0's Q, K, V in float64 from the model (X times the first d_k columns of each W). */
function referenceProjections(model) {
  const dK = model.config.dK;
  const X = R.fromMatrix(model.X);
  return Object.fromEntries(['Q', 'K', 'V'].map((name, k) => [name, R.matmul(X, R.columns(R.fromMatrix([model.Wq, model.Wk, model.Wv][k]), 0, dK))]));
}

describe.each(BUILDS)('$name build', ({ simd }) => {
  const model = buildModel({ sentence: 'one two three four five six seven', seed: 5, dK: 4 });

  it('head 0 is X times the first d_k columns', async () => {
    const lab = await loadLab(simd);
    const proj = headProjections(lab, model);
    const ref = referenceProjections(model);
    for (const name of ['Q', 'K', 'V']) expectClose(proj[name], ref[name]);
    expect(firstColumns({ rows: 2, cols: 3, data: Float32Array.of(1, 2, 3, 4, 5, 6) }, 2).data).toEqual(Float32Array.of(1, 2, 4, 5));
  });

  it('prefill + decode: the cache grows to the prefix and every output row is causal attention’s', async () => {
    const lab = await loadLab(simd);
    const proj = headProjections(lab, model);
    const ref = referenceProjections(model);
    for (const [prefill, step] of [[1, 0], [3, 1], [2, 5], [7, 0]]) {
      const total = prefill + step;
      const trace = decodeTrace(lab, proj, prefill, step);
      expect([trace.K.rows, trace.V.rows, trace.weights.cols, trace.outputs.rows]).toEqual([total, total, total, total]);
      expect(trace.K.data).toEqual(proj.K.data.slice(0, total * 4));
      const prefix = (M) => M.slice(0, total);
      const full = R.scaledDotProduct(prefix(ref.Q), prefix(ref.K), prefix(ref.V), { mask: 'causal' });
      expectClose(trace.outputs, full.output);
      expectClose(trace.weights, [full.weights[total - 1]]);
      expect(trace.difference).toBeLessThan(1e-5);
      // The work the cache reports: (d_k + d_v) per key seen; without a cache, every row again.
      // Without a cache, step t recomputes t + 1 rows seeing (t + 1)(t + 2)/2 keys in all.
      const tri = (k) => (k * (k + 1)) / 2;
      expect(trace.work[0]).toEqual({ position: `0–${prefill - 1}`, keys: prefill, rowsWith: prefill, keysWith: tri(prefill), rowsWithout: prefill, keysWithout: tri(prefill), withCache: tri(prefill) * 8, withoutCache: tri(prefill) * 8 });
      for (let t = prefill; t < total; t++) expect(trace.work[t - prefill + 1]).toEqual({ position: String(t), keys: t + 1, rowsWith: 1, keysWith: t + 1, rowsWithout: t + 1, keysWithout: ((t + 1) * (t + 2)) / 2, withCache: (t + 1) * 8, withoutCache: ((t + 1) * (t + 2)) / 2 * 8 });
      expect(trace.bytes).toBe(total * 8 * 4);
    }
  });

  it('the work table’s rows and keys, counted one by one, times (d_k + d_v) are the library’s multiply-adds', async () => {
    const lab = await loadLab(simd);
    const cache = lab.createKVCache({ heads: 1, kvHeads: 1, dK: 3, dV: 5, capacity: 40 });
    try {
      const zeros = (n, d) => ({ shape: [1, 1, n, d], data: new Float32Array(n * d) });
      const check = (from, to, work) => {
        const c = rowsAndKeys(from, to);
        expect([c.keysWith * 8, c.keysWithout * 8]).toEqual([work.withCache, work.withoutCache]);
        // The closed forms the text states: step t alone, t + 1 rows and (t + 1)(t + 2)/2 keys without a cache.
        if (to === from + 1) expect([c.rowsWith, c.keysWith, c.rowsWithout, c.keysWithout]).toEqual([1, from + 1, from + 1, ((from + 1) * (from + 2)) / 2]);
      };
      check(0, 4, cache.prefill(zeros(4, 3), zeros(4, 3), zeros(4, 5)).work);
      for (let t = 4; t < 40; t++) check(t, t + 1, cache.step(zeros(1, 3), zeros(1, 3), zeros(1, 5)).work);
    } finally {
      cache.release();
    }
    // Summed over n steps from an empty cache: Θ(n²) keys with the cache, Θ(n³) without.
    const sums = (n) => Array.from({ length: n }, (_, t) => rowsAndKeys(t, t + 1)).reduce((a, c) => [a[0] + c.keysWith, a[1] + c.keysWithout], [0, 0]);
    expect(sums(100)).toEqual([(100 * 101) / 2, (100 * 101 * 102) / 6]);
  });

  it('GQA: the drawn groups are the heads that read one key/value head in lab.createKVCache', async () => {
    const lab = await loadLab(simd);
    expect(headGroups(32, 8)).toEqual(Array.from({ length: 8 }, (_, g) => ({ kv: g + 1, from: 4 * g + 1, to: 4 * g + 4 })));
    expect(headGroups(71, 1)).toEqual([{ kv: 1, from: 1, to: 71 }]);
    expect(headGroups(3, 3)).toEqual([1, 2, 3].map((h) => ({ kv: h, from: h, to: h })));
    // The library: 6 query heads, 2 key/value heads whose values differ; each query head's output is its group's value.
    const [heads, kvHeads, n] = [6, 2, 3];
    const cache = lab.createKVCache({ heads, kvHeads, dK: 2, dV: 1, capacity: n });
    try {
      const values = Float32Array.from({ length: kvHeads * n }, (_, k) => 10 * (Math.floor(k / n) + 1));
      const r = cache.prefill({ shape: [1, heads, n, 2], data: new Float32Array(heads * n * 2) }, { shape: [1, kvHeads, n, 2], data: new Float32Array(kvHeads * n * 2) }, { shape: [1, kvHeads, n, 1], data: values });
      const read = Array.from({ length: heads }, (_, h) => r.output.data[h * n] / 10);
      const drawn = headGroups(heads, kvHeads).flatMap((g) => Array.from({ length: g.to - g.from + 1 }, () => g.kv));
      expect(read).toEqual(drawn);
    } finally {
      cache.release();
    }
  });

  it('the memory table: MHA, GQA and MQA bytes for a shape like Llama 3 8B, float16', async () => {
    const lab = await loadLab(simd);
    const rows = memoryRows(lab, shapeSetting('32 32 8 128'), 4096);
    const bytes = (kv, tokens) => 2 * 32 * kv * 128 * tokens * 2;
    expect(rows.map((r) => [r.id, r.kvHeads, r.perToken, r.total, r.ratio, r.own])).toEqual([
      ['mha', 32, bytes(32, 1), bytes(32, 4096), 1, false],
      ['gqa', 8, bytes(8, 1), bytes(8, 4096), 0.25, true],
      ['mqa', 1, bytes(1, 1), bytes(1, 4096), 1 / 32, false],
    ]);
    expect(rows.map((r) => bytesText(r.total))).toEqual(['2.00 GiB', '512 MiB', '64.0 MiB']);
    expect(bytesText(512)).toBe('512 B');
    const falcon = memoryRows(lab, shapeSetting('32 71 1 64'), 2048);
    expect(falcon[1]).toEqual({ id: 'gqa', kvHeads: null, own: false });
    expect(falcon[2]).toMatchObject({ kvHeads: 1, own: true, total: 2 * 32 * 64 * 2048 * 2 });
  });

  it('soft-capping: the capped step is c·tanh(s/c) of the scores step, the weights a softmax of it', async () => {
    const lab = await loadLab(simd);
    const proj = headProjections(lab, model);
    const ref = referenceProjections(model);
    const c = 0.5;
    const run = softcapRun(lab, proj, c);
    const S = R.matmul(ref.Q, R.transpose(ref.K)).map((row) => row.map((x) => x / 2));
    expectClose(run.scores, S);
    expectClose(run.capped, S.map((row) => row.map((s) => c * Math.tanh(s / c))));
    const visible = R.visibility('causal', 7, 7);
    expectClose(run.weights, R.maskedSoftmax(S.map((row) => row.map((s) => c * Math.tanh(s / c))), visible));
    expectClose(run.plainWeights, R.maskedSoftmax(S, visible));
    expect(Array.from(run.mask)).toEqual(visible.flat().map(Number));
    const curve = softcapCurve(lab, 2);
    expect(curve.s.length).toBe(CURVE_POINTS);
    expect([curve.s[0], curve.s[CURVE_POINTS - 1]]).toEqual([-8, 8]);
    for (let k = 0; k < CURVE_POINTS; k++) expect(curve.capped[k]).toBeCloseTo(2 * Math.tanh(curve.s[k] / 2), 6);
  });

  it('soft-capping bounds the ratio of two weights in a row by e^(2c) and barely changes them at a large c', async () => {
    const lab = await loadLab(simd);
    const proj = headProjections(lab, model);
    for (const c of [0.1, 0.5, 2]) {
      const run = softcapRun(lab, proj, c);
      const ratio = largestWeightRatio(run.weights, run.mask);
      expect(ratio).toBeGreaterThan(1);
      expect(ratio).toBeLessThan(Math.exp(2 * c) * (1 + 1e-5)); // float32 weights: up to rounding
    }
    // The bound is reached as the scores spread: two keys with scores far apart, capped at c = 1.
    const wide = softcapRun(lab, { Q: { rows: 2, cols: 1, data: Float32Array.of(1, 1) }, K: { rows: 2, cols: 1, data: Float32Array.of(-100, 100) }, V: { rows: 2, cols: 1, data: Float32Array.of(0, 1) } }, 1);
    expect(largestWeightRatio(wide.weights, wide.mask)).toBeCloseTo(Math.exp(2), 3);
    // Gemma 2's c = 50 leaves these small scores, and so the weights, almost as they were.
    const large = softcapRun(lab, proj, 50);
    for (let k = 0; k < large.weights.data.length; k++) expect(Math.abs(large.weights.data[k] - large.plainWeights.data[k])).toBeLessThan(1e-3);
    expect([factorText(Math.exp(1)), factorText(Math.exp(100))]).toEqual(['2.72', '2.69×10⁴³']);
  });

  it('a sliding window of w keys: query i sees keys max(0, i − w + 1) … i', async () => {
    const lab = await loadLab(simd);
    const proj = headProjections(lab, model);
    const ref = referenceProjections(model);
    for (const w of [1, 3, 7]) {
      const run = windowRun(lab, proj, w);
      const visible = Array.from({ length: 7 }, (_, i) => Array.from({ length: 7 }, (_, j) => j <= i && j > i - w));
      expect(Array.from(run.mask)).toEqual(visible.flat().map(Number));
      expect(run.seen).toEqual(visible.map((row) => row.filter(Boolean).length));
      const S = R.matmul(ref.Q, R.transpose(ref.K)).map((row) => row.map((x) => x / 2));
      expectClose(run.weights, R.maskedSoftmax(S, visible));
    }
  });
});
