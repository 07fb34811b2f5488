// <attention-decoding>'s ALiBi section, DOM-free. ALiBi adds −m_h·(i − j) to head h's scores: no
// position vector, a penalty growing with the distance, steep in some heads, gentle in others.
// The slopes and the bias are lab.alibiSlopes and lab.alibiBias; the weights are
// lab.batchedAttention with that bias, every head given the same query so that only the slope
// differs between heads.
import { exact, isMaskedValue } from '../../format.js';
import { rowsTensor } from './kv-model.js';

/** One head's n×n slice of a [1, heads, n, n] tensor, as a Matrix. */
export function headSlice(T, h) {
  const [n, m] = T.shape.slice(-2);
  return { rows: n, cols: m, data: T.data.slice(h * n * m, (h + 1) * n * m) };
}

/** Σ_j w_ij (i − j) averaged over the rows: how far back a head looks, in tokens. */
export function meanDistance(W) {
  let sum = 0;
  for (let i = 0; i < W.rows; i++) for (let j = 0; j < W.cols; j++) sum += W.data[i * W.cols + j] * (i - j);
  return sum / W.rows;
}

/**
 * ALiBi for `heads` heads over head 0's Q, K, V: { slopes, heads: [{ slope, bias, mask, weights,
 * distance }] } (bias and weights n×n; mask 1 where the bias is finite), and the weights and
 * distance without a bias.
 */
export function alibiRun(lab, { Q, K, V }, heads) {
  const n = Q.rows;
  const slopes = Array.from(lab.alibiSlopes(heads));
  const bias = lab.alibiBias({ heads, queries: n, keys: n });
  const query = { shape: [1, heads, n, Q.cols], data: new Float32Array(heads * n * Q.cols) };
  for (let h = 0; h < heads; h++) query.data.set(Q.data.subarray(0, n * Q.cols), h * n * Q.cols);
  const kv = [rowsTensor(K, 0, n), rowsTensor(V, 0, n)];
  const biased = lab.batchedAttention(query, ...kv, { causal: true, bias });
  const plain = lab.batchedAttention(rowsTensor(Q, 0, n), ...kv, { causal: true });
  const plainWeights = headSlice(plain.weights, 0);
  const perHead = slopes.map((slope, h) => {
    const b = headSlice(bias, h);
    const weights = headSlice(biased.weights, h);
    return { slope, bias: b, mask: Uint8Array.from(b.data, (v) => (isMaskedValue(v) ? 0 : 1)), weights, distance: meanDistance(weights) };
  });
  return { slopes, heads: perHead, plainWeights, plainDistance: meanDistance(plainWeights) };
}

/** A slope as a fraction when it is a power of two (1/2, 1/256), else its float32 value. */
export function slopeText(m) {
  const k = Math.log2(m);
  return Number.isInteger(k) && k < 0 ? `1/${2 ** -k}` : exact(m);
}
