// lab.onlineSoftmax: the fused path's online softmax traced for one query row, on both builds.
// Each block's running max m, rescale e^(m_old − m_new), running sum ℓ, accumulator and output
// so far against a float64 recurrence written here from the formulas; the final row against the
// float64 reference and against scaledDotProductAttention (fused and traced) to float32
// rounding; the final ℓ against Σ exp(s − m) of the trace's own scores; masks; and the errors.
import { beforeAll, describe, expect, it } from 'vitest';

import { AttentionError } from '../../dist/node.js';
import { BUILDS, expectClose, loadLab, randomMatrix, ref, rng, thrown } from './helpers.js';
import * as R from './reference.js';

/** The float64 recurrence for row i: the state after each block of `block` keys. */
function referenceWalk(Q, K, V, i, block, visible) {
  const d = Q[0].length;
  const s = K.map((k, j) => (visible[i][j] ? k.reduce((sum, x, t) => sum + x * Q[i][t], 0) / Math.sqrt(d) : -Infinity));
  const states = [];
  let m = -Infinity;
  let l = 0;
  let acc = new Array(V[0].length).fill(0);
  for (let first = 0; first < K.length; first += block) {
    const keys = s.slice(first, first + block);
    const next = Math.max(m, ...keys);
    const alpha = next > m ? Math.exp(m - next) : 1;
    l *= alpha;
    acc = acc.map((a) => a * alpha);
    keys.forEach((x, c) => {
      if (x === -Infinity) return;
      const p = Math.exp(x - next);
      l += p;
      acc = acc.map((a, t) => a + p * V[first + c][t]);
    });
    m = next;
    states.push({ max: m, rescale: alpha, sum: l, accumulator: acc, output: acc.map((a) => (l > 0 ? a / l : 0)) });
  }
  return { scores: s, states };
}

const row = (values) => ({ rows: 1, cols: values.length, data: Float32Array.from(values) });

