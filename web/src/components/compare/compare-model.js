// What <attention-compare> computes, apart from its DOM: the scoring formulas (row vectors, as
// the library's trace writes them), entropy per row, operation counts, the seeded weights of
// additive scoring, and Dive into Deep Learning 10.3's additive example run by the library.
import { randomMatrix } from '../../random.js';

/**
 * The three scoring functions of a query row q and a key row k, as TeX (language-free: the names
 * are written beside them). Additive: q W_q + k W_k is a row of d_h hidden units, times w_v (d_h×1).
 */
export const SCORING_TEX = {
  additive: String.raw`a(\mathbf q, \mathbf k) = \tanh(\mathbf q W_q + \mathbf k W_k)\,\mathbf w_v`,
  scaled: String.raw`a(\mathbf q, \mathbf k) = \frac{\mathbf q \mathbf k^{\top}}{\sqrt{d_k}}`,
  dot: String.raw`a(\mathbf q, \mathbf k) = \mathbf q \mathbf k^{\top}`,
};

/** Shannon entropy (nats) of each row of a weight matrix. */
export function rowEntropy(weights) {
  const out = [];
  for (let i = 0; i < weights.rows; i++) {
    let h = 0;
    for (let j = 0; j < weights.cols; j++) {
      const p = weights.data[i * weights.cols + j];
      if (p > 0) h -= p * Math.log(p);
    }
    out.push(h);
  }
  return out;
}

/** Operation counts (a multiply-add is 2 FLOPs; exp and tanh count 1); `dh`: additive scoring's hidden units. */
export function costs({ n, m, dq, dk, dv, dh }) {
  const softmax = 4 * n * m;
  const mix = 2 * n * m * dv;
  return {
    additive: { params: dq * dh + dk * dh + dh, flops: 2 * n * dq * dh + 2 * m * dk * dh + n * m * (dh + dh + 2 * dh) + softmax + mix },
    scaled: { params: 0, flops: 2 * n * m * dk + n * m + softmax + mix },
    dot: { params: 0, flops: 2 * n * m * dk + softmax + mix },
  };
}

/** Seeded additive-scoring weights: W_q (dq×dh), W_k (dk×dh), w_v (dh), each scaled by 1/√(its input width). */
export function additiveWeights(dq, dk, dh, seed) {
  return {
    Wq: randomMatrix(dq, dh, seed, 1 / Math.sqrt(dq)),
    Wk: randomMatrix(dk, dh, seed + 1, 1 / Math.sqrt(dk)),
    wv: randomMatrix(1, dh, seed + 2, 1).data,
  };
}

/** Dive into Deep Learning 10.3's example: its sizes and valid lengths. */
export const D2L_EXAMPLE = { queries: 2, dq: 20, keys: 10, dk: 2, dv: 4, validLens: [2, 6] };

/**
 * D2L 10.3's additive attention with the library: 2 seeded normal queries of width 20, 10 keys of
 * width 2 (all ones), values 0…39 as 10×4, valid lengths 2 and 6, `dh` hidden units. Every key is
 * the same, so each query's weights are uniform over its valid keys whatever Q and the weights:
 * the outputs are the means of the first 2 and the first 6 value rows.
 */
export function d2lExample(lab, dh, seed) {
  const { queries, dq, keys, dk, dv, validLens } = D2L_EXAMPLE;
  const Q = randomMatrix(queries, dq, seed * 7 + 31, 1);
  const K = { rows: keys, cols: dk, data: new Float32Array(keys * dk).fill(1) };
  const V = { rows: keys, cols: dv, data: Float32Array.from({ length: keys * dv }, (_, i) => i) };
  const weights = additiveWeights(dq, dk, dh, seed * 7 + 32);
  const result = lab.additiveAttention(Q, K, V, { ...weights, mask: { validLens } });
  return { Q, K, V, validLens, result };
}

/** A matrix's rows rounded to `digits` decimals, e.g. [[2, 3, 4, 5], [10, 11, 12, 13]]. */
export function roundedRows(matrix, digits = 4) {
  return Array.from({ length: matrix.rows }, (_, i) => Array.from(matrix.data.subarray(i * matrix.cols, (i + 1) * matrix.cols), (x) => Number(x.toFixed(digits))));
}
