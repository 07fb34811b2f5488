// The arithmetic behind one cell of a step of attention, from the library's own matrices (the
// trace): a score's dot product term by term, its division by √d_k, a weight's softmax over its
// row, an output's weighted sum (and any product of two matrices, e.g. concat · W_O). No DOM:
// heatmap/arithmetic.js writes it out. The page computes each sum itself, in float64 from the
// library's float32 inputs, and says whether it agrees with the library's value.
import { isMaskedValue } from './format.js';

/** More terms than this are shown as the first 3, "…", the last 2 (the sum takes them all). */
export const MAX_TERMS = 6;

/** The indices of the terms shown of `count`, null where "…" stands. */
export function shownTerms(count) {
  if (count <= MAX_TERMS) return Array.from({ length: count }, (_, k) => k);
  return [0, 1, 2, null, count - 2, count - 1];
}

/**
 * Whether the page's float64 result agrees with the library's float32 one: within float32
 * rounding of the terms summed (`size`: the sum of their magnitudes), as a kernel that adds them in
 * another order (SIMD lanes, fused multiply-add) may round.
 */
export function agrees(computed, value, size = Math.abs(value)) {
  return Math.abs(computed - value) <= 1e-6 * (size + Math.abs(value)) + 1e-7 + 2e-5 * Math.abs(value);
}

const at = (M, i, j) => M.data[i * M.cols + j];

/** Σ_k a_k × b_k in float64, with the magnitude of the terms. */
function dot(terms) {
  let sum = 0;
  let size = 0;
  for (const { a, b } of terms) {
    sum += a * b;
    size += Math.abs(a * b);
  }
  return { sum, size };
}

/**
 * The arithmetic of cell (i, j) of step `step` of matrices `m` (each { rows, cols, data }), or null
 * when the step has none here (another step, or an operand missing: additive scores, given weights).
 * - 'scores': s_ij = q_i · k_j (m.Q, m.K; m.scores the library's);
 * - 'scaled': s_ij ÷ √d_k (m.scores, m.scaled; d_k = m.Q.cols, or m.dk);
 * - 'weights': a_ij = exp(x_ij − max_i) / Σ_k exp(x_ik − max_i), x = m.logits (what the softmax
 *   took: the masked step's matrix, else the scaled scores), m.mask its visibility bits (1 = seen;
 *   without them, the masked stand-in for −∞ is masked); m.weights the library's;
 * - 'output': o_ij = Σ_k a_ik × v_kj (m.weights, m.V; m.output the library's);
 * - 'product': c_ij = Σ_k a_ik × b_kj (m.A, m.B; m.C the library's).
 * Every result has { step, i, j, value: the library's number, computed: the page's, agrees }.
 */
export function cellArithmetic(step, i, j, m) {
  switch (step) {
    case 'scores':
      return m.Q && m.K && m.scores ? productOf('scores', i, j, m.Q, (k) => at(m.K, j, k), m.scores) : null;
    case 'scaled':
      return m.scores && m.scaled && (m.Q || m.dk) ? scaledOf(i, j, m) : null;
    case 'weights':
      return m.logits && m.weights ? weightOf(i, j, m) : null;
    case 'output':
      return m.weights && m.V && m.output ? productOf('output', i, j, m.weights, (k) => at(m.V, k, j), m.output) : null;
    case 'product':
      return m.A && m.B && m.C ? productOf('product', i, j, m.A, (k) => at(m.B, k, j), m.C) : null;
    default:
      return null;
  }
}

/** Row i of A times a column given entry by entry (`b(k)`), term by term: { terms: [{ a, b }], shown, computed, value, agrees }. */
function productOf(step, i, j, A, b, C) {
  const n = A.cols;
  const terms = Array.from({ length: n }, (_, k) => ({ a: at(A, i, k), b: b(k) }));
  const { sum, size } = dot(terms);
  const value = at(C, i, j);
  return { step, i, j, terms, shown: shownTerms(n), computed: sum, value, agrees: agrees(sum, value, size) };
}

function scaledOf(i, j, m) {
  const dk = m.dk ?? m.Q.cols;
  const score = at(m.scores, i, j);
  const root = Math.sqrt(dk);
  const computed = score / root;
  const value = at(m.scaled, i, j);
  return { step: 'scaled', i, j, dk, root, score, computed, value, agrees: agrees(computed, value) };
}

/**
 * Row i of the softmax: each entry's x, whether it is masked, and exp(x − max) (0 when masked); the
 * sum of the exponentials, this cell's one and their quotient. A row with every entry masked has
 * weights 0 (the library's rule), and says so (allMasked).
 */
function weightOf(i, j, m) {
  const { logits: L, mask } = m;
  const n = L.cols;
  const masked = (k) => (mask ? mask[i * n + k] === 0 : isMaskedValue(at(L, i, k)));
  let max = -Infinity;
  for (let k = 0; k < n; k++) if (!masked(k)) max = Math.max(max, at(L, i, k));
  const row = Array.from({ length: n }, (_, k) => {
    const x = at(L, i, k);
    return masked(k) ? { x, masked: true, e: 0 } : { x, masked: false, e: Math.exp(x - max) };
  });
  const sum = row.reduce((s, r) => s + r.e, 0);
  const allMasked = max === -Infinity;
  const computed = allMasked ? 0 : row[j].e / sum;
  const value = at(m.weights, i, j);
  return { step: 'weights', i, j, row, shown: shownTerms(n), max: allMasked ? null : max, sum, e: row[j].e, masked: row[j].masked, allMasked, computed, value, agrees: agrees(computed, value) };
}
