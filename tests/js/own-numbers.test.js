// An author's own numbers, without a browser: which settings an author's matrices fix (a
// setting not given is read from them, one given must agree), the tokens attribute's two forms,
// and the traced result of given Q, K, V against the library's call on each head's slices.
import { beforeAll, describe, expect, it } from 'vitest';

import { buildModel, normalise } from '../../web/src/model.js';
import { InputsError, parseTokens } from '../../web/src/own-numbers.js';
import { ownResult } from '../../web/src/own-trace.js';
import { randomMatrix } from '../../web/src/random.js';
import { loadLab } from './helpers.js';

const ALL = { accepts: ['seeded', 'x', 'qkv', 'weights'] };
const refusal = (config, inputs, options = ALL) => {
  try {
    buildModel(config, inputs, options);
  } catch (error) {
    if (error instanceof InputsError) return error.key;
    throw error;
  }
  return null;
};

describe('settings the author’s matrices fix', () => {
  it('d-model is read from X when not given, and must agree when given', () => {
    const X = randomMatrix(3, 4, 1);
    expect(buildModel({}, { X }).config.dModel).toBe(4);
    expect(buildModel({ dModel: 4 }, { X }).config.dModel).toBe(4);
    expect(refusal({ dModel: 8 }, { X })).toBe('xWidth');
    // An element's settings remember which were given: the default d-model 8 does not count.
    expect(buildModel(normalise({ dModel: undefined }), { X }).config.dModel).toBe(4);
    expect(refusal(normalise({ dModel: '8' }), { X })).toBe('xWidth');
  });

  it('d-k is read from Q (or W_Q) per head when not given, and must agree when given', () => {
    const [Q, K, V] = [randomMatrix(3, 6, 2), randomMatrix(3, 6, 3), randomMatrix(3, 4, 4)];
    expect(buildModel({ heads: 2 }, { Q, K, V }, ALL).config.dK).toBe(3);
    expect(refusal({ heads: 2, dK: 6 }, { Q, K, V })).toBe('dk');
    expect(refusal({ heads: 4 }, { Q, K, V })).toBe('headsSplit');
    expect(buildModel({ dModel: 8 }, { Wq: randomMatrix(8, 2, 5) }).config.dK).toBe(2);
    expect(refusal({ dModel: 8, dK: 8 }, { Wq: randomMatrix(8, 2, 5) })).toBe('dk');
  });

  it('heads are read from given weights; a mask cannot apply to them', () => {
    const eye = [[1, 0], [0, 1]];
    expect(buildModel({}, { weights: [eye, eye, eye] }, ALL).config.heads).toBe(3);
    expect(refusal({ heads: 2 }, { weights: [eye, eye, eye] })).toBe('weightsHeads');
    expect(refusal({ mask: 'causal' }, { weights: eye })).toBe('weightsMask');
    // A fully masked row (all 0) and float16-like rounding are accepted; a row summing to 0.9 is not.
    expect(refusal({}, { weights: [[0, 0], [0.501, 0.5]] })).toBeNull();
    expect(refusal({}, { weights: [[0.5, 0.4], [0, 1]] })).toBe('weightsRow');
    expect(refusal({}, { weights: [[-0.1, 1.1], [0, 1]] })).toBe('weightsRange');
    expect(refusal({}, { weights: [[0.5, 0.5, 0], [0, 1, 0]] })).toBe('weightsSquare');
  });

  it('rows may be typed arrays; an entry that is not a number, a null row or a flat array is refused, never read as 0 or 1', () => {
    const rows = [new Float32Array([1, 0]), new Float32Array([0, 1])];
    expect(buildModel({}, { Q: rows, K: rows, V: rows }, ALL).config.dK).toBe(2);
    expect(refusal({}, { weights: rows })).toBeNull();
    const eye = [[1, 0], [0, 1]];
    expect(refusal({}, { Q: [[1, 0], null], K: eye, V: eye })).toBe('notMatrix');
    expect(refusal({}, { Q: [1, 0], K: eye, V: eye })).toBe('notMatrix');
    expect(refusal({}, { Q: { rows: 2, cols: 2, data: [1, null, 0, 1] }, K: eye, V: eye })).toBe('notMatrix');
    expect(refusal({}, { Q: { rows: 2, cols: 2, data: '1001' }, K: eye, V: eye })).toBe('notMatrix');
    expect(refusal({}, { weights: [[true, false], [0.5, 0.5]] })).toBe('notMatrix');
    expect(refusal({}, { weights: [[1, 0], null] })).toBe('notMatrix');
  });

  it('panels that compute from X refuse Q, K, V and weights by default', () => {
    const m = randomMatrix(2, 2, 6);
    expect(refusal({}, { Q: m, K: m, V: m }, {})).toBe('panelNeedsXqkv');
    expect(refusal({}, { weights: [[1, 0], [0, 1]] }, {})).toBe('panelNeedsXweights');
    expect(refusal({}, { X: randomMatrix(2, 8, 7) }, {})).toBeNull();
  });
});

