// The models of an author's Q, K, V and of a trained model's attention weights (see
// own-numbers.js for the checks they share, model.js for the seeded and X-and-weights model).
import { withMask } from './config.js';
import { LIMITS } from './limits.js';
import { copyMatrixOrNull } from './matrix-input.js';
import { ownMatrix, refuse, tokensForRows, widthToDk } from './own-numbers.js';

const shapeOf = (m) => `${m.rows}×${m.cols}`;

/** Q, K, V as given (one row per token each; Q and K as wide), and W_O with several heads. */
export function qkvModel(settings, inputs, given) {
  const missing = ['Q', 'K', 'V'].filter((n) => inputs[n] == null);
  if (missing.length) refuse('qkvMissing', { missing: missing.map((n) => `inputs.${n}`).join(', ') });
  const [Q, K, V] = ['Q', 'K', 'V'].map((n) => ownMatrix(inputs, n));
  if (Q.rows !== K.rows || K.rows !== V.rows) refuse('qkvRows', { q: shapeOf(Q), k: shapeOf(K), v: shapeOf(V) });
  if (Q.cols !== K.cols) refuse('qkWidth', { q: shapeOf(Q), k: shapeOf(K) });
  const c = { ...settings };
  c.dK = widthToDk(c, given, 'Q', Q.cols);
  if (V.cols % c.heads !== 0) refuse('headsSplit', { name: 'V', key: 'V', cols: V.cols, h: c.heads });
  let Wo = null;
  if (inputs.Wo != null) {
    if (c.heads === 1) refuse('woOneHead', {});
    Wo = ownMatrix(inputs, 'Wo');
    if (Wo.rows !== V.cols) refuse('woRows', { shape: shapeOf(Wo), v: shapeOf(V), cols: V.cols });
  }
  // d_model is only the width of the output after the author's W_O.
  if (Wo) c.dModel = Wo.cols;
  const tokens = tokensForRows(c, given, inputs, Q.rows, 'Q');
  return { mode: 'qkv', given: new Set(['Q', 'K', 'V', ...(Wo ? ['Wo'] : [])]), ...withMask(c, Q.rows), tokens, Q, K, V, Wo, X: null, dv: V.cols / c.heads };
}

/** A trained model's attention weights, n×n or heads×n×n, shown as given (nothing is computed from them). */
export function weightsModel(settings, inputs, given) {
  const heads = ownWeights(inputs.weights);
  const c = { ...settings };
  if (given.has('heads') && c.heads !== heads.length) refuse('weightsHeads', { count: heads.length, h: c.heads });
  if (given.has('mask') && c.mask !== 'none') refuse('weightsMask', { mask: c.mask });
  c.heads = heads.length;
  c.mask = 'none';
  const n = heads[0].rows;
  const tokens = tokensForRows(c, given, inputs, n, 'weights');
  return { mode: 'weights', given: new Set(['weights']), ...withMask(c, n), tokens, weights: heads, X: null };
}

// Weights of a row of a softmax sum to 1 (0 when fully masked); exported float16 weights are off by ~1e-3.
const ROW_SUM_TOLERANCE = 0.02;
const MAX_HEADS = 32;

/** The heads' n×n matrices of `value`: nested n×n or heads×n×n arrays, or one { rows, cols, data }; checked. */
export function ownWeights(value) {
  const depth = (v) => (Array.isArray(v) || ArrayBuffer.isView(v) ? 1 + (v.length ? depth(v[0]) : 0) : 0);
  const d = Array.isArray(value) ? depth(value) : 0;
  if (d >= 4) refuse('weightsRank', { rank: d });
  const list = d === 3 ? value : [value];
  if (ArrayBuffer.isView(value) || !list.length) refuse('notMatrix', { name: 'weights', key: 'weights' });
  if (list.length > MAX_HEADS) refuse('weightsTooManyHeads', { count: list.length, max: MAX_HEADS });
  const heads = list.map((w, h) => {
    const m = copyMatrixOrNull(w);
    if (!m || m.rows === 0) refuse('notMatrix', { name: d === 3 ? `weights[${h}]` : 'weights', key: d === 3 ? `weights[${h}]` : 'weights' });
    if (m.rows !== m.cols) refuse('weightsSquare', { shape: shapeOf(m), h: h + 1 });
    return m;
  });
  const n = heads[0].rows;
  if (n > LIMITS.maxTokens) refuse('tooMany', { name: 'weights', key: 'weights', rows: n, max: LIMITS.maxTokens });
  heads.forEach((m, h) => {
    if (m.rows !== n) refuse('weightsRagged', { h: h + 1, shape: shapeOf(m), first: shapeOf(heads[0]) });
    checkRows(m, h);
  });
  return heads;
}

// Every entry finite and in [0, 1]; every row sums to 1 (or is all 0).
function checkRows(m, h) {
  for (let i = 0; i < m.rows; i++) {
    let sum = 0;
    for (let j = 0; j < m.cols; j++) {
      const v = m.data[i * m.cols + j];
      if (!Number.isFinite(v)) refuse('nonFinite', { name: 'weights', key: `weights${h ? `[${h}]` : ''}`, i, j, value: String(v) });
      if (v < -1e-6 || v > 1 + 1e-3) refuse('weightsRange', { h: h + 1, i, j, value: String(v) });
      sum += v;
    }
    if (Math.abs(sum - 1) > ROW_SUM_TOLERANCE && Math.abs(sum) > ROW_SUM_TOLERANCE) refuse('weightsRow', { h: h + 1, i, sum: sum.toFixed(3) });
  }
}