describe.each(BUILDS)('onlineSoftmax ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  const masks = [undefined, 'causal', { validLens: [3, 1, 0, 7, 2, 5] }];
  it.each([1, 2, 3, 4, 7, 200])('block %i: every step matches the float64 recurrence, for each mask', (block) => {
    const rand = rng(40 + block);
    const [Q, K, V] = [randomMatrix(rand, 6, 4, -2, 2), randomMatrix(rand, 7, 4, -2, 2), randomMatrix(rand, 7, 3)];
    for (const mask of masks) {
      const visible = R.visibility(mask, 6, 7);
      const full = R.scaledDotProduct(ref(Q), ref(K), ref(V), { mask });
      const fused = lab.scaledDotProductAttention(Q, K, V, { mask, weights: false }).output;
      const traced = lab.scaledDotProductAttention(Q, K, V, { mask }).output;
      for (let i = 0; i < 6; i++) {
        const label = `mask ${JSON.stringify(mask)}, row ${i}`;
        const got = lab.onlineSoftmax(Q, K, V, { row: i, block, mask });
        const want = referenceWalk(ref(Q), ref(K), ref(V), i, block, visible);
        expect(got.blocks.length, label).toBe(Math.ceil(7 / Math.min(block, 7)));
        expectClose(row(got.scores), [want.scores], { label: `${label} scores`, infinityAs: -Infinity });
        got.blocks.forEach((b, n) => {
          const w = want.states[n];
          expect([b.first, b.end]).toEqual([n * Math.min(block, 7), Math.min(7, (n + 1) * Math.min(block, 7))]);
          expectClose(row([b.max, b.rescale, b.sum]), [[w.max, w.rescale, w.sum]], { label: `${label} block ${n} m, α, ℓ`, infinityAs: -Infinity });
          expectClose(row(b.accumulator), [w.accumulator], { label: `${label} block ${n} acc` });
          expectClose(row(b.output), [w.output], { label: `${label} block ${n} acc/ℓ` });
        });
        expectClose(row(got.output), [full.output[i]], { label: `${label} output vs float64` });
        expectClose(row(got.weights), [full.weights[i]], { label: `${label} weights vs float64` });
        // the library's own attention, fused and traced, to float32 rounding
        for (const [name, out] of [['fused', fused], ['traced', traced]])
          for (let t = 0; t < 3; t++) expect(Math.abs(got.output[t] - out.data[i * 3 + t]), `${label} vs ${name}`).toBeLessThanOrEqual(2e-6 + 2e-6 * Math.abs(out.data[i * 3 + t]));
        // the final ℓ is Σ exp(s − m) over the trace's scores; the weights sum to 1 (0 with no visible key)
        const sum = Array.from(got.scores).reduce((a, x) => a + (x === -Infinity ? 0 : Math.exp(x - got.max)), 0);
        const any = visible[i].some(Boolean);
        expect(Math.abs(got.sum - sum), label).toBeLessThanOrEqual(1e-6 * sum);
        expect(got.sum).toBe(got.blocks[got.blocks.length - 1].sum);
        expect(Math.abs(got.weightSum - (any ? 1 : 0)), label).toBeLessThanOrEqual(1e-6);
        if (!any) expect([got.max, got.sum, ...got.output]).toEqual([-Infinity, 0, 0, 0, 0]);
      }
    }
  });

  it('stays finite where exp of the raw scores overflows float32', () => {
    const rand = rng(9);
    const [Q, K, V] = [randomMatrix(rand, 2, 16, -10, 10), randomMatrix(rand, 9, 16, -10, 10), randomMatrix(rand, 9, 2)];
    K.data.set(Q.data.subarray(16, 32), 3 * 16); // key 3 is query 1 itself: a score of ‖q‖²/4
    const got = lab.onlineSoftmax(Q, K, V, { row: 1, block: 2 });
    expect(Math.max(...got.scores)).toBeGreaterThan(89); // e^89 > float32's largest
    expectClose(row(got.output), [R.scaledDotProduct(ref(Q), ref(K), ref(V)).output[1]], { label: 'large scores' });
  });

  it('defaults to row 0, blocks of 2 and 1/√d_k; a block of m keys or more is one block', () => {
    const rand = rng(3);
    const [Q, K, V] = [randomMatrix(rand, 2, 4), randomMatrix(rand, 5, 4), randomMatrix(rand, 5, 2)];
    const got = lab.onlineSoftmax(Q, K, V);
    expect([got.row, got.block, got.blocks.length]).toEqual([0, 2, 3]);
    const scaled = lab.onlineSoftmax(Q, K, V, { scale: 0.5 });
    expect(Math.abs(scaled.scores[0] / got.scores[0] - 0.5 * Math.sqrt(4))).toBeLessThan(1e-5);
    const one = lab.onlineSoftmax(Q, K, V, { block: 2 ** 40 });
    expect([one.block, one.blocks.length, one.blocks[0].end, one.blocks[0].rescale]).toEqual([2 ** 40, 1, 5, 0]);
  });

  it('throws AttentionError naming the row, block, shapes or mask', () => {
    const [Q, K, V] = [[[1, 0], [0, 1]], [[1, 0], [0, 1], [1, 1]], [[1], [2], [3]]];
    const cases = [
      [{ row: 2 }, /row must be an integer from 0 to 1 \(Q is 2×2\), got 2/],
      [{ row: -1 }, /row must be an integer/],
      [{ row: 0.5 }, /row must be an integer/],
      [{ block: 0 }, /block must be a positive integer/],
      [{ block: '2' }, /block must be a positive integer/],
      [{ mask: { validLens: [1, 4] } }, /valid/i],
      [{ other: 1 }, /other/],
    ];
    for (const [options, message] of cases) {
      const error = thrown(() => lab.onlineSoftmax(Q, K, V, options));
      expect(error, JSON.stringify(options)).toBeInstanceOf(AttentionError);
      expect(error.message).toMatch(/^onlineSoftmax: /);
      expect(error.message).toMatch(message);
    }
    expect(thrown(() => lab.onlineSoftmax(Q, [[1, 0, 0]], V)).message).toMatch(/Q is 2×2 but K is 1×3/);
    expect(thrown(() => lab.onlineSoftmax(Q, K, [[1]])).message).toMatch(/K is 3×2 but V is 1×1/);
  });
});