describe('tokens', () => {
  it('the attribute: a JSON array, or tokens separated by spaces, each kept as given', () => {
    expect(parseTokens('didn\'t ▁the ##ing')).toEqual(["didn't", '▁the', '##ing']);
    expect(parseTokens(' ["New York", "didn\'t"] ')).toEqual(['New York', "didn't"]);
    expect(buildModel({ tokens: "didn't ▁the" }).tokens).toEqual(["didn't", '▁the']);
    expect(buildModel({ sentence: "didn't" }).tokens).toEqual(['didn', 't']); // the sentence is split
  });

  it('one token per row of the author’s matrix, else an error; the default sentence gives x1…xn', () => {
    const X = randomMatrix(3, 8, 8);
    expect(buildModel({}, { X, tokens: ['a', 'b', 'c'] }).tokens).toEqual(['a', 'b', 'c']);
    expect(buildModel({}, { X }).tokens).toEqual(['x1', 'x2', 'x3']);
    expect(refusal({}, { X, tokens: ['a', 'b'] })).toBe('tokensFewer');
    expect(refusal({ tokens: 'a b c d' }, { X })).toBe('tokensMore');
    expect(refusal({ sentence: 'a b' }, { X })).toBe('sentenceFewer');
    expect(refusal({}, { X, tokens: ['a', 2, 'c'] })).toBe('tokensType');
  });
});

describe('the traced result of given Q, K, V', () => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(true);
  });

  it('each head is the library’s scaled dot-product attention on its slices; W_O applied to the concatenation', () => {
    const [Q, K, V, Wo] = [randomMatrix(4, 6, 9), randomMatrix(4, 6, 10), randomMatrix(4, 4, 11), randomMatrix(4, 5, 12)];
    const model = buildModel({ heads: 2, mask: 'causal' }, { Q, K, V, Wo }, ALL);
    const r = ownResult(lab, model);
    const cols = (m, from, count) => ({ rows: m.rows, cols: count, data: Float32Array.from({ length: m.rows * count }, (_, k) => m.data[Math.floor(k / count) * m.cols + from + (k % count)]) });
    const want = [0, 1].map((h) => lab.scaledDotProductAttention(cols(Q, 3 * h, 3), cols(K, 3 * h, 3), cols(V, 2 * h, 2), { mask: 'causal' }));
    expect(r.heads.map((h) => Array.from(h.weights.data))).toEqual(want.map((w) => Array.from(w.weights.data)));
    expect(Array.from(cols(r.concat, 2, 2).data)).toEqual(Array.from(want[1].output.data));
    expect(Array.from(r.output.data)).toEqual(Array.from(lab.matmul(r.concat, Wo).data));
    expect(model.config.dModel).toBe(5);
  });
});
