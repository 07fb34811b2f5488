// The long-sequences panel's sentence model (web/src/components/cost/sentence.js) in Node: the
// four attentions on the reader's sentence against the float64 reference, their masks, and
// the costs each heatmap's note states.
import { beforeAll, describe, expect, it } from 'vitest';

import { projections } from '../../web/src/components/cost/measure.js';
import { sentenceCells, sentenceResults, visibility } from '../../web/src/components/cost/sentence.js';
import { firstColumns } from '../../web/src/first-columns.js';
import { buildModel } from '../../web/src/model.js';
import { expectClose, loadLab, ref } from './helpers.js';
import * as R from './reference.js';

/** A translator that shows the key and its values, so the notes can be read back. */
const t = (key, values) => (values ? `${key} ${JSON.stringify(values)}` : key);

describe('visibility', () => {
  it('is 1 where the pattern may attend', () => {
    expect(Array.from(visibility(3, (i, j) => j <= i))).toEqual([1, 0, 0, 1, 1, 0, 1, 1, 1]);
    expect(Array.from(visibility(2, () => false))).toEqual([0, 0, 0, 0]);
  });
});

describe('sentenceResults and sentenceCells', () => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(true);
  });
  const qkv = (model) => {
    const head = (W) => ref(firstColumns(W, model.config.dK));
    const X = ref(model.X);
    return [R.matmul(X, head(model.Wq)), R.matmul(X, head(model.Wk)), R.matmul(X, head(model.Wv))];
  };

  it('are the library results on the first head, with local attention masked outside its window', () => {
    const model = buildModel({ sentence: 'the cat sat on the mat', seed: 42, dModel: 8, dK: 4 });
    const r = sentenceResults(lab, model, 2, 3);
    const [Q, K, V] = qkv(model);
    expect([r.n, r.dk, r.dv, r.w, r.k]).toEqual([6, 4, 4, 2, 3]);
    expectClose(r.full.weights, R.scaledDotProduct(Q, K, V).weights, { label: 'full' });
    expectClose(r.local.weights, R.local(Q, K, V, { window: 2 }).weights, { label: 'local' });
    expectClose(r.linear.weights, R.linear(Q, K, V).weights, { label: 'linear' });
    const { E, F } = projections(3, 6, 42);
    expectClose(r.linformer.weights, R.linformer(Q, K, V, { E: ref(E), F: ref(F) }).weights, { label: 'linformer' });
    // |i − j| < 2: the diagonal and its two neighbours, 6 + 2·5 = 16 of 36.
    expect(r.local.mask.reduce((s, v) => s + v, 0)).toBe(16);
    expect(r.full.mask).toBeUndefined();
    expect(r.linear.mask).toBeUndefined();
    expect(r.fusedDiff).toBeLessThan(1e-6);
  });

  it('under a causal mask: the full, local and linear patterns look back only', () => {
    const model = buildModel({ sentence: 'a b c d e', seed: 1, dModel: 8, dK: 4, mask: 'causal' });
    const r = sentenceResults(lab, model, 2, 3);
    const back = Array.from(visibility(5, (i, j) => j <= i));
    expect(Array.from(r.full.mask)).toEqual(back);
    expect(Array.from(r.linear.mask)).toEqual(back);
    expect(Array.from(r.local.mask)).toEqual(Array.from(visibility(5, (i, j) => j <= i && i - j < 2)));
    const [Q, K, V] = qkv(model);
    expectClose(r.local.weights, R.local(Q, K, V, { window: 2, causal: true }).weights, { label: 'causal local' });
  });

  it('describe four heatmaps whose notes count the scores and multiply-adds', () => {
    const model = buildModel({ sentence: 'the cat sat on the mat', seed: 42, dModel: 8, dK: 4 });
    const cells = sentenceCells(t, sentenceResults(lab, model, 2, 3));
    expect(cells.map((c) => c.key)).toEqual(['full', 'local', 'linear', 'linformer']);
    expect(cells[0].notes[0]).toBe(`cost.fullCost ${JSON.stringify({ n: 6, scores: '36', dk: 4, dv: 4, macs: '288', bytes: '144' })}`);
    expect(cells[1].notes[0]).toBe(`cost.localCost ${JSON.stringify({ scores: '16', all: '36', macs: '128' })}`);
    expect(cells[2].notes[0]).toBe(`cost.linearCost ${JSON.stringify({ d: 4, dv: 4, macs: '240' })}`);
    expect(cells[3].notes[0]).toBe(`cost.linformerCost ${JSON.stringify({ k: 3, n: 6, scores: '18', macs: '288' })}`);
    expect(cells[3].cols).toEqual([1, 2, 3].map((r) => `cost.projected ${JSON.stringify({ r })}`));
    expect([cells[3].matrix.rows, cells[3].matrix.cols]).toEqual([6, 3]);
  });
});
