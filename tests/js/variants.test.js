// The efficient attention variants (local, linear, Linformer) against the
// float64 reference on both builds, including window and tile edges.
import { beforeAll, describe, expect, it } from 'vitest';

import { AttentionError } from '../../dist/node.js';
import { BUILDS, SIZES, expectClose, loadLab, randomMatrix, ref, rng, thrown } from './helpers.js';
import * as R from './reference.js';

describe.each(BUILDS)('efficient attention variants ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  const qkv = (seed, n, m, d, dv) => {
    const rand = rng(seed);
    return [randomMatrix(rand, n, d), randomMatrix(rand, m, d), randomMatrix(rand, m, dv)];
  };

  describe('localAttention', () => {
    const cases = SIZES.flatMap((n) => [1, 2, 5, 64].map((w) => [n, w]));
    it.each(cases)('n=%i, window %i, symmetric and causal, match the reference', (n, window) => {
      const [Q, K, V] = qkv(n * 100 + window, n, n, 8, 5);
      for (const causal of [false, true]) {
        const want = R.local(ref(Q), ref(K), ref(V), { window, causal });
        const got = lab.localAttention(Q, K, V, { window, causal, trace: true });
        expectClose(got.output, want.output, { label: `causal ${causal} output` });
        expectClose(got.weights, want.weights, { label: `causal ${causal} weights` });
        for (let i = 0; i < n; i++)
          for (let j = 0; j < n; j++) if (!want.visible[i][j]) expect(got.weights.data[i * n + j]).toBe(0);
        const untraced = lab.localAttention(Q, K, V, { window, causal });
        expect(untraced.weights).toBeUndefined();
        expectClose(untraced.output, want.output, { label: 'untraced output' });
      }
    });

    it('a window covering the sequence is full attention; causal equals the causal mask', () => {
      const [Q, K, V] = qkv(7, 17, 17, 4, 3);
      const full = lab.scaledDotProductAttention(Q, K, V);
      expectClose(lab.localAttention(Q, K, V, { window: 17 }).output, R.fromMatrix(full.output), { atol: 1e-6, rtol: 1e-5 });
      const causal = lab.scaledDotProductAttention(Q, K, V, { mask: 'causal' });
      expectClose(lab.localAttention(Q, K, V, { window: 1000, causal: true }).output, R.fromMatrix(causal.output), { atol: 1e-6, rtol: 1e-5 });
    });

    it('window 1 returns V itself', () => {
      const [Q, K, V] = qkv(8, 9, 9, 4, 3);
      expectClose(lab.localAttention(Q, K, V, { window: 1 }).output, ref(V), { atol: 1e-7, rtol: 0 });
    });

    it('honours a scale override', () => {
      const [Q, K, V] = qkv(9, 12, 12, 6, 2);
      const want = R.local(ref(Q), ref(K), ref(V), { window: 3, scale: 1 });
      expectClose(lab.localAttention(Q, K, V, { window: 3, scale: 1 }).output, want.output);
    });
  });

  describe('linearAttention', () => {
    const cases = [
      [1, 1, 1, 1],
      [3, 3, 4, 5],
      [4, 4, 8, 3],
      [5, 5, 3, 17],
      [17, 17, 5, 4],
      [64, 64, 8, 8],
      [65, 65, 17, 3],
      [5, 17, 4, 3], // cross (not causal)
      [17, 3, 8, 5],
    ];
    it.each(cases)('n=%i, m=%i, d=%i, d_v=%i matches the reference', (n, m, d, dv) => {
      const [Q, K, V] = qkv(n * 1000 + m * 10 + d, n, m, d, dv);
      for (const causal of n === m ? [false, true] : [false]) {
        const want = R.linear(ref(Q), ref(K), ref(V), { causal });
        const got = lab.linearAttention(Q, K, V, { causal, trace: true });
        expectClose(got.output, want.output, { label: `causal ${causal} output` });
        expectClose(got.weights, want.weights, { label: `causal ${causal} weights` });
        expectClose(lab.linearAttention(Q, K, V, { causal }).output, want.output, { label: 'untraced' });
      }
    });

    it('causal weights are exactly 0 above the diagonal', () => {
      const [Q, K, V] = qkv(3, 9, 9, 4, 2);
      const W = lab.linearAttention(Q, K, V, { causal: true, trace: true }).weights;
      for (let i = 0; i < 9; i++) for (let j = i + 1; j < 9; j++) expect(W.data[i * 9 + j]).toBe(0);
    });

    it('causal with n ≠ m is an error naming both shapes', () => {
      const [Q, K, V] = qkv(4, 3, 5, 2, 2);
      const e = thrown(() => lab.linearAttention(Q, K, V, { causal: true }));
      expect(e).toBeInstanceOf(AttentionError);
      expect(e.code).toBe('SHAPE_MISMATCH');
      expect(e.message).toMatch(/^linearAttention: .*3×2.*5×2/);
    });
  });

  describe('linformerAttention', () => {
    const cases = [
      [1, 1, 1, 4, 1],
      [3, 5, 4, 4, 3],
      [5, 17, 8, 3, 4],
      [17, 64, 4, 5, 8],
      [64, 65, 8, 8, 17],
      [65, 8, 17, 3, 1],
    ];
    it.each(cases)('n=%i, m=%i, d=%i, d_v=%i, p=%i matches the reference', (n, m, d, dv, p) => {
      const rand = rng(n + m + d + dv + p);
      const [Q, K, V] = [randomMatrix(rand, n, d), randomMatrix(rand, m, d), randomMatrix(rand, m, dv)];
      const [E, F] = [randomMatrix(rand, p, m, -0.3, 0.3), randomMatrix(rand, p, m, -0.3, 0.3)];
      const want = R.linformer(ref(Q), ref(K), ref(V), { E: ref(E), F: ref(F) });
      const got = lab.linformerAttention(Q, K, V, { E, F, trace: true });
      expect([got.weights.rows, got.weights.cols]).toEqual([n, p]);
      expectClose(got.weights, want.weights, { label: 'weights' });
      expectClose(got.output, want.output, { label: 'output' });
      expectClose(lab.linformerAttention(Q, K, V, { E, F, scale: 1 }).output, R.linformer(ref(Q), ref(K), ref(V), { E: ref(E), F: ref(F), scale: 1 }).output, { label: 'scale 1' });
    });

    it('with E = F = identity it is full attention', () => {
      const [Q, K, V] = qkv(12, 6, 6, 4, 3);
      const I = Array.from({ length: 6 }, (_, i) => Array.from({ length: 6 }, (_, j) => (i === j ? 1 : 0)));
      const full = lab.scaledDotProductAttention(Q, K, V);
      expectClose(lab.linformerAttention(Q, K, V, { E: I, F: I }).output, R.fromMatrix(full.output), { atol: 1e-6, rtol: 1e-5 });
    });

    it('E of the wrong width is an error naming both shapes', () => {
      const [Q, K, V] = qkv(13, 4, 6, 3, 2);
      const e = thrown(() => lab.linformerAttention(Q, K, V, { E: randomMatrix(rng(1), 2, 5), F: randomMatrix(rng(2), 2, 6) }));
      expect(e).toBeInstanceOf(AttentionError);
      expect(e.code).toBe('SHAPE_MISMATCH');
      expect(e.message).toMatch(/^linformerAttention: .*6×3.*2×5/);
    });
  });

  it.each([
    ['localAttention without window', (lab, Q) => lab.localAttention(Q, Q, Q, {}), 'INVALID_ARGUMENT', /^localAttention: .*window/],
    ['localAttention window 0', (lab, Q) => lab.localAttention(Q, Q, Q, { window: 0 }), 'INVALID_ARGUMENT', /^localAttention: .*window.*0/],
    ['localAttention n ≠ m', (lab, Q) => lab.localAttention(Q, [[1, 2]], [[1]], { window: 2 }), 'SHAPE_MISMATCH', /^localAttention: .*3×2.*1×2/],
    ['localAttention unknown option', (lab, Q) => lab.localAttention(Q, Q, Q, { window: 2, size: 3 }), 'INVALID_ARGUMENT', /^localAttention: unknown option size\b/],
    ['linearAttention causal not boolean', (lab, Q) => lab.linearAttention(Q, Q, Q, { causal: 'yes' }), 'INVALID_ARGUMENT', /^linearAttention: .*causal/],
    ['linformerAttention without E', (lab, Q) => lab.linformerAttention(Q, Q, Q, { F: [[1, 0, 0]] }), 'INVALID_ARGUMENT', /^linformerAttention: .*E/],
    ['linformerAttention F shape ≠ E shape', (lab, Q) => lab.linformerAttention(Q, Q, Q, { E: [[1, 0, 0]], F: [[1, 0, 0], [0, 1, 0]] }), 'SHAPE_MISMATCH', /^linformerAttention: .*1×3.*2×3/],
  ])('%s is an AttentionError with the right code and message', (_, call, code, pattern) => {
    const Q = [[1, 2], [3, 4], [5, 6]];
    const e = thrown(() => call(lab, Q));
    expect(e).toBeInstanceOf(AttentionError);
    expect(e.code).toBe(code);
    expect(e.message).toMatch(pattern);
    expectClose(lab.localAttention(Q, Q, Q, { window: 1 }).output, Q, { atol: 1e-7, rtol: 0 });
  });
});
