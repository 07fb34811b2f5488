// <attention-cross>'s DOM-free model (web/src/components/cross/cross-model.js) in Node: the
// per-row valid lengths as parsed, the mask chosen from them or the shared settings, the rows
// left with nothing to attend to, and one head of cross-attention against the float64 reference.
import { beforeAll, describe, expect, it } from 'vitest';

import { HIDDEN, crossAttention, crossMask, crossTex, fullyMaskedRows, parseValidLens } from '../../web/src/components/cross/cross-model.js';
import { firstColumns } from '../../web/src/first-columns.js';
import { buildModel } from '../../web/src/model.js';
import { randomMatrix } from '../../web/src/random.js';
import { expectClose, loadLab, ref } from './helpers.js';
import * as R from './reference.js';

describe('parseValidLens', () => {
  it('reads one length per target row, clamped to [0, m], and says when it changed the text', () => {
    expect(parseValidLens('1 0', 2, 5)).toEqual({ lens: [1, 0], changed: false });
    expect(parseValidLens('2 3, 5', 3, 4)).toEqual({ lens: [2, 3, 4], changed: true });
    expect(parseValidLens('2;-1', 2, 4)).toEqual({ lens: [2, 0], changed: true });
    expect(parseValidLens('1.6 2', 2, 4)).toEqual({ lens: [2, 2], changed: true });
  });

  it('takes every source token for a missing or unreadable entry, and drops extra ones', () => {
    expect(parseValidLens('x 2', 2, 3)).toEqual({ lens: [3, 2], changed: true });
    expect(parseValidLens('1', 3, 4)).toEqual({ lens: [1, 4, 4], changed: true });
    expect(parseValidLens('1 2 3 4', 2, 4)).toEqual({ lens: [1, 2], changed: true });
    expect(parseValidLens('', 2, 4)).toEqual({ lens: [4, 4], changed: true });
  });
});

describe('crossMask and fullyMaskedRows', () => {
  const config = (mask, validLen = 3) => ({ mask, validLen });

  it('uses valid-lens when given, whatever the shared mask', () => {
    const masking = crossMask(config('causal'), '2 0 9', 3, 4);
    expect(masking.kind).toBe('rows');
    expect(masking.mask).toEqual({ validLens: [2, 0, 4] });
    expect(masking.lens.changed).toBe(true);
    expect(fullyMaskedRows(masking, ['a', 'b', 'c'])).toEqual(['b']);
  });

  it('else cuts the shared padding length to the source, names causal without applying it, or masks nothing', () => {
    expect(crossMask(config('padding', 9), null, 3, 4)).toEqual({ kind: 'padding', mask: { validLens: 4 }, lens: null });
    expect(crossMask(config('padding', 2), '   ', 3, 4)).toEqual({ kind: 'padding', mask: { validLens: 2 }, lens: null });
    expect(crossMask(config('causal'), null, 3, 4)).toEqual({ kind: 'causal', mask: undefined, lens: null });
    expect(crossMask(config('none'), null, 3, 4)).toEqual({ kind: 'none', mask: undefined, lens: null });
    expect(fullyMaskedRows(crossMask(config('padding', 0), null, 2, 4), ['a', 'b'])).toEqual(['a', 'b']);
    expect(fullyMaskedRows(crossMask(config('padding', 1), null, 2, 4), ['a', 'b'])).toEqual([]);
    expect(fullyMaskedRows(crossMask(config('none'), null, 2, 4), ['a', 'b'])).toEqual([]);
  });
});

