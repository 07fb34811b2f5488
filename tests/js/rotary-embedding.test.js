// Rotary position embedding on both builds: both pairings against the rotation
// written in float64, every input kind (matrix, heads side by side, 4-D, 3-D,
// nested arrays) giving the same kind back, the angles, the property that makes
// RoPE relative (the score of a rotated q and k depends on i − j only, over
// random vectors and positions), decoding with an offset equal to the same rows
// of a longer call and to full causal attention through a KV cache, and every
// bad input refused with an error naming the value.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

import { toRowsMajor } from './batched-reference.js';
import { BUILDS, expectClose, loadLab, randomMatrix, rng, thrown } from './helpers.js';

// The rotation of each row (positions offset, offset + 1, …), from the definition, in float64.
function reference(x, n, d, { base = 10000, offset = 0, interleaved = false } = {}) {
  const y = new Float64Array(n * d);
  for (let r = 0; r < n; r++)
    for (let i = 0; i < d / 2; i++) {
      const angle = (offset + r) / base ** ((2 * i) / d);
      const [a, b] = interleaved ? [2 * i, 2 * i + 1] : [i, i + d / 2];
      const [xa, xb] = [x[r * d + a], x[r * d + b]];
      y[r * d + a] = xa * Math.cos(angle) - xb * Math.sin(angle);
      y[r * d + b] = xa * Math.sin(angle) + xb * Math.cos(angle);
    }
  return y;
}
const dot = (a, b) => a.reduce((s, x, t) => s + x * b[t], 0);
const TIGHT = { atol: 1e-6, rtol: 1e-6 };

