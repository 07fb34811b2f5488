// What <attention-positions> computes, apart from its DOM: the sinusoidal encoding P and P Pᵀ
// from the library, and the swap experiment: self-attention on X and on X with two tokens
// swapped, without and with P added. Without P the weights only permute (permutation
// equivariance); with P they change.
import { firstColumns } from '../../first-columns.js';
import { copyMatrixOrNull } from '../../model.js';
import { traceMatrix } from '../../trace-view.js';

/** Positions plotted in the chart of P's columns. */
export const CHART_POSITIONS = 64;

/** The columns plotted against position: two of the fastest pair, then slower sines. */
export function chartColumns(d) {
  return [0, 1, 2, 4].filter((j) => j < d);
}

/** The two positions to swap from the `swap` attribute ("i j"), clamped to 0…n−1 and distinct. */
export function swapPair(text, n) {
  const parts = String(text ?? '').trim().split(/[\s,;]+/).filter(Boolean).map(Number);
  const clamp = (v, fallback) => (Number.isFinite(v) ? Math.min(n - 1, Math.max(0, Math.round(v))) : fallback);
  // Default: the second and third tokens (the first two when there are only two).
  const first = n >= 3 ? 1 : 0;
  let i = clamp(parts[0], first);
  let j = clamp(parts[1], first + 1);
  if (i === j) j = i === n - 1 ? Math.max(0, i - 1) : i + 1;
  return [Math.min(i, j), Math.max(i, j)];
}

/** Rows i and j of M exchanged (a rearrangement: no number is computed). */
export function swapRows(M, i, j) {
  const data = Float32Array.from(M.data);
  data.set(M.data.subarray(i * M.cols, (i + 1) * M.cols), j * M.cols);
  data.set(M.data.subarray(j * M.cols, (j + 1) * M.cols), i * M.cols);
  return { rows: M.rows, cols: M.cols, data };
}

/** Largest |B[π(a)][π(b)] − A[a][b]| for the transposition π = (i j): 0 when B is A permuted. */
/**
 * The largest difference two weight matrices (entries in [0, 1], from float32 sums of a few terms)
 * may show and still be called equal: float32 rounding, not a change. The sentences under the swap
 * figures say "equal" or "differ" by it (sameUpToRounding), not in advance.
 */
export const ROUNDING = 1e-6;
export const sameUpToRounding = (diff) => diff <= ROUNDING;

export function permutedDifference(A, B, i, j) {
  const p = (k) => (k === i ? j : k === j ? i : k);
  let worst = 0;
  for (let a = 0; a < A.rows; a++) for (let b = 0; b < A.cols; b++) worst = Math.max(worst, Math.abs(B.data[p(a) * B.cols + p(b)] - A.data[a * A.cols + b]));
  return worst;
}

/** P (n×d), the first CHART_POSITIONS rows of the encoding for the chart, and P Pᵀ, from the library. */
export function encodingOf(lab, n, d) {
  const P = copyMatrixOrNull(lab.positionalEncoding(n, d));
  const chart = copyMatrixOrNull(lab.positionalEncoding(CHART_POSITIONS, d));
  // P Pᵀ: the scores step (QKᵀ with scale 1) of attention with Q = K = V = P.
  const PPt = traceMatrix(lab.scaledDotProductAttention(P, P, P, { scale: 1, trace: true }), 'scores');
  return { P, chart, PPt };
}

/**
 * Self-attention weights (the model's first head) on X and on X with tokens i and j swapped,
 * without P (noP, noPs) and with P added (withP, withPs), each pair's permuted difference, X + P,
 * and the swapped tokens.
 */
export function swapExperiment(lab, model, i, j) {
  const { X, config, tokens } = model;
  const head = { Wq: firstColumns(model.Wq, config.dK), Wk: firstColumns(model.Wk, config.dK), Wv: firstColumns(model.Wv, config.dK) };
  const attend = (M) => lab.selfAttention(M, head).weights;
  const Xs = swapRows(X, i, j);
  const XP = copyMatrixOrNull(lab.addPositionalEncoding(X));
  const swappedTokens = tokens.slice();
  [swappedTokens[i], swappedTokens[j]] = [tokens[j], tokens[i]];
  const noP = attend(X);
  const noPs = attend(Xs);
  const withP = attend(XP);
  const withPs = attend(copyMatrixOrNull(lab.addPositionalEncoding(Xs)));
  return { i, j, XP, swappedTokens, noP, noPs, withP, withPs, diffNoP: permutedDifference(noP, noPs, i, j), diffWithP: permutedDifference(withP, withPs, i, j) };
}
