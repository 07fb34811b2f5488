// Keeping float32 results finite. Every input is finite (validate.js), but
// finite inputs can still overflow float32 (|x| > 3.4e38) inside a product.
// Two guards, both throwing AttentionError with code OVERFLOW:
//   - before a call: a bound on |score| by Cauchy-Schwarz (|q·k| <= ‖q‖‖k‖),
//     because an overflowed score could otherwise silently become a zero
//     weight; the bound only trips for inputs near float32's limits;
//   - after a call: every matrix copied out is scanned, so an overflow
//     anywhere else (a projection, a sum of values) is reported, never returned.
import { AttentionError, fail } from './errors.js';

export const FLOAT32_MAX = 3.4028234663852886e38;

/** The largest Euclidean norm of a row, in double (already known for a matrix from toMatrix). */
export function maxRowNorm(m) {
  if (m.maxRowNorm !== undefined) return m.maxRowNorm;
  let best = 0;
  for (let i = 0; i < m.rows; i++) {
    let sum = 0;
    for (let j = i * m.cols; j < (i + 1) * m.cols; j++) sum += m.data[j] * m.data[j];
    if (sum > best) best = sum;
  }
  return Math.sqrt(best);
}

/** The Frobenius norm, in double (bounds ‖xW‖ <= ‖x‖‖W‖_F for any row x). */
export function frobenius(m) {
  let sum = 0;
  for (let i = 0; i < m.data.length; i++) sum += m.data[i] * m.data[i];
  return Math.sqrt(sum);
}

/** Throws when a bound on the scores exceeds float32's range. */
export function checkScoreBound(fn, bound, explain) {
  if (!(bound <= FLOAT32_MAX))
    fail(AttentionError.codes.OVERFLOW, `${fn}: ${explain()} allow values up to ${bound.toExponential(2)}, beyond float32's 3.4e38; rescale the inputs`);
}

/** Throws unless every entry of a freshly computed result is finite. */
export function checkFiniteResult(fn, data) {
  for (let i = 0; i < data.length; i++)
    if (!Number.isFinite(data[i]))
      fail(AttentionError.codes.OVERFLOW, `${fn}: the result overflowed float32 (entry ${i} is ${data[i]}); rescale the inputs`);
}

/** Scaled dot-product scores: |q_i·k_j| <= ‖q_i‖‖k_j‖, so the raw and the scaled scores both stay in float32's range. */
export function checkDotScores(fn, q, k, scale) {
  const [nq, nk] = [maxRowNorm(q), maxRowNorm(k)];
  checkScoreBound(fn, nq * nk * Math.max(1, Math.abs(scale)), () => `rows of Q with norm up to ${nq.toExponential(2)} and of K up to ${nk.toExponential(2)}`);
}

/** Projected queries and keys: ‖x W‖ <= ‖x‖ ‖W‖_F, so the scores of q = xW_Q, k = xW_K are bounded too. */
export function checkProjectedScores(fn, x, wq, wk, scale, wv) {
  const nx = maxRowNorm(x);
  for (const [name, w] of [['Wq', wq], ['Wk', wk], ['Wv', wv]])
    checkScoreBound(fn, nx * frobenius(w), () => `rows of X with norm up to ${nx.toExponential(2)} and ${name} of norm ${frobenius(w).toExponential(2)} (projections)`);
  checkScoreBound(fn, nx * nx * frobenius(wq) * frobenius(wk) * Math.max(1, scale),
    () => `rows of X with norm up to ${nx.toExponential(2)} and Wq, Wk of norms ${frobenius(wq).toExponential(2)}, ${frobenius(wk).toExponential(2)}`);
}