describe.each(BUILDS)('rotaryEmbedding ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  it.each([
    [1, 2], [3, 4], [5, 8], [17, 6], [8, 64], [65, 18], [4, 130],
  ])('n=%i, d=%i: both pairings match the float64 rotation at several offsets and bases', (n, d) => {
    const X = randomMatrix(rng(n * 131 + d), n, d, -2, 2);
    for (const interleaved of [false, true])
      for (const offset of [0, 9, 100000])
        for (const base of [10000, 500000, 1]) {
          const got = lab.rotaryEmbedding(X, { interleaved, offset, base });
          expect([got.rows, got.cols]).toEqual([n, d]);
          expectClose(got.data, reference(X.data, n, d, { interleaved, offset, base }), { ...TIGHT, label: `interleaved ${interleaved}, offset ${offset}, base ${base}` });
        }
  });

  it('rotates (1, 0) at position 1 by one radian, and leaves position 0 alone', () => {
    const y = lab.rotaryEmbedding([[1, 0], [1, 0]]);
    expect(Array.from(y.data)).toEqual([1, 0, Math.cos(1), Math.sin(1)].map(Math.fround));
    // d = 4: rotate-half pairs (0, 2) and (1, 3); interleaved pairs (0, 1) and (2, 3)
    expect(Array.from(lab.rotaryEmbedding([[1, 1, 0, 0]], { offset: 1 }).data)).toEqual([Math.cos(1), Math.cos(0.01), Math.sin(1), Math.sin(0.01)].map(Math.fround));
    expect(Array.from(lab.rotaryEmbedding([[1, 1, 0, 0]], { offset: 1, interleaved: true }).data)).toEqual([Math.cos(1) - Math.sin(1), Math.sin(1) + Math.cos(1), 0, 0].map(Math.fround));
  });

  it('gives back what it was given: a matrix, a 4-D or a 3-D tensor, all rotated alike', () => {
    const [B, H, n, d] = [2, 3, 4, 6];
    const data = randomMatrix(rng(3), 1, B * H * n * d).data;
    const four = lab.rotaryEmbedding({ shape: [B, H, n, d], data }, { offset: 2 });
    expect(four.shape).toEqual([B, H, n, d]);
    expect(four.rows).toBeUndefined();
    const three = lab.rotaryEmbedding({ shape: [B, n, H * d], data: toRowsMajor(data, B, H, n, d) }, { heads: H, offset: 2 });
    expect(three.shape).toEqual([B, n, H * d]);
    expect(Array.from(three.data)).toEqual(Array.from(toRowsMajor(four.data, B, H, n, d)));
    for (let p = 0; p < B * H; p++) {
      const plane = data.subarray(p * n * d, (p + 1) * n * d);
      expectClose(four.data.subarray(p * n * d, (p + 1) * n * d), reference(plane, n, d, { offset: 2 }), TIGHT);
    }
    // one batch entry as a matrix n × (heads·d), and as nested arrays
    const rows = three.data.subarray(0, n * H * d);
    const matrix = lab.rotaryEmbedding({ rows: n, cols: H * d, data: toRowsMajor(data, B, H, n, d).subarray(0, n * H * d) }, { heads: H, offset: 2 });
    expect([matrix.rows, matrix.cols]).toEqual([n, H * d]);
    expect(Array.from(matrix.data)).toEqual(Array.from(rows));
    const nested = Array.from({ length: B }, (_, b) => Array.from({ length: H }, (_, h) => Array.from({ length: n }, (_, i) => Array.from(data.subarray(((b * H + h) * n + i) * d, ((b * H + h) * n + i + 1) * d)))));
    expect(Array.from(lab.rotaryEmbedding(nested, { offset: 2 }).data)).toEqual(Array.from(four.data));
    // 3-D nested arrays whose rows are Float32Arrays [batch][n] of heads·d
    const packed = toRowsMajor(data, B, H, n, d);
    const typedRows = Array.from({ length: B }, (_, b) => Array.from({ length: n }, (_, i) => packed.slice((b * n + i) * H * d, (b * n + i + 1) * H * d)));
    expect(Array.from(lab.rotaryEmbedding(typedRows, { offset: 2, heads: H }).data)).toEqual(Array.from(three.data));
    expect(lab.rotaryEmbedding({ shape: [B, H, n, d], data }, { heads: H }).shape).toEqual([B, H, n, d]);
    // float16 bits are taken exactly
    const halves = lab.rotaryEmbedding({ shape: [1, 1, 1, 2], data: Uint16Array.of(0x3c00, 0x0000), dtype: 'float16' }, { offset: 1 });
    expect(Array.from(halves.data)).toEqual([Math.cos(1), Math.sin(1)].map(Math.fround));
  });

  it('handles empty inputs: no rows, no width, no batch', () => {
    expect(lab.rotaryEmbedding({ rows: 0, cols: 4, data: [] })).toMatchObject({ rows: 0, cols: 4 });
    expect(lab.rotaryEmbedding({ rows: 3, cols: 0, data: [] })).toMatchObject({ rows: 3, cols: 0 });
    expect(lab.rotaryEmbedding({ shape: [0, 2, 3, 4], data: [] }).shape).toEqual([0, 2, 3, 4]);
  });

  it('keeps the length of every pair', () => {
    const X = randomMatrix(rng(11), 30, 16, -3, 3);
    for (const interleaved of [false, true]) {
      const Y = lab.rotaryEmbedding(X, { interleaved, offset: 5 });
      for (let r = 0; r < 30; r++)
        for (let i = 0; i < 8; i++) {
          const [a, b] = (interleaved ? [2 * i, 2 * i + 1] : [i, i + 8]).map((c) => r * 16 + c);
          expect(Math.hypot(Y.data[a], Y.data[b])).toBeCloseTo(Math.hypot(X.data[a], X.data[b]), 5);
        }
    }
  });

  // RoPE's point: rotating q by iθ and k by jθ makes q_rot·k_rot a function of q, k and i − j.
  it('makes the score of a rotated q and k depend only on i − j (property, random vectors and positions)', () => {
    const vector = (d) => fc.array(fc.float({ min: -2, max: 2, noNaN: true }), { minLength: d, maxLength: d }).map((a) => Float32Array.from(a));
    const pos = fc.integer({ min: 0, max: 5000 });
    const arb = fc.integer({ min: 1, max: 12 }).chain((half) => fc.record({ d: fc.constant(2 * half), q: vector(2 * half), k: vector(2 * half), i: pos, j: pos, shift: pos, interleaved: fc.boolean(), base: fc.constantFrom(10000, 500000, 10) }));
    fc.assert(fc.property(arb, ({ d, q, k, i, j, shift, interleaved, base }) => {
      const score = (pq, pk) => dot(lab.rotaryEmbedding({ rows: 1, cols: d, data: q }, { offset: pq, interleaved, base }).data, lab.rotaryEmbedding({ rows: 1, cols: d, data: k }, { offset: pk, interleaved, base }).data);
      const s = score(i, j);
      const norms = Math.hypot(...q) * Math.hypot(...k);
      expect(Math.abs(score(i + shift, j + shift) - s)).toBeLessThanOrEqual(4e-6 * (1 + norms));
      // and it is the score of q against k turned by the distance alone: q·R((j − i)θ)k, in float64
      expect(Math.abs(s - dot(q, reference(k, 1, d, { offset: j - i, interleaved, base })))).toBeLessThanOrEqual(4e-6 * (1 + norms));
      // the same distance from the other side is the transposed rotation, R(−t): q·R(t)k = k·R(−t)q
      expect(Math.abs(score(j, i) - dot(lab.rotaryEmbedding({ rows: 1, cols: d, data: k }, { offset: i, interleaved, base }).data, lab.rotaryEmbedding({ rows: 1, cols: d, data: q }, { offset: j, interleaved, base }).data))).toBeLessThanOrEqual(4e-6 * (1 + norms));
    }), { numRuns: 150, seed: 15 });
  });

  it('rotates rows at an offset exactly as the same rows of a longer call (decoding)', () => {
    const [n, d] = [24, 10];
    const X = randomMatrix(rng(21), n, d);
    for (const interleaved of [false, true]) {
      const full = lab.rotaryEmbedding(X, { interleaved });
      for (const past of [1, 8, 23]) {
        const tail = { rows: n - past, cols: d, data: X.data.subarray(past * d) };
        expect(Array.from(lab.rotaryEmbedding(tail, { offset: past, interleaved }).data)).toEqual(Array.from(full.data.subarray(past * d)));
      }
    }
  });

  it('decoding through a KV cache with the offset equals full causal attention on rotated queries and keys', () => {
    const [B, H, G, n, d, dv, past] = [1, 4, 2, 9, 8, 3, 6];
    const rand = rng(99);
    const q = randomMatrix(rand, 1, B * H * n * d).data, k = randomMatrix(rand, 1, B * G * n * d).data, v = randomMatrix(rand, 1, B * G * n * dv).data;
    const rows = (x, heads, width, from, to) => {
      const out = [];
      for (let h = 0; h < heads; h++) out.push(...x.subarray((h * n + from) * width, (h * n + to) * width));
      return { shape: [B, heads, to - from, width], data: Float32Array.from(out) };
    };
    const rope = (t, offset) => lab.rotaryEmbedding(t, { offset });
    const full = lab.batchedAttention(rope(rows(q, H, d, 0, n), 0), rope(rows(k, G, d, 0, n), 0), rows(v, G, dv, 0, n), { causal: true });
    // the cache holds the first `past` keys, rotated when they were new (positions 0 … past − 1)
    const cache = { pastKey: rope(rows(k, G, d, 0, past), 0), pastValue: rows(v, G, dv, 0, past) };
    const step = lab.batchedAttention(rope(rows(q, H, d, past, n), past), rope(rows(k, G, d, past, n), past), rows(v, G, dv, past, n), { causal: true, ...cache });
    for (let h = 0; h < H; h++)
      expectClose(step.output.data.subarray(h * (n - past) * dv, (h + 1) * (n - past) * dv), full.output.data.subarray((h * n + past) * dv, (h + 1) * n * dv), { atol: 1e-6, rtol: 1e-5, label: `head ${h}` });
    // without the offset the new rows sit at positions 0, 1, …: a different (wrong) answer
    const wrong = lab.batchedAttention(rope(rows(q, H, d, past, n), 0), rope(rows(k, G, d, past, n), 0), rows(v, G, dv, past, n), { causal: true, ...cache });
    expect(Math.max(...wrong.output.data.map((x, t) => Math.abs(x - step.output.data[t])))).toBeGreaterThan(1e-3);
  });
});

