// Dive into Deep Learning's relative-position argument, computed (DOM-free): for an offset δ
// there is one linear map taking P_i to P_{i+δ} whatever i is. In frequency pair j (columns
// 2j, 2j+1, frequency ω_j = base^(−2j/d)) it is the rotation
//   [P_{i+δ,2j}  ]   [ cos δω_j   sin δω_j ] [P_{i,2j}  ]
//   [P_{i+δ,2j+1}] = [−sin δω_j   cos δω_j ] [P_{i,2j+1}]
// (the angle-sum formulas of sin and cos). R is built here from δ and ω_j in double; P comes
// from lab.positionalEncoding, so the check compares the library's P_{i+δ} with R P_i.

/** The positions i whose P_i is rotated: one near the start, one further on. */
export const ROTATED_POSITIONS = [3, 30];
/** δ runs from 1 to SHIFT_MAX, so i + δ stays within the chart's 64 rows of P. */
export const SHIFT_MAX = 32;
/** The offset and pair shown at first. */
export const DEFAULT_SHIFT = 3;

/** The number of whole (sin, cos) pairs of a width d: with an odd d the last sine has no partner. */
export const pairCount = (d) => Math.floor(d / 2);

/** ω_j = base^(−2j/d): the angle pair j turns by per position. */
export const pairFrequency = (j, d, base = 10000) => base ** ((-2 * j) / d);

/** The 2×2 rotation of pair j for the offset δ, row by row: [[cos δω, sin δω], [−sin δω, cos δω]]. */
export function pairRotation(delta, omega) {
  const [c, s] = [Math.cos(delta * omega), Math.sin(delta * omega)];
  return [
    [c, s],
    [-s, c],
  ];
}

/** R·v for a 2×2 R and a pair v, in double. */
const apply = (R, v) => [R[0][0] * v[0] + R[0][1] * v[1], R[1][0] * v[0] + R[1][1] * v[1]];

/** Pair j of row i of P: [P_{i,2j}, P_{i,2j+1}]. */
const pairOf = (P, i, j) => [P.data[i * P.cols + 2 * j], P.data[i * P.cols + 2 * j + 1]];

/**
 * The whole map for offset δ on row i of P: the largest |(R_j P_i)_k − P_{i+δ,k}| over every
 * pair j (the block-diagonal matrix of all the pairs' rotations, one per frequency).
 */
export function rotationError(P, i, delta, base = 10000) {
  let worst = 0;
  for (let j = 0; j < pairCount(P.cols); j++) {
    const got = apply(pairRotation(delta, pairFrequency(j, P.cols, base)), pairOf(P, i, j));
    const want = pairOf(P, i + delta, j);
    worst = Math.max(worst, Math.abs(got[0] - want[0]), Math.abs(got[1] - want[1]));
  }
  return worst;
}

/** δ and j from the attributes: integers clamped to 1…SHIFT_MAX and 0…pairs − 1 (defaults 3 and 0). */
export function rotationChoice(shiftText, pairText, d) {
  const int = (text, lo, hi, fallback) => {
    const v = Number(String(text ?? '').trim() || NaN);
    return Number.isFinite(v) ? Math.min(hi, Math.max(lo, Math.round(v))) : fallback;
  };
  return { delta: int(shiftText, 1, SHIFT_MAX, DEFAULT_SHIFT), pair: int(pairText, 0, Math.max(0, pairCount(d) - 1), 0) };
}

/**
 * What the panel shows for offset δ and pair j of P (at least max(ROTATED_POSITIONS) + δ + 1
 * rows, d ≥ 2): ω_j, R, and for each position i its pair before, R P_i, the library's P_{i+δ},
 * their largest difference in pair j, and in all pairs (the whole map).
 */
export function rotationCheck(P, delta, pair, base = 10000) {
  const omega = pairFrequency(pair, P.cols, base);
  const R = pairRotation(delta, omega);
  const rows = ROTATED_POSITIONS.map((i) => {
    const before = pairOf(P, i, pair);
    const rotated = apply(R, before);
    const after = pairOf(P, i + delta, pair);
    return { i, before, rotated, after, error: Math.max(Math.abs(rotated[0] - after[0]), Math.abs(rotated[1] - after[1])), allPairs: rotationError(P, i, delta, base) };
  });
  return { delta, pair, omega, R, rows, pairs: pairCount(P.cols), worst: Math.max(...rows.map((r) => r.allPairs)) };
}
