// The trace (trace: true) on both builds: step ids and order exactly as in the
// contract, each step's matrix equal to the reference intermediate, titles and
// TeX formulas present (and renderable by KaTeX), the masked step's bits.
import katex from 'katex';
import { beforeAll, describe, expect, it } from 'vitest';

import { BUILDS, expectClose, expectIdentical, loadLab, randomBits, randomMatrix, randomVector, ref, rng } from './helpers.js';
import * as R from './reference.js';

const FLOAT32_LOWEST = -3.4028234663852886e38;
const ids = (steps) => steps.map((s) => s.id);

/** Every step has the documented fields; formulas render as TeX. */
function expectWellFormed(steps) {
  for (const s of steps) {
    expect(typeof s.title, `${s.id} title`).toBe('string');
    expect(s.title.length, `${s.id} title`).toBeGreaterThan(0);
    expect(typeof s.formula, `${s.id} formula`).toBe('string');
    expect(() => katex.renderToString(s.formula, { throwOnError: true }), `${s.id} formula ${s.formula}`).not.toThrow();
    expect(s.matrix.data).toBeInstanceOf(Float32Array);
    expect(s.matrix.data.length).toBe(s.matrix.rows * s.matrix.cols);
    if (s.id !== 'masked') expect(s.mask, `${s.id} has no mask bits`).toBeUndefined();
  }
}

/** The masked step: visible entries equal the previous scores, hidden ones float32's lowest; bits match. */
function expectMaskedStep(stepRecord, before, visible) {
  const { rows, cols, data } = stepRecord.matrix;
  expect(stepRecord.mask).toBeInstanceOf(Uint8Array);
  expect(stepRecord.mask).toHaveLength(rows * cols);
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++) {
      expect(stepRecord.mask[i * cols + j], `mask bit [${i}][${j}]`).toBe(visible[i][j] ? 1 : 0);
      if (visible[i][j]) expect(data[i * cols + j]).toBe(before.data[i * cols + j]);
      else expect(data[i * cols + j], `masked entry [${i}][${j}]`).toBe(FLOAT32_LOWEST);
    }
}

const byId = (steps) => Object.fromEntries(steps.map((s) => [s.id, s]));

