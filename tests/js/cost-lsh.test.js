// The long-sequences panel's Reformer section (web/src/components/cost/lsh.js) in Node: one round
// of angular LSH on the reader's sentence. The buckets equal a float64 computation done here (K from
// the reference matmul, R drawn from the seeded generator as the panel draws it, the argmax
// written out again); the mask holds exactly the same-bucket pairs under the stated rule (not
// itself unless alone, j ≤ i when causal); the weights are the float64 masked softmax, rows sum
// to 1 and pairs outside the bucket weigh exactly 0; the pair count is the mask's.
import { beforeAll, describe, expect, it } from 'vitest';

import { LSH_BUCKETS, bucketMask, bucketsOf, lshResults } from '../../web/src/components/cost/lsh.js';
import { sentenceResults } from '../../web/src/components/cost/sentence.js';
import { firstColumns } from '../../web/src/first-columns.js';
import { buildModel } from '../../web/src/model.js';
import { randomMatrix } from '../../web/src/random.js';
import { expectClose, loadLab, ref } from './helpers.js';
import * as R from './reference.js';

/** The float64 buckets of the sentence's keys, and those keys (x) and their unit rows (x̂). */
function float64Buckets(model, b) {
  const X = ref(model.X);
  const K = R.matmul(X, ref(firstColumns(model.Wk, model.config.dK)));
  const unit = K.map((row) => {
    const norm = Math.sqrt(row.reduce((s, v) => s + v * v, 0));
    return row.map((v) => v / norm);
  });
  const rotation = ref(randomMatrix(model.config.dK, b / 2, model.config.seed * 7 + 41));
  const projected = R.matmul(unit, rotation);
  const buckets = [];
  const gaps = [];
  for (const row of projected) {
    const both = [...row, ...row.map((v) => -v)];
    const order = both.map((v, c) => [v, c]).sort((p, q) => q[0] - p[0]);
    buckets.push(order[0][1]);
    gaps.push(order[0][0] - order[1][0]);
  }
  return { K, unit, buckets, gaps };
}

/** The visible pairs under the section's rule, written out independently of bucketMask. */
function expectedVisible(buckets, causal) {
  return buckets.map((bi, i) => {
    const others = buckets.map((bj, j) => j !== i && bj === bi && (!causal || j < i));
    return others.some(Boolean) ? others : others.map((_, j) => j === i);
  });
}

const CASES = [
  { sentence: 'the cat sat on the mat', seed: 42, mask: 'none' },
  { sentence: 'the cat sat on the mat', seed: 42, mask: 'causal' },
  { sentence: 'attention is all you need to read a long sentence', seed: 7, mask: 'none' },
  { sentence: '我爱学习注意力', seed: 3, mask: 'causal' },
];

describe('Reformer LSH section', () => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(true);
  });

  for (const c of CASES) {
    it(`${c.sentence} (seed ${c.seed}, mask ${c.mask}): buckets, mask, weights and pair count`, () => {
      const model = buildModel({ ...c, dModel: 8 });
      const causal = c.mask === 'causal';
      const r = lshResults(lab, sentenceResults(lab, model, 2, 3), { seed: c.seed, causal });
      const want = float64Buckets(model, LSH_BUCKETS);
      const n = model.tokens.length;
      expect(r.n).toBe(n);
      expect(r.buckets).toBe(4);
      // Bucket ids: the float64 argmax (no near-tie in these cases, so float32 cannot flip one).
      for (const gap of want.gaps) expect(gap).toBeGreaterThan(1e-4);
      expect(Array.from(r.bucket)).toEqual(want.buckets);
      expectClose(r.projected, R.matmul(want.unit, ref(r.R)), { label: 'x̂R' });
      // The mask: exactly the same-bucket pairs, under the rule.
      const visible = expectedVisible(want.buckets, causal);
      expect(Array.from(r.mask)).toEqual(visible.flat().map(Number));
      expect(r.scored).toBe(visible.flat().filter(Boolean).length);
      expect(r.scored).toBeLessThan(n * n);
      // Weights: the float64 masked softmax of x x̂ᵀ/√d_k; rows sum to 1; outside the bucket exactly 0.
      const full = R.scaledDotProduct(want.K, want.unit, ref(sentenceResults(lab, model, 2, 3).qkv.V), { mask: visible.map((row) => row.map(Number)) });
      expectClose(r.weights, full.weights, { label: 'LSH weights' });
      for (let i = 0; i < n; i++) {
        const row = r.weights.data.subarray(i * n, (i + 1) * n);
        expect(Math.abs(row.reduce((s, v) => s + v, 0) - 1)).toBeLessThanOrEqual(1e-6);
        for (let j = 0; j < n; j++) if (!visible[i][j]) expect(row[j], `[${i}][${j}]`).toBe(0);
        for (let j = 0; j < n; j++) if (visible[i][j]) expect(row[j], `[${i}][${j}]`).toBeGreaterThan(0);
      }
    });
  }

  it('the default sentence: the two “the” share a bucket and attend to each other, not to themselves', () => {
    const model = buildModel({ sentence: 'the cat sat on the mat' });
    const r = lshResults(lab, sentenceResults(lab, model, 2, 3), { seed: model.config.seed, causal: false });
    expect(r.bucket[0]).toBe(r.bucket[4]);
    expect([r.mask[0 * 6 + 4], r.mask[4 * 6 + 0], r.mask[0], r.mask[4 * 6 + 4]]).toEqual([1, 1, 0, 0]);
  });

  it('bucketsOf and bucketMask on small hand-made inputs', () => {
    // rows: [1, 0] → bucket 0; [0, 2] → 1; [−3, 0] → 2 (the negated half); [0, −1] → 3; a tie goes low
    const P = { rows: 5, cols: 2, data: Float32Array.from([1, 0, 0, 2, -3, 0, 0, -1, 1, 1]) };
    expect(Array.from(bucketsOf(P))).toEqual([0, 1, 2, 3, 0]);
    // buckets [0, 1, 0]: 0 and 2 see each other; 1 is alone and sees itself
    expect(Array.from(bucketMask([0, 1, 0], false))).toEqual([0, 0, 1, 0, 1, 0, 1, 0, 0]);
    // causal: 0 sees only itself, 2 sees 0
    expect(Array.from(bucketMask([0, 1, 0], true))).toEqual([1, 0, 0, 0, 1, 0, 1, 0, 0]);
  });
});
