// Reformer's LSH attention (Kitaev et al. 2020), one hash round, on the reader's sentence, apart
// from its DOM. Reformer ties queries and keys: one vector x per token (here the panel's keys K).
// Angular LSH: a seeded random rotation R (d × b/2) and bucket(x) = argmax([xR ; −xR]) over b
// buckets, so vectors pointing in similar directions tend to share a bucket. Each token then
// attends only within its bucket. The rule used here, Reformer's: a token does not attend to
// itself unless nothing else in its bucket is visible to it (with Q = K its own score would
// dominate); under a causal mask only earlier tokens of the bucket are visible. The projections
// xR and the weights are the library's; the argmax and the 0/1 mask are computed here.
// Unit tests: tests/js/cost-lsh.test.js.
import { randomMatrix } from '../../random.js';

/** Buckets b of the one hash round shown (fixed: no setting of its own). */
export const LSH_BUCKETS = 4;

/** The seeded rotation R (d × b/2, N(0, 1) entries) for the panel's seed. */
export function lshRotation(d, buckets, seed) {
  return randomMatrix(d, buckets / 2, seed * 7 + 41);
}

/** The rows of X scaled to length 1 (a zero row stays zero). */
export function unitRows(X) {
  const data = new Float32Array(X.data.length);
  for (let i = 0; i < X.rows; i++) {
    const row = X.data.subarray(i * X.cols, (i + 1) * X.cols);
    const norm = Math.hypot(...row);
    for (let c = 0; c < X.cols; c++) data[i * X.cols + c] = norm > 0 ? row[c] / norm : 0;
  }
  return { rows: X.rows, cols: X.cols, data };
}

/** bucket(x) = argmax([xR ; −xR]) for each row of the projections P = xR (n × b/2); ties go to the lower bucket. */
export function bucketsOf(P) {
  const half = P.cols;
  const out = new Int32Array(P.rows);
  for (let i = 0; i < P.rows; i++) {
    let best = 0;
    let bestValue = -Infinity;
    for (let c = 0; c < 2 * half; c++) {
      const v = c < half ? P.data[i * half + c] : -P.data[i * half + c - half];
      if (v > bestValue) [best, bestValue] = [c, v];
    }
    out[i] = best;
  }
  return out;
}

/**
 * The n×n 0/1 mask (1 = may attend): same bucket, j ≤ i when causal, and not itself unless the
 * token has no other visible key in its bucket (then it sees only itself, so no row is empty).
 */
export function bucketMask(buckets, causal) {
  const n = buckets.length;
  const bits = new Uint8Array(n * n);
  for (let i = 0; i < n; i++) {
    let others = 0;
    for (let j = 0; j < n; j++) {
      if (j === i || buckets[j] !== buckets[i] || (causal && j > i)) continue;
      bits[i * n + j] = 1;
      others++;
    }
    if (others === 0) bits[i * n + i] = 1;
  }
  return bits;
}

/**
 * One LSH round on the sentence results (sentence.js): the shared vectors x = K, their unit
 * rows k̂ (the keys), the projections k̂R, the buckets, the mask, and softmax(x k̂ᵀ/√d) V with
 * the mask, from the library. `scored` counts the query–key pairs scored, of n².
 */
export function lshResults(lab, results, { seed, causal, buckets = LSH_BUCKETS }) {
  const { K, V } = results.qkv;
  const keys = unitRows(K);
  const R = lshRotation(K.cols, buckets, seed);
  const projected = lab.matmul(keys, R);
  const bucket = bucketsOf(projected);
  const mask = bucketMask(bucket, causal);
  const n = K.rows;
  const attention = lab.scaledDotProductAttention(K, keys, V, { mask: { rows: n, cols: n, data: mask } });
  const scored = mask.reduce((s, v) => s + v, 0);
  return { n, buckets, R, keys, projected, bucket, mask, weights: attention.weights, output: attention.output, scored };
}