describe.each(BUILDS)('traces ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  describe('scaledDotProductAttention', () => {
    it.each([1, 4, 5, 17, 65])('without a mask: scores, scaled, weights, output (n=%i, cross-attention)', (n) => {
      const rand = rng(n + 100);
      const m = n + 2;
      const [Q, K, V] = [randomMatrix(rand, n, 8), randomMatrix(rand, m, 8), randomMatrix(rand, m, 3)];
      const got = lab.scaledDotProductAttention(Q, K, V, { trace: true });
      expect(ids(got.steps)).toEqual(['scores', 'scaled', 'weights', 'output']);
      expectWellFormed(got.steps);
      const want = R.scaledDotProduct(ref(Q), ref(K), ref(V));
      const s = byId(got.steps);
      for (const id of ['scores', 'scaled', 'weights', 'output']) expectClose(s[id].matrix, want[id], { label: id });
      expectIdentical(s.weights.matrix, got.weights, 'weights step = result');
      expectIdentical(s.output.matrix, got.output, 'output step = result');
    });

    it.each([
      ['causal', () => 'causal'],
      ['validLens', (n) => ({ validLens: Array.from({ length: n }, (_, i) => i % 3) })],
      ['0/1 matrix', (n, m, rand) => randomBits(rand, n, m)],
    ])('with a %s mask: scores, scaled, masked, weights, output', (_, makeMask) => {
      const rand = rng(101);
      const [n, m] = [5, 6];
      const mask = makeMask(n, m, rand);
      const [Q, K, V] = [randomMatrix(rand, n, 4), randomMatrix(rand, m, 4), randomMatrix(rand, m, 3)];
      const got = lab.scaledDotProductAttention(Q, K, V, { mask, trace: true });
      expect(ids(got.steps)).toEqual(['scores', 'scaled', 'masked', 'weights', 'output']);
      expectWellFormed(got.steps);
      const want = R.scaledDotProduct(ref(Q), ref(K), ref(V), { mask });
      const s = byId(got.steps);
      for (const id of ['scores', 'scaled', 'weights', 'output']) expectClose(s[id].matrix, want[id], { label: id });
      expectClose(s.masked.matrix, want.masked, { label: 'masked', infinityAs: FLOAT32_LOWEST });
      expectMaskedStep(s.masked, s.scaled.matrix, want.visible);
    });

    it('with scale: 1 the scaled step equals the scores', () => {
      const rand = rng(102);
      const [Q, K, V] = [randomMatrix(rand, 3, 4), randomMatrix(rand, 3, 4), randomMatrix(rand, 3, 2)];
      const got = lab.scaledDotProductAttention(Q, K, V, { scale: 1, trace: true });
      expectWellFormed(got.steps);
      const s = byId(got.steps);
      expectIdentical(s.scaled.matrix, s.scores.matrix);
      expectClose(s.weights.matrix, R.scaledDotProduct(ref(Q), ref(K), ref(V), { scale: 1 }).weights);
      const scaledDefault = byId(lab.scaledDotProductAttention(Q, K, V, { trace: true }).steps).scaled;
      expect(s.scaled.formula).not.toBe(scaledDefault.formula);
    });

    it('trace: false (or omitted) gives no steps, and tracing does not change the result', () => {
      const rand = rng(103);
      const [Q, K, V] = [randomMatrix(rand, 5, 4), randomMatrix(rand, 5, 4), randomMatrix(rand, 5, 2)];
      const plain = lab.scaledDotProductAttention(Q, K, V, { mask: 'causal', trace: false });
      expect(plain.steps).toBeUndefined();
      expect('steps' in lab.scaledDotProductAttention(Q, K, V)).toBe(false);
      const traced = lab.scaledDotProductAttention(Q, K, V, { mask: 'causal', trace: true });
      expectIdentical(traced.weights, plain.weights);
      expectIdentical(traced.output, plain.output);
    });
  });

  describe('additiveAttention', () => {
    function inputs(rand, n, m) {
      return {
        Q: randomMatrix(rand, n, 3),
        K: randomMatrix(rand, m, 5),
        V: randomMatrix(rand, m, 2),
        w: { Wq: randomMatrix(rand, 3, 4), Wk: randomMatrix(rand, 5, 4), wv: randomVector(rand, 4) },
      };
    }
    const refW = (w) => ({ Wq: ref(w.Wq), Wk: ref(w.Wk), wv: Array.from(w.wv) });

    it('without a mask: scores, weights, output', () => {
      const { Q, K, V, w } = inputs(rng(110), 4, 7);
      const got = lab.additiveAttention(Q, K, V, { ...w, trace: true });
      expect(ids(got.steps)).toEqual(['scores', 'weights', 'output']);
      expectWellFormed(got.steps);
      const want = R.additive(ref(Q), ref(K), ref(V), refW(w));
      for (const s of got.steps) expectClose(s.matrix, want[s.id], { label: s.id });
      expectIdentical(byId(got.steps).weights.matrix, got.weights);
    });

    it('with a mask: scores, masked, weights, output', () => {
      const { Q, K, V, w } = inputs(rng(111), 4, 7);
      const mask = { validLens: [2, 0, 7, 5] };
      const got = lab.additiveAttention(Q, K, V, { ...w, mask, trace: true });
      expect(ids(got.steps)).toEqual(['scores', 'masked', 'weights', 'output']);
      expectWellFormed(got.steps);
      const want = R.additive(ref(Q), ref(K), ref(V), { ...refW(w), mask });
      const s = byId(got.steps);
      for (const id of ['scores', 'weights', 'output']) expectClose(s[id].matrix, want[id], { label: id });
      expectMaskedStep(s.masked, s.scores.matrix, want.visible);
    });
  });

  describe('selfAttention', () => {
    it.each([undefined, 'causal'])('mask %s: Q, K, V, then the attention steps', (mask) => {
      const rand = rng(120);
      const X = randomMatrix(rand, 6, 5);
      const w = { Wq: randomMatrix(rand, 5, 4), Wk: randomMatrix(rand, 5, 4), Wv: randomMatrix(rand, 5, 3) };
      const got = lab.selfAttention(X, { ...w, mask, trace: true });
      const expected = mask ? ['Q', 'K', 'V', 'scores', 'scaled', 'masked', 'weights', 'output'] : ['Q', 'K', 'V', 'scores', 'scaled', 'weights', 'output'];
      expect(ids(got.steps)).toEqual(expected);
      expectWellFormed(got.steps);
      const want = R.selfAttention(ref(X), { Wq: ref(w.Wq), Wk: ref(w.Wk), Wv: ref(w.Wv), mask });
      const s = byId(got.steps);
      for (const id of ['Q', 'K', 'V', 'scores', 'scaled', 'weights', 'output']) expectClose(s[id].matrix, want[id], { label: id });
      expect([s.Q.matrix.rows, s.Q.matrix.cols, s.V.matrix.rows, s.V.matrix.cols]).toEqual([6, 4, 6, 3]);
      if (mask) expectMaskedStep(s.masked, s.scaled.matrix, want.visible);
    });
  });

  describe('multiHeadAttention', () => {
    it.each([undefined, { validLens: [1, 2, 0, 4, 5] }])('mask %j: per-head and top-level steps', (mask) => {
      const rand = rng(130);
      const heads = 3;
      const X = randomMatrix(rand, 5, 4);
      const w = { heads, Wq: randomMatrix(rand, 4, 6), Wk: randomMatrix(rand, 4, 6), Wv: randomMatrix(rand, 4, 9), Wo: randomMatrix(rand, 9, 4) };
      const got = lab.multiHeadAttention(X, { ...w, mask, trace: true });
      const want = R.multiHead(ref(X), { heads, Wq: ref(w.Wq), Wk: ref(w.Wk), Wv: ref(w.Wv), Wo: ref(w.Wo), mask });

      expect(ids(got.steps)).toEqual(['Q', 'K', 'V', 'concat', 'output']);
      expectWellFormed(got.steps);
      const top = byId(got.steps);
      for (const id of ['Q', 'K', 'V', 'concat', 'output']) expectClose(top[id].matrix, want[id], { label: `top ${id}` });
      expectIdentical(top.concat.matrix, got.concat);
      expectIdentical(top.output.matrix, got.output);
      expect(top.output.formula).not.toBe(byId(got.heads[0].steps).output.formula);

      const perHead = mask ? ['Q', 'K', 'V', 'scores', 'scaled', 'masked', 'weights', 'output'] : ['Q', 'K', 'V', 'scores', 'scaled', 'weights', 'output'];
      got.heads.forEach((head, h) => {
        expect(ids(head.steps), `head ${h}`).toEqual(perHead);
        expectWellFormed(head.steps);
        const s = byId(head.steps);
        for (const id of ['Q', 'K', 'V', 'scores', 'scaled', 'weights', 'output']) expectClose(s[id].matrix, want.heads[h][id], { label: `head ${h} ${id}` });
        expect([s.Q.matrix.cols, s.V.matrix.cols, s.scores.matrix.cols]).toEqual([2, 3, 5]);
        expectIdentical(s.weights.matrix, head.weights);
        expectIdentical(s.output.matrix, head.output);
        if (mask) expectMaskedStep(s.masked, s.scaled.matrix, want.heads[h].visible);
      });
    });
  });
});