describe.each(BUILDS)('rotaryAngles ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  it.each([[5, 2], [7, 8], [3, 64], [0, 4], [4, 0]])('n=%i, d=%i: (offset + r)·base^(−2i/d)', (n, d) => {
    for (const [base, offset] of [[10000, 0], [100, 7]]) {
      const got = lab.rotaryAngles(n, d, { base, offset });
      const want = Array.from({ length: n }, (_, r) => Array.from({ length: d / 2 }, (_, i) => (offset + r) * base ** ((-2 * i) / d)));
      expect([got.rows, got.cols]).toEqual([n, d / 2]);
      expectClose(got.data, Float64Array.from(want.flat()), { atol: 1e-7, rtol: 1e-7 });
    }
  });

  it('are the angles rotaryEmbedding turns each pair by', () => {
    const angles = lab.rotaryAngles(6, 8, { offset: 3 });
    const unit = { rows: 6, cols: 8, data: Float32Array.from({ length: 48 }, (_, t) => (t % 8 < 4 ? 1 : 0)) };
    const y = lab.rotaryEmbedding(unit, { offset: 3 });
    for (let r = 0; r < 6; r++)
      for (let i = 0; i < 4; i++) expect(Math.atan2(y.data[r * 8 + i + 4], y.data[r * 8 + i])).toBeCloseTo(Math.atan2(Math.sin(angles.data[r * 4 + i]), Math.cos(angles.data[r * 4 + i])), 5);
  });
});

