// <attention-decoding>'s soft-capping and sliding-window sections, DOM-free. Every number is the
// library's: the scores before and after the cap are lab.batchedAttention's trace steps `scores`
// and `capped`; the curve c·tanh(s/c) is the `capped` step of a call whose scores are the points
// s themselves (one query of width 1 equal to 1, keys equal to s, scale 1).
import { isMaskedValue } from '../../format.js';
import { rowsTensor, tensorMatrix } from './kv-model.js';

/** Points on the curve: s from −4c to 4c. */
export const CURVE_POINTS = 41;

const stepOf = (r, id) => tensorMatrix(r.steps.find((s) => s.id === id).tensor);

/** 1 where the `biased` step shows a key (not hidden by a rule), 0 where hidden. */
export function visibleMask(r) {
  const biased = r.steps.find((s) => s.id === 'biased').tensor.data;
  return Uint8Array.from(biased, (v) => (isMaskedValue(v) ? 0 : 1));
}

/** Causal attention over the sentence's head 0 with and without the cap c: scores, capped, both weights. */
export function softcapRun(lab, { Q, K, V }, c) {
  const n = Q.rows;
  const args = [rowsTensor(Q, 0, n), rowsTensor(K, 0, n), rowsTensor(V, 0, n)];
  const capped = lab.batchedAttention(...args, { causal: true, softcap: c, trace: true });
  const plain = lab.batchedAttention(...args, { causal: true, trace: true });
  return { scores: stepOf(capped, 'scores'), capped: stepOf(capped, 'capped'), weights: stepOf(capped, 'weights'), plainWeights: stepOf(plain, 'weights'), mask: visibleMask(capped) };
}

/** The curve c·tanh(s/c) at CURVE_POINTS values of s in [−4c, 4c], from the library: { s, capped } (Float32Arrays). */
export function softcapCurve(lab, c) {
  const s = Float32Array.from({ length: CURVE_POINTS }, (_, k) => -4 * c + (8 * c * k) / (CURVE_POINTS - 1));
  const m = s.length;
  const r = lab.batchedAttention({ shape: [1, 1, 1, 1], data: [1] }, { shape: [1, 1, m, 1], data: s }, { shape: [1, 1, m, 1], data: new Float32Array(m) }, { scale: 1, softcap: c, trace: true });
  return { s: r.steps.find((x) => x.id === 'scores').tensor.data, capped: r.steps.find((x) => x.id === 'capped').tensor.data };
}

/** The largest |entry| of a matrix (the cap bounds every capped score by c). */
export function largestMagnitude(M) {
  let worst = 0;
  for (const v of M.data) worst = Math.max(worst, Math.abs(v));
  return worst;
}

/**
 * The largest max/min of the visible weights within one row: capped scores lie in (−c, c), so it
 * stays below e^(2c); a row with one visible key has ratio 1.
 */
export function largestWeightRatio(W, mask) {
  let worst = 1;
  for (let i = 0; i < W.rows; i++) {
    let [lo, hi] = [Infinity, 0];
    for (let j = 0; j < W.cols; j++) {
      if (!mask[i * W.cols + j]) continue;
      const w = W.data[i * W.cols + j];
      [lo, hi] = [Math.min(lo, w), Math.max(hi, w)];
    }
    if (hi > 0) worst = Math.max(worst, hi / lo);
  }
  return worst;
}

/** A factor such as e^(2c) with three significant digits: 2.72, 2.69×10⁴³. */
export function factorText(v) {
  if (v < 1e6) return String(Number(v.toPrecision(3)));
  const e = Math.floor(Math.log10(v));
  const sup = String(e).replace(/\d/g, (d) => '⁰¹²³⁴⁵⁶⁷⁸⁹'[d]);
  return `${(v / 10 ** e).toFixed(2)}×10${sup}`;
}

/** Causal attention with a sliding window of w keys: the weights and which keys each query sees. */
export function windowRun(lab, { Q, K, V }, w) {
  const n = Q.rows;
  const r = lab.batchedAttention(rowsTensor(Q, 0, n), rowsTensor(K, 0, n), rowsTensor(V, 0, n), { causal: true, window: w, trace: true });
  const mask = visibleMask(r);
  const seen = Array.from({ length: n }, (_, i) => mask.subarray(i * n, (i + 1) * n).reduce((a, b) => a + b, 0));
  return { weights: tensorMatrix(r.weights), mask, seen };
}
