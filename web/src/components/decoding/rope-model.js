// <attention-decoding>'s RoPE section, DOM-free. One query q and one key k of the sentence (head
// 0's query of the first token, key of the second), each placed at every position 0 … P − 1 and
// rotated there by lab.rotaryEmbedding; the angles p·θ_i are lab.rotaryAngles; the scores
// q_rot(m)·k_rot(n) are lab.batchedAttention's `scores` step (scale 1). They depend on m − n only:
// constant along every diagonal, and unchanged when both positions move by the same shift.

/** Positions shown. */
export const ROPE_POSITIONS = 12;

/** P copies of row r of M, as a P × cols Matrix. */
export function repeatRow(M, r, P) {
  const row = M.data.subarray(r * M.cols, (r + 1) * M.cols);
  const data = new Float32Array(P * M.cols);
  for (let p = 0; p < P; p++) data.set(row, p * M.cols);
  return { rows: P, cols: M.cols, data };
}

/** The P × P scores A Bᵀ of two P × d matrices, from lab.batchedAttention's trace (scale 1). */
export function scoresOf(lab, A, B) {
  const t = (M) => ({ shape: [1, 1, M.rows, M.cols], data: M.data });
  const r = lab.batchedAttention(t(A), t(B), t(B), { scale: 1, trace: true });
  const s = r.steps.find((x) => x.id === 'scores').tensor;
  return { rows: A.rows, cols: B.rows, data: s.data };
}

/** The largest max − min along any diagonal i − j = const of a square matrix. */
export function diagonalSpread(S) {
  let worst = 0;
  for (let k = -(S.rows - 1); k < S.cols; k++) {
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = Math.max(0, -k); i < S.rows && i + k < S.cols; i++) {
      const v = S.data[i * S.cols + i + k];
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    worst = Math.max(worst, hi - lo);
  }
  return worst;
}

/** The largest |a − b| over two matrices of one shape. */
const largestDifference = (a, b) => a.data.reduce((worst, v, k) => Math.max(worst, Math.abs(v - b.data[k])), 0);

/**
 * RoPE at positions 0 … P − 1 with `base`, and again moved by `shift`: { angles (P × d/2), q, k
 * (rotated, P × d), scores, shifted, spread (largest along a diagonal), moved (largest |scores −
 * shifted|), plain (the unrotated q·k) }. d must be even.
 */
export function ropeRun(lab, { Q, K }, { base, shift, positions = ROPE_POSITIONS }) {
  const d = Q.cols;
  const q = repeatRow(Q, 0, positions);
  const k = repeatRow(K, Math.min(1, K.rows - 1), positions);
  const rotate = (M, offset) => lab.rotaryEmbedding(M, { base, offset });
  const [qr, kr, qs, ks] = [rotate(q, 0), rotate(k, 0), rotate(q, shift), rotate(k, shift)];
  const scores = scoresOf(lab, qr, kr);
  const shifted = scoresOf(lab, qs, ks);
  const plain = scoresOf(lab, { rows: 1, cols: d, data: q.data.subarray(0, d) }, { rows: 1, cols: d, data: k.data.subarray(0, d) }).data[0];
  const angles = lab.rotaryAngles(positions, d, { base });
  return { angles, q: qr, k: kr, scores, shifted, spread: diagonalSpread(scores), moved: largestDifference(scores, shifted), plain };
}

/** Pair i of the rotated rows (rotate-half pairing: coordinates i and i + d/2), as [x, y] per position. */
export function pairPoints(M, i) {
  const half = M.cols / 2;
  return Array.from({ length: M.rows }, (_, p) => [M.data[p * M.cols + i], M.data[p * M.cols + i + half]]);
}