describe.each(BUILDS)('rotary errors ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });
  const X = [[1, 2, 3, 4]];

  it.each([
    ['an odd width', () => lab.rotaryEmbedding([[1, 2, 3]]), 'INVALID_ARGUMENT', /width d = 3.*must be even/],
    ['an odd head width', () => lab.rotaryEmbedding({ shape: [1, 2, 1, 5], data: new Float32Array(10) }), 'INVALID_ARGUMENT', /\[1, 2, 1, 5\].*d = 5/],
    ['an odd width per head (3-D)', () => lab.rotaryEmbedding({ shape: [1, 1, 6], data: new Float32Array(6) }, { heads: 2 }), 'INVALID_ARGUMENT', /d = 3/],
    ['odd angles', () => lab.rotaryAngles(3, 7), 'INVALID_ARGUMENT', /d is 7/],
    ['base 0', () => lab.rotaryEmbedding(X, { base: 0 }), 'INVALID_ARGUMENT', /base must be a positive number.*got 0/],
    ['base −2', () => lab.rotaryAngles(2, 2, { base: -2 }), 'INVALID_ARGUMENT', /got -2/],
    ['base NaN', () => lab.rotaryEmbedding(X, { base: NaN }), 'NON_FINITE', /base.*NaN/],
    ['base Infinity', () => lab.rotaryEmbedding(X, { base: Infinity }), 'NON_FINITE', /base.*Infinity/],
    ['offset −1', () => lab.rotaryEmbedding(X, { offset: -1 }), 'INVALID_ARGUMENT', /offset.*-1/],
    ['offset 1.5', () => lab.rotaryAngles(2, 2, { offset: 1.5 }), 'INVALID_ARGUMENT', /offset.*1\.5/],
    ['interleaved "yes"', () => lab.rotaryEmbedding(X, { interleaved: 'yes' }), 'INVALID_ARGUMENT', /interleaved.*"yes"/],
    ['a 3-D tensor without heads', () => lab.rotaryEmbedding({ shape: [1, 2, 4], data: new Float32Array(8) }), 'INVALID_ARGUMENT', /\[1, 2, 4\].*needs options\.heads/],
    ['heads not dividing the width', () => lab.rotaryEmbedding({ shape: [1, 2, 6], data: new Float32Array(12) }, { heads: 4 }), 'SHAPE_MISMATCH', /last size 6 is not a multiple of 4 heads/],
    ['heads not dividing a matrix', () => lab.rotaryEmbedding(X, { heads: 3 }), 'SHAPE_MISMATCH', /1×4.*not a multiple of 3 heads/],
    ['heads against a 4-D shape', () => lab.rotaryEmbedding({ shape: [1, 2, 1, 2], data: new Float32Array(4) }, { heads: 3 }), 'SHAPE_MISMATCH', /heads is 3.*\[1, 2, 1, 2\]/],
    ['heads 0', () => lab.rotaryEmbedding(X, { heads: 0 }), 'INVALID_ARGUMENT', /heads.*0/],
    ['a 5-D tensor', () => lab.rotaryEmbedding({ shape: [1, 1, 1, 1, 2], data: new Float32Array(2) }), 'SHAPE_MISMATCH', /\[1, 1, 1, 1, 2\]/],
    ['null', () => lab.rotaryEmbedding(null), 'INVALID_MATRIX', /got null/],
    ['a string', () => lab.rotaryEmbedding('x'), 'INVALID_MATRIX', /got string/],
    ['a NaN entry', () => lab.rotaryEmbedding([[1, NaN]]), 'NON_FINITE', /X\[0\]\[1\] is NaN/],
    ['an unknown option', () => lab.rotaryEmbedding(X, { theta: 2 }), 'INVALID_ARGUMENT', /unknown option theta\b/],
    ['an option of the angles it does not take', () => lab.rotaryAngles(2, 2, { interleaved: true }), 'INVALID_ARGUMENT', /unknown option interleaved\b/],
    ['n −1', () => lab.rotaryAngles(-1, 2), 'INVALID_ARGUMENT', /n must be.*-1/],
    ['entries near float32\'s limit', () => lab.rotaryEmbedding([[3e38, 3e38]], { offset: 1 }), 'OVERFLOW', /overflowed float32/],
  ])('refuses %s', (_, call, code, message) => {
    const error = thrown(call);
    expect(error.name).toBe('AttentionError');
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });
});
