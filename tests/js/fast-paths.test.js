// The fast paths of the public API on both builds: scaled dot-product
// attention with weights: false (fused, online softmax, no n×m matrix) and the
// packed multi-head layer (createMultiHeadAttention), against the float64
// reference and against the plain paths, at tile edges and with fully masked rows.
import { beforeAll, describe, expect, it } from 'vitest';

import { AttentionError } from '../../dist/node.js';
import { BUILDS, SIZES, expectClose, randomBits, randomMatrix, ref, rng, thrown, initWithMemory } from './helpers.js';
import * as R from './reference.js';


const masksFor = (rand, n, m) => [undefined, 'causal', { validLens: Array.from({ length: n }, (_, i) => (i * 5) % (m + 1)) }, randomBits(rand, n, m, 0.3)];

describe.each(BUILDS)('fast paths ($name build)', ({ simd }) => {
  let lab;
  let memory;
  beforeAll(async () => {
    ({ lab, memory } = await initWithMemory(simd));
  });

  describe('scaledDotProductAttention as users call it (untraced, weights returned: the blocked kernel)', () => {
    // 4-row blocks with leftovers, 8-key panels and 64-key value chunks crossed, K larger than 4096 floats
    const shapes = [[7, 65, 8, 13], [6, 129, 64, 64], [9, 200, 64, 3], [1, 1, 1, 1], [130, 70, 16, 9]];
    it.each(shapes)('n=%i, m=%i, d=%i, d_v=%i: weights and output match the reference and the traced call', (n, m, d, dv) => {
      const rand = rng(n * 104729 + m * 131 + d * 7 + dv);
      const [Q, K, V] = [randomMatrix(rand, n, d), randomMatrix(rand, m, d), randomMatrix(rand, m, dv)];
      for (const mask of masksFor(rand, n, m)) {
        const label = `mask ${JSON.stringify(mask)?.slice(0, 30)}`;
        const got = lab.scaledDotProductAttention(Q, K, V, { mask });
        const want = R.scaledDotProduct(ref(Q), ref(K), ref(V), { mask });
        expectClose(got.weights, want.weights, { label: `${label} weights` });
        expectClose(got.output, want.output, { label: `${label} output` });
        const traced = lab.scaledDotProductAttention(Q, K, V, { mask, trace: true });
        expectClose(got.weights, ref(traced.weights), { atol: 1e-6, rtol: 1e-5, label: `${label} weights vs traced` });
        want.visible.forEach((row, i) => {
          if (!row.some(Boolean)) expect(Array.from(got.output.data.subarray(i * dv, (i + 1) * dv))).toEqual(new Array(dv).fill(0));
        });
      }
    });
  });

  describe('scaledDotProductAttention with weights: false', () => {
    const shapes = [...SIZES.map((s) => [s, s, s, s]), [1, 200, 64, 8], [200, 1, 8, 3], [33, 129, 16, 65], [130, 70, 64, 64], [5, 300, 3, 1]];
    it.each(shapes)('n=%i, m=%i, d=%i, d_v=%i matches the reference with every mask kind', (n, m, d, dv) => {
      const rand = rng(n * 7919 + m * 31 + d + dv);
      const [Q, K, V] = [randomMatrix(rand, n, d), randomMatrix(rand, m, d), randomMatrix(rand, m, dv)];
      for (const mask of masksFor(rand, n, m)) {
        const got = lab.scaledDotProductAttention(Q, K, V, { mask, weights: false });
        expect(Object.keys(got)).toEqual(['output']);
        const want = R.scaledDotProduct(ref(Q), ref(K), ref(V), { mask });
        expectClose(got.output, want.output, { label: `mask ${JSON.stringify(mask)?.slice(0, 30)}` });
        // fully masked rows: exactly zero
        want.visible.forEach((row, i) => {
          if (!row.some(Boolean)) expect(Array.from(got.output.data.subarray(i * dv, (i + 1) * dv))).toEqual(new Array(dv).fill(0));
        });
      }
    });

    it('agrees with the weights path and honours scale', () => {
      const rand = rng(5);
      const [Q, K, V] = [randomMatrix(rand, 40, 16), randomMatrix(rand, 50, 16), randomMatrix(rand, 50, 7)];
      for (const scale of [undefined, 1, 0.01]) {
        const a = lab.scaledDotProductAttention(Q, K, V, { scale, mask: 'causal', weights: false });
        const b = lab.scaledDotProductAttention(Q, K, V, { scale, mask: 'causal' });
        expectClose(a.output, R.fromMatrix(b.output), { atol: 1e-6, rtol: 1e-5, label: `scale ${scale}` });
      }
      expectClose(lab.scaledDotProductAttention(Q, K, V, { weights: true }).weights, R.scaledDotProduct(ref(Q), ref(K), ref(V)).weights);
    });

    it('stays finite for scores of ±1e4', () => {
      const Q = [[100, 100, 100, 100], [-100, 50, 0, 100]];
      const K = [[100, 100, 100, 100], [-100, -100, -100, -100], [0, 0, 0, 0]];
      const V = [[1, 2], [3, 4], [5, 6]];
      const got = lab.scaledDotProductAttention(Q, K, V, { weights: false });
      expect(got.output.data.every(Number.isFinite)).toBe(true);
      expectClose(got.output, R.scaledDotProduct(Q, K, V).output, { atol: 1e-5 });
    });

    it('rejects trace: true together with weights: false', () => {
      const e = thrown(() => lab.scaledDotProductAttention([[1]], [[1]], [[1]], { weights: false, trace: true }));
      expect(e).toBeInstanceOf(AttentionError);
      expect(e.code).toBe('INVALID_ARGUMENT');
      expect(e.message).toMatch(/^scaledDotProductAttention: .*trace.*weights/);
    });
  });

  describe('createMultiHeadAttention', () => {
    function weights(rand, dm, heads, dk, dv, dout) {
      return { heads, Wq: randomMatrix(rand, dm, heads * dk), Wk: randomMatrix(rand, dm, heads * dk), Wv: randomMatrix(rand, dm, heads * dv), Wo: randomMatrix(rand, heads * dv, dout) };
    }
    const refW = (w) => ({ heads: w.heads, Wq: ref(w.Wq), Wk: ref(w.Wk), Wv: ref(w.Wv), Wo: ref(w.Wo) });

    const shapes = [
      // n, d_model, heads, d_k, d_v, d_out
      [1, 4, 2, 2, 2, 4],
      [3, 8, 4, 2, 3, 8],
      [5, 17, 1, 17, 5, 3],
      [17, 16, 2, 8, 8, 16],
      [64, 32, 4, 8, 8, 32],
      [65, 12, 3, 4, 4, 5],
      [130, 16, 2, 8, 8, 16],
    ];
    it.each(shapes)('n=%i, d_model=%i, heads=%i, d_k=%i, d_v=%i, d_out=%i: forward matches the reference and multiHeadAttention', (n, dm, heads, dk, dv, dout) => {
      const rand = rng(n * 1000 + dm * 10 + heads);
      const w = weights(rand, dm, heads, dk, dv, dout);
      const X = randomMatrix(rand, n, dm);
      const layer = lab.createMultiHeadAttention(w);
      expect([layer.heads, layer.dModel, layer.dOut]).toEqual([heads, dm, dout]);
      for (const mask of masksFor(rand, n, n)) {
        const want = R.multiHead(ref(X), { ...refW(w), mask });
        const got = layer.forward(X, { mask });
        expect(Object.keys(got).sort()).toEqual(['concat', 'output']);
        expectClose(got.output, want.output, { label: 'output' });
        expectClose(got.concat, want.concat, { label: 'concat' });
      }
      const traced = layer.forward(X, { mask: 'causal', trace: true });
      const oneShot = lab.multiHeadAttention(X, { ...w, mask: 'causal', trace: true });
      expectClose(traced.output, R.fromMatrix(oneShot.output), { atol: 1e-6, rtol: 1e-5 });
      expect(traced.steps.map((s) => s.id)).toEqual(['Q', 'K', 'V', 'concat', 'output']);
      expect(traced.heads).toHaveLength(heads);
      layer.dispose();
    });

    it('a batch [batch, n, d_model] with one length per sequence: each sequence as the float64 reference with its padding hidden', () => {
      const rand = rng(57);
      const [batch, n, dm] = [3, 6, 8];
      const w = weights(rand, dm, 2, 4, 3, 5);
      const layer = lab.createMultiHeadAttention(w);
      const X = { shape: [batch, n, dm], data: Float32Array.from({ length: batch * n * dm }, () => rand() * 2 - 1) };
      const sequence = (b) => ({ rows: n, cols: dm, data: X.data.slice(b * n * dm, (b + 1) * n * dm) });
      const lengths = [6, 4, 0];
      for (const [options, causal] of [[{ kvLengths: lengths }, false], [{ validLens: lengths, mask: 'causal' }, true], [{}, false]]) {
        const got = layer.forward(X, options);
        expect(got.output.shape).toEqual([batch, n, 5]);
        expect(got.concat.shape).toEqual([batch, n, 6]);
        for (let b = 0; b < batch; b++) {
          const len = options.kvLengths || options.validLens ? lengths[b] : n;
          // Keys from len on are padding: hidden from every query (and, causal, the later ones too).
          const mask = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (j < len && (!causal || j <= i) ? 1 : 0)));
          const want = R.multiHead(ref(sequence(b)), { ...refW(w), mask });
          const rows = (m, cols) => ({ rows: n, cols, data: m.data.subarray(b * n * cols, (b + 1) * n * cols) });
          expectClose(rows(got.output, 5), want.output, { label: `sequence ${b} output` });
          expectClose(rows(got.concat, 6), want.concat, { label: `sequence ${b} concat` });
        }
      }
      // The real rows of a padded sequence are the rows of the sequence alone, cut to its length.
      const alone = layer.forward({ rows: 4, cols: dm, data: X.data.slice(n * dm, n * dm + 4 * dm) }, { mask: 'causal' });
      const padded = layer.forward(X, { kvLengths: lengths, mask: 'causal' });
      expectClose({ rows: 4, cols: 5, data: padded.output.data.subarray(n * 5, n * 5 + 4 * 5) }, R.fromMatrix(alone.output), { atol: 1e-6, rtol: 1e-5 });
      for (const [options, message] of [
        [{ kvLengths: [6, 4] }, /kvLengths has 2 entries but the batch has 3 sequences/],
        [{ validLens: [6, 7, 0] }, /validLens\[1\] is 7; each length must be an integer from 0 to 6/],
        [{ kvLengths: lengths, validLens: lengths }, /give kvLengths or its alias validLens, not both/],
        [{ mask: { validLens: [1] } }, /a batch's mask is 'none' or 'causal'/],
        [{ trace: true }, /trace is for one sequence/],
      ]) expect(thrown(() => layer.forward(X, options))?.message).toMatch(message);
      expect(thrown(() => layer.forward({ shape: [1, 2, 7], data: new Float32Array(14) }))?.message).toMatch(/X has shape \[1, 2, 7\] but the layer's d_model is 8/);
      layer.dispose();
    });

    it('forward(X, { trace: true }) uses the weights given at creation after the caller mutates its weight arrays', () => {
      const rand = rng(91);
      const w = weights(rand, 8, 2, 4, 4, 8);
      const X = randomMatrix(rand, 5, 8);
      const layer = lab.createMultiHeadAttention(w);
      const before = layer.forward(X, { trace: true }).output.data.slice();
      w.Wq.data.fill(0);
      w.Wv.data.fill(2);
      const untraced = layer.forward(X).output.data;
      const traced = layer.forward(X, { trace: true }).output.data;
      expect(Array.from(traced)).toEqual(Array.from(before));
      for (let i = 0; i < traced.length; i++) expect(Math.abs(traced[i] - untraced[i])).toBeLessThan(1e-5);
      layer.dispose();
    });

    it('forward after dispose throws DISPOSED; dispose is idempotent; other layers keep working', () => {
      const rand = rng(77);
      const w = weights(rand, 8, 2, 4, 4, 8);
      const X = randomMatrix(rand, 5, 8);
      const [a, b] = [lab.createMultiHeadAttention(w), lab.createMultiHeadAttention(w)];
      const before = b.forward(X).output;
      a.dispose();
      a.dispose();
      const e = thrown(() => a.forward(X));
      expect(e).toBeInstanceOf(AttentionError);
      expect(e.code).toBe('DISPOSED');
      expect(Array.from(b.forward(X).output.data)).toEqual(Array.from(before.data));
      b.dispose();
    });

    it('validates its weights and its input like multiHeadAttention', () => {
      const rand = rng(78);
      const w = weights(rand, 8, 2, 4, 4, 8);
      const e1 = thrown(() => lab.createMultiHeadAttention({ ...w, heads: 3 }));
      expect(e1).toBeInstanceOf(AttentionError);
      expect(e1.code).toBe('SHAPE_MISMATCH');
      expect(e1.message).toMatch(/^createMultiHeadAttention: .*8×8.*3 heads/);
      const e2 = thrown(() => lab.createMultiHeadAttention({ ...w, mask: 'causal' }));
      expect(e2.code).toBe('INVALID_ARGUMENT');
      const layer = lab.createMultiHeadAttention(w);
      const e3 = thrown(() => layer.forward(randomMatrix(rand, 4, 7)));
      expect(e3).toBeInstanceOf(AttentionError);
      expect(e3.code).toBe('SHAPE_MISMATCH');
      expect(e3.message).toMatch(/4×7.*8/);
      const e4 = thrown(() => layer.forward(randomMatrix(rand, 4, 8), { mask: { validLens: [1, 2] } }));
      expect(e4.code).toBe('INVALID_MASK');
      const e5 = thrown(() => layer.forward(randomMatrix(rand, 4, 8), { maks: 'causal' }));
      expect(e5.code).toBe('INVALID_ARGUMENT');
      expectClose(layer.forward(randomMatrix(rng(1), 3, 8)).output, R.multiHead(ref(randomMatrix(rng(1), 3, 8)), refW(w)).output);
      layer.dispose();
    });

    it('creating and disposing thousands of layers does not grow WASM memory', () => {
      const rand = rng(79);
      const w = weights(rand, 16, 4, 4, 4, 16);
      const X = randomMatrix(rand, 9, 16);
      const first = lab.createMultiHeadAttention(w);
      const want = first.forward(X, { mask: 'causal' }).output;
      first.dispose();
      for (let i = 0; i < 50; i++) lab.createMultiHeadAttention(w).dispose();
      const size = memory.buffer.byteLength;
      for (let i = 0; i < 2000; i++) {
        const layer = lab.createMultiHeadAttention(w);
        const out = layer.forward(X, { mask: 'causal' }).output;
        if (i % 400 === 0) expect(Array.from(out.data)).toEqual(Array.from(want.data));
        layer.dispose();
      }
      expect(memory.buffer.byteLength).toBe(size);
    });
  });
});
