// Known answers from Dive into Deep Learning (section 11.3, "Attention Scoring
// Functions"): with identical keys (torch.ones) every visible key gets the same
// weight, so values arange(40).reshape(10, 4) with valid lengths 2 and 6 give
// the means of the first 2 and first 6 value rows: [2, 3, 4, 5] and [10, 11, 12, 13].
import { beforeAll, describe, expect, it } from 'vitest';

import { BUILDS, expectClose, loadLab, randomMatrix, rng } from './helpers.js';

const values = Array.from({ length: 10 }, (_, i) => [4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3]); // arange(40).reshape(10, 4)
const ones = (rows, cols) => Array.from({ length: rows }, () => new Array(cols).fill(1));
const EXPECTED_OUTPUT = [
  [2, 3, 4, 5],
  [10, 11, 12, 13],
];
const EXPECTED_WEIGHTS = [
  [0.5, 0.5, 0, 0, 0, 0, 0, 0, 0, 0],
  [1 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6, 0, 0, 0, 0],
];

describe.each(BUILDS)('Dive into Deep Learning known answers ($name build)', ({ simd }) => {
  let lab;
  beforeAll(async () => {
    lab = await loadLab(simd);
  });

  it('additive attention: queries of width 20, keys of width 2, hidden size 8, valid lengths [2, 6]', () => {
    const rand = rng(2020);
    // queries = torch.normal(0, 1, (2, 1, 20)); W_q, W_k, w_v: random as in an untrained AdditiveAttention
    const Q = randomMatrix(rand, 2, 20, -2, 2);
    const result = lab.additiveAttention(Q, ones(10, 2), values, {
      Wq: randomMatrix(rand, 20, 8),
      Wk: randomMatrix(rand, 2, 8),
      wv: Array.from({ length: 8 }, () => rand() - 0.5),
      mask: { validLens: [2, 6] },
    });
    expectClose(result.output, EXPECTED_OUTPUT, { atol: 1e-5, rtol: 1e-6 });
    expectClose(result.weights, EXPECTED_WEIGHTS, { atol: 1e-7, rtol: 1e-6 });
  });

  it('scaled dot-product attention: queries of width 2, valid lengths [2, 6]', () => {
    const Q = randomMatrix(rng(2021), 2, 2, -2, 2); // queries = torch.normal(0, 1, (2, 1, 2))
    const result = lab.scaledDotProductAttention(Q, ones(10, 2), values, { mask: { validLens: [2, 6] } });
    expectClose(result.output, EXPECTED_OUTPUT, { atol: 1e-5, rtol: 1e-6 });
    expectClose(result.weights, EXPECTED_WEIGHTS, { atol: 1e-7, rtol: 1e-6 });
  });

  it('plain dot-product attention (scale: 1) gives the same answer', () => {
    const result = lab.scaledDotProductAttention([[0.3, -1.2], [2, 0.5]], ones(10, 2), values, { mask: { validLens: [2, 6] }, scale: 1 });
    expectClose(result.output, EXPECTED_OUTPUT, { atol: 1e-5, rtol: 1e-6 });
  });

  it('each batch element on its own (one query, a single-number validLens) gives its row', () => {
    const q = [[0.7, -0.1]];
    expectClose(lab.scaledDotProductAttention(q, ones(10, 2), values, { mask: { validLens: 2 } }).output, [EXPECTED_OUTPUT[0]], { atol: 1e-5 });
    expectClose(lab.scaledDotProductAttention(q, ones(10, 2), values, { mask: { validLens: 6 } }).output, [EXPECTED_OUTPUT[1]], { atol: 1e-5 });
  });

  it('masked softmax of d2l 11.3.1: softmax over the first 2 and 3 columns of a 2×4 row pair', () => {
    // masked_softmax(torch.rand(2, 2, 4), torch.tensor([2, 3])): zeros beyond each valid length, rows sum to 1
    const S = [[0.5, 0.2, 0.9, 0.1], [0.3, 0.8, 0.4, 0.6]];
    const W = lab.softmax(S, { mask: { validLens: [2, 3] } });
    const e0 = [Math.exp(0.5), Math.exp(0.2)];
    const e1 = [Math.exp(0.3), Math.exp(0.8), Math.exp(0.4)];
    const z0 = e0[0] + e0[1];
    const z1 = e1[0] + e1[1] + e1[2];
    expectClose(W, [[e0[0] / z0, e0[1] / z0, 0, 0], [e1[0] / z1, e1[1] / z1, e1[2] / z1, 0]], { atol: 1e-7, rtol: 1e-6 });
    expect(W.data[2]).toBe(0);
    expect(W.data[7]).toBe(0);
  });
});
