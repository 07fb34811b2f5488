// The long-sequences panel's online-softmax walk-through (web/src/components/cost/online-steps.js)
// on the reader's sentence: the trace is the library's (lab.onlineSoftmax on the sentence's Q, K,
// V and mask), it ends in full softmax attention's output row and weight sum, several blocks are
// shown for the default block size, and the closing sentences state the library's numbers.
import { beforeAll, describe, expect, it } from 'vitest';

import { BLOCK_SIZES, DEFAULT_BLOCK, closingValues, num, onlineWalk, rowFor, vec } from '../../web/src/components/cost/online-steps.js';
import { sentenceResults } from '../../web/src/components/cost/sentence.js';
import { buildModel } from '../../web/src/model.js';
import { loadLab } from './helpers.js';

describe('online-softmax walk-through', () => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(true);
  });

  for (const mask of ['none', 'causal', 'padding']) {
    it(`mask ${mask}: every row and block size ends in full attention's row, with ℓ = Σ exp(s − m)`, () => {
      const model = buildModel({ sentence: 'the cat sat on the mat', seed: 42, dModel: 8, dK: 4, mask, validLen: 4 });
      const results = sentenceResults(lab, model, 2, 3);
      const { n } = results;
      for (const block of BLOCK_SIZES)
        for (let row = 0; row < n; row++) {
          const walk = onlineWalk(lab, results, row, block);
          const label = `row ${row}, block ${block}`;
          expect(walk.trace.blocks.length, label).toBe(Math.ceil(n / block));
          const direct = lab.onlineSoftmax(results.qkv.Q, results.qkv.K, results.qkv.V, { row, block, mask: model.mask });
          expect(Array.from(walk.trace.output)).toEqual(Array.from(direct.output));
          const full = results.full.output.data.subarray(row * 4, row * 4 + 4);
          for (let t = 0; t < 4; t++) expect(Math.abs(walk.trace.output[t] - full[t]), label).toBeLessThanOrEqual(2e-6 + 2e-6 * Math.abs(full[t]));
          expect(walk.diff).toBeLessThanOrEqual(4e-6);
          const sum = Array.from(walk.trace.scores).reduce((a, s) => a + (s === -Infinity ? 0 : Math.exp(s - walk.trace.max)), 0);
          expect(Math.abs(walk.trace.sum - sum), label).toBeLessThanOrEqual(1e-6 * sum);
          expect(Math.abs(walk.trace.weightSum - walk.fullSum)).toBeLessThanOrEqual(1e-6);
          expect(walk.masked, label).toBe(mask === 'causal' ? row < n - 1 : mask === 'padding');
        }
    });
  }

  it('shows several blocks by default, the last row unless one is chosen, and states the library numbers', () => {
    const model = buildModel({ sentence: 'the cat sat on the mat', seed: 42, dModel: 8, dK: 4 });
    const results = sentenceResults(lab, model, 2, 3);
    expect(DEFAULT_BLOCK).toBe(2);
    expect([rowFor(null, 6), rowFor(2, 6), rowFor(9, 6), rowFor(-1, 6)]).toEqual([5, 2, 5, 0]);
    const walk = onlineWalk(lab, results, 5, DEFAULT_BLOCK);
    expect(walk.trace.blocks.length).toBe(3);
    const c = closingValues(walk);
    expect(c.end.out).toBe(vec(walk.trace.output));
    expect(c.end.full).toBe(vec(results.full.output.data.slice(20, 24)));
    expect(c.sum).toEqual({ sum: num(walk.trace.sum), max: num(walk.trace.max), weightSum: '1', i: 6, fullSum: '1' }); // the page counts row 5 as the 6th
    expect([num(-Infinity), num(-0.123456), vec(Float32Array.from([1, -2, 3, 4, 5]))]).toEqual(['−∞', '−0.1235', '[1, −2, 3, 4, …]']);
  });
});
