// <attention-decoding>'s RoPE and ALiBi parts (web/src/components/decoding/rope-model.js,
// alibi-model.js) in Node, against float64 references written from the definitions: q and k
// rotated at every position (rotate-half pairs), their scores constant along diagonals and under
// a shift of both positions; ALiBi's slopes, bias −m·(i − j) and the biased causal weights.
import { describe, expect, it } from 'vitest';

import { alibiRun, headSlice, meanDistance, slopeText } from '../../web/src/components/decoding/alibi-model.js';
import { headProjections } from '../../web/src/components/decoding/kv-model.js';
import { ROPE_POSITIONS, diagonalSpread, pairPoints, repeatRow, ropeRun } from '../../web/src/components/decoding/rope-model.js';
import { buildModel } from '../../web/src/model.js';
import { BUILDS, expectClose, loadLab } from './helpers.js';
import * as R from './reference.js';

/** Row vector v rotated for position p (rotate-half: coordinates i and i + d/2 pair up), in float64. */
function rotate(v, p, base) {
  const d = v.length;
  const half = d / 2;
  const out = v.slice();
  for (let i = 0; i < half; i++) {
    const a = p * base ** ((-2 * i) / d);
    out[i] = v[i] * Math.cos(a) - v[i + half] * Math.sin(a);
    out[i + half] = v[i] * Math.sin(a) + v[i + half] * Math.cos(a);
  }
  return out;
}
const dot = (a, b) => a.reduce((s, x, k) => s + x * b[k], 0);

describe('helpers', () => {
  it('repeats a row, measures diagonals and takes a head', () => {
    expect(Array.from(repeatRow({ rows: 2, cols: 2, data: Float32Array.of(1, 2, 3, 4) }, 1, 3).data)).toEqual([3, 4, 3, 4, 3, 4]);
    expect(diagonalSpread({ rows: 2, cols: 2, data: Float32Array.of(1, 5, 0, 1) })).toBe(0);
    expect(diagonalSpread({ rows: 2, cols: 2, data: Float32Array.of(1, 5, 0, 3) })).toBe(2);
    expect(Array.from(headSlice({ shape: [1, 2, 1, 2], data: Float32Array.of(1, 2, 3, 4) }, 1).data)).toEqual([3, 4]);
    expect(meanDistance({ rows: 2, cols: 2, data: Float32Array.of(1, 0, 0.5, 0.5) })).toBe(0.25);
    expect([slopeText(0.25), slopeText(1 / 256), slopeText(0.7071067690849304)]).toEqual(['1/4', '1/256', '0.70710677']);
  });
});

describe.each(BUILDS)('$name build', ({ simd }) => {
  const model = buildModel({ sentence: 'one two three four five six', seed: 9, dK: 6 });

  it('RoPE: angles p·θ_i, the rotated pairs on circles, scores that depend on i − j only', async () => {
    const lab = await loadLab(simd);
    const proj = headProjections(lab, model);
    const [base, shift] = [100, 7];
    const r = ropeRun(lab, proj, { base, shift });
    const P = ROPE_POSITIONS;
    expectClose(r.angles, Array.from({ length: P }, (_, p) => [0, 1, 2].map((i) => p * base ** ((-2 * i) / 6))));
    const q = R.fromMatrix(proj.Q)[0];
    const k = R.fromMatrix(proj.K)[1];
    expectClose(r.q, Array.from({ length: P }, (_, p) => rotate(q, p, base)));
    const S = Array.from({ length: P }, (_, i) => Array.from({ length: P }, (_, j) => dot(rotate(q, i, base), rotate(k, j, base))));
    expectClose(r.scores, S);
    expectClose(r.shifted, S);
    expect(r.spread).toBeLessThan(1e-5);
    expect(r.moved).toBeLessThan(1e-5);
    expect(r.plain).toBeCloseTo(dot(q, k), 5);
    for (let i = 0; i < 3; i++) {
      const radii = pairPoints(r.q, i).map(([x, y]) => Math.hypot(x, y));
      for (const rr of radii) expect(rr).toBeCloseTo(Math.hypot(q[i], q[i + 3]), 5);
    }
  });

  it('RoPE’s two pairings: rotate-half by default (as the section draws), RoFormer’s (2i, 2i + 1) the same rotation with the columns permuted', async () => {
    const lab = await loadLab(simd);
    const d = 6;
    const X = { rows: 4, cols: d, data: Float32Array.from({ length: 4 * d }, (_, k) => Math.sin(k + 1)) };
    const rows = R.fromMatrix(X);
    // Default: coordinates i and i + d/2 turn together.
    expectClose(lab.rotaryEmbedding(X, { base: 100 }), rows.map((v, p) => rotate(v, p, 100)));
    // Interleaved: list coordinates as (0, 3, 1, 4, 2, 5) — pair i at 2i, 2i + 1 — rotate, and list them back.
    const order = [0, 3, 1, 4, 2, 5];
    const permute = (M) => ({ rows: M.rows, cols: d, data: Float32Array.from({ length: M.rows * d }, (_, k) => M.data[Math.floor(k / d) * d + order[k % d]]) });
    const unpermute = (M) => ({ rows: M.rows, cols: d, data: Float32Array.from({ length: M.rows * d }, (_, k) => M.data[Math.floor(k / d) * d + order.indexOf(k % d)]) });
    expectClose(unpermute(lab.rotaryEmbedding(permute(X), { base: 100, interleaved: true })), rows.map((v, p) => rotate(v, p, 100)));
  });

  it('ALiBi: the paper’s slopes, −m·(i − j) per head, and causal weights softmax(S − m·(i − j))', async () => {
    const lab = await loadLab(simd);
    const proj = headProjections(lab, model);
    const r = alibiRun(lab, proj, 4);
    expect(r.slopes).toEqual([1 / 4, 1 / 16, 1 / 64, 1 / 256]);
    const ref = R.fromMatrix(proj.Q);
    const K = R.fromMatrix(proj.K);
    const S = R.matmul(ref, R.transpose(K)).map((row) => row.map((x) => x / Math.sqrt(6)));
    const visible = R.visibility('causal', 6, 6);
    r.heads.forEach((head, h) => {
      const m = r.slopes[h];
      expect(Array.from(head.mask)).toEqual(visible.flat().map(Number));
      for (let i = 0; i < 6; i++) for (let j = 0; j <= i; j++) expect(head.bias.data[i * 6 + j]).toBeCloseTo(-m * (i - j), 7);
      const W = R.maskedSoftmax(S.map((row, i) => row.map((x, j) => x - m * (i - j))), visible);
      expectClose(head.weights, W);
      expect(head.distance).toBeCloseTo(W.reduce((a, row, i) => a + row.reduce((b, w, j) => b + w * (i - j), 0), 0) / 6, 5);
    });
    // A steeper slope looks less far back.
    expect(r.heads[0].distance).toBeLessThan(r.heads[3].distance);
    expectClose(r.plainWeights, R.maskedSoftmax(S, visible));
  });
});