describe('crossAttention against the reference', () => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(true);
  });
  const settings = { sentence: 'the cat sat on', seed: 7, dModel: 8, dK: 4 };
  const models = () => {
    const target = buildModel(settings);
    return { target, src: buildModel({ ...target.config, sentence: '小猫坐在垫子上' }) };
  };

  it('dot: Q from the target, K and V from the source, the first head, per-row lengths applied', () => {
    const { target, src } = models();
    const masking = crossMask(target.config, '1 0 7 3', target.n, src.n);
    const c = crossAttention(lab, target, src, 'dot', masking);
    const head = (W) => ref(firstColumns(W, target.config.dK));
    const [Q, K, V] = [R.matmul(ref(target.X), head(target.Wq)), R.matmul(ref(src.X), head(target.Wk)), R.matmul(ref(src.X), head(target.Wv))];
    const want = R.scaledDotProduct(Q, K, V, { mask: masking.mask });
    expectClose(c.Q, Q, { label: 'Q' });
    expectClose(c.K, K, { label: 'K' });
    expectClose(c.result.weights, want.weights, { label: 'weights' });
    expectClose(c.result.output, want.output, { label: 'output' });
    // Row 1 may attend to nothing: all its weights are exactly 0.
    expect(Array.from(c.result.weights.data.subarray(src.n, 2 * src.n))).toEqual(new Array(src.n).fill(0));
    expectClose(c.self.weights, R.selfAttention(ref(target.X), { Wq: head(target.Wq), Wk: head(target.Wk), Wv: head(target.Wv) }).weights, { label: 'self' });
  });

  it('additive: the target embeddings query the source embeddings (keys = values) with seeded scoring weights', () => {
    const { target, src } = models();
    const masking = crossMask(target.config, null, target.n, src.n);
    const c = crossAttention(lab, target, src, 'additive', masking);
    expect(c.Q).toBeUndefined();
    const d = target.config.dModel;
    const seed = target.config.seed;
    const scoring = { Wq: ref(randomMatrix(d, HIDDEN, seed * 7 + 21, 1 / Math.sqrt(d))), Wk: ref(randomMatrix(d, HIDDEN, seed * 7 + 22, 1 / Math.sqrt(d))), wv: Array.from(randomMatrix(1, HIDDEN, seed * 7 + 23, 1).data) };
    const want = R.additive(ref(target.X), ref(src.X), ref(src.X), scoring);
    expectClose(c.result.weights, want.weights, { label: 'weights' });
    expectClose(c.result.output, want.output, { label: 'output' });
  });
});

describe('the formulas of a masked trace: the softmax takes the matrix the mask made', () => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(true);
  });
  // The matrix a step's formula defines (S, S', …), and the one the softmax takes.
  const defined = (formula) => formula.match(/^\s*([A-Z]'*)(?:_\{ij\})?\s*=/)[1];
  const softmaxOf = (formula) => formula.match(/softmax\}\(([A-Z]'*)\)/)[1];

  it.each(['additive', 'dot'])('%s: the softmax takes the matrix the masked step made; unmasked, the last one before it', (scoring) => {
    const target = buildModel({ sentence: 'a b c', seed: 3, dModel: 8, dK: 4 });
    const src = buildModel({ ...target.config, sentence: 'x y z w' });
    const steps = (text) => Object.fromEntries(crossAttention(lab, target, src, scoring, crossMask(target.config, text, target.n, src.n)).result.steps.map((s) => [s.id, s.formula]));
    const masked = steps('1 2 4');
    expect(softmaxOf(masked.weights)).toBe(defined(masked.masked));
    // The masked step keeps the scores it was given where M = 1: it names them.
    expect(masked.masked).toContain(scoring === 'additive' ? 'S_{ij}' : "S'");
    const plain = steps(null);
    expect(plain.masked).toBeUndefined();
    expect(softmaxOf(plain.weights)).toBe(defined(scoring === 'additive' ? plain.scores : plain.scaled));
  });
});

describe('crossTex: row vectors and one symbol per meaning', () => {
  it('additive: row vectors q_i W_q + k_j W_k, then w_v; d_h hidden units; no h (the head count elsewhere)', () => {
    const tex = crossTex('additive', 3, 4, 8, 4);
    expect(tex).toContain(String.raw`\tanh(\mathbf q_i \underbrace{W_q}`);
    expect(tex).toContain(String.raw`+ \mathbf k_j \underbrace{W_k}`);
    expect(tex).toContain(String.raw`)\,\underbrace{\mathbf w_v}_{\scriptstyle d_h\times 1}`);
    expect(tex).toContain(`d_h = ${HIDDEN}`);
    expect(tex).not.toMatch(/\\mathbf h|\bh\b|W_q\s*\\mathbf/);
  });
});
