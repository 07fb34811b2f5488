// The numbers of <attention-backward>, without DOM: one head of the shared input model
// (Q = X W_Q, K = X W_K, V = X W_V through lab.matmul), its forward pass
// O = softmax(mask(QKᵀ · scale)) V with the trace, the upstream gradient of the stated loss
// L = ½‖O − T‖² for a seeded target T (dO = O − T), and lab.attentionBackward's trace. The
// score scale is c/√d_k for a factor c the reader chooses: a large c saturates the softmax.
import { panelSetting, settingValue } from '../../config.js';
import { hashString, randomMatrix } from '../../random.js';
import { stepsById } from '../../trace-view.js';

// The factors c of the score scale c/√d_k the slider offers (c = 1: the Transformer's 1/√d_k), up to
// 128: with many tokens a row needs a far larger score gap before it is one-hot. Its row in the
// settings table (config.js) holds them.
const SCORE_SCALE = panelSetting('backward', 'score-scale');
export const SCALE_FACTORS = SCORE_SCALE.choices;

/** The steps in the order the panel shows them: the forward recap, then the backward pass. */
export const STEP_KEYS = ['S', 'P', 'O', 'dO', 'dV', 'dP', 'dS', 'dQ', 'dK'];

/**
 * The factor used for attribute text `given`: a listed factor as is; another positive number the
 * listed one nearest to it on a log scale; anything else (absent, not a number, ≤ 0) the default.
 */
export const parseFactor = (given) => settingValue(SCORE_SCALE, given);

/** Columns from..from+count of W (a head's slice of W_Q, W_K, W_V), as a new matrix. */
export function columns(W, from, count) {
  if (from < 0 || count < 1 || from + count > W.cols) throw new RangeError(`columns: ${from}..${from + count - 1} is outside a ${W.rows}×${W.cols} matrix`);
  const data = new Float32Array(W.rows * count);
  for (let i = 0; i < W.rows; i++) data.set(W.data.subarray(i * W.cols + from, i * W.cols + from + count), i * count);
  return { rows: W.rows, cols: count, data };
}

/** The seeded target T (n×d_v, standard normal entries) of the loss, its own stream for each seed. */
export function targetFor(n, dv, seed) {
  return randomMatrix(n, dv, (hashString('attention-backward target') ^ Math.imul(seed, 0x9e3779b1)) >>> 0, 1);
}

/**
 * The upstream gradient of L = ½‖O − T‖² (a sum over every entry): dO = ∂L/∂O = O − T, each entry
 * the float32 nearest to the exact difference, and L itself, summed in double.
 */
export function outputGradient(O, T) {
  if (O.rows !== T.rows || O.cols !== T.cols) throw new RangeError(`outputGradient: O is ${O.rows}×${O.cols} but T is ${T.rows}×${T.cols}`);
  const data = new Float32Array(O.data.length);
  let loss = 0;
  for (let k = 0; k < data.length; k++) {
    const diff = O.data[k] - T.data[k];
    data[k] = diff;
    loss += diff * diff;
  }
  return { dO: { rows: O.rows, cols: O.cols, data }, loss: loss / 2 };
}

/** ‖M‖_F (summed in double) and max |M_ij| of a matrix. */
export function sizeOf(matrix) {
  let sum = 0;
  let maxAbs = 0;
  for (const x of matrix.data) {
    sum += x * x;
    maxAbs = Math.max(maxAbs, Math.abs(x));
  }
  return { norm: Math.sqrt(sum), maxAbs };
}

/** The mean over rows of max_j P_ij: 1/m for uniform weights, 1 when every row is one-hot. */
export function meanRowMax(P) {
  if (!P.rows) return 0;
  let sum = 0;
  for (let i = 0; i < P.rows; i++) {
    let max = 0;
    for (let j = 0; j < P.cols; j++) max = Math.max(max, P.data[i * P.cols + j]);
    sum += max;
  }
  return sum / P.rows;
}

/**
 * Per row i: max_j P_ij and ‖row i of dS‖ (in double), and the rows with the largest and the
 * smallest max P ({ row, maxP, norm }): a saturated row's dS is near 0.
 */
export function rowSaturation(P, dS) {
  const rows = [];
  for (let i = 0; i < P.rows; i++) {
    let [maxP, sum] = [0, 0];
    for (let j = 0; j < P.cols; j++) {
      maxP = Math.max(maxP, P.data[i * P.cols + j]);
      sum += dS.data[i * dS.cols + j] ** 2;
    }
    rows.push({ row: i, maxP, norm: Math.sqrt(sum) });
  }
  const by = (better) => rows.reduce((a, r) => (better(r, a) ? r : a), rows[0]);
  return { rows, most: by((r, a) => r.maxP > a.maxP), least: by((r, a) => r.maxP < a.maxP) };
}

/** Head `head`'s Q, K, V of the model (n×d_k each, d_v = d_k), through the library's matmul. */
export function headInputs(lab, model, head) {
  const dK = model.config.dK;
  const h = Math.max(0, Math.min(head, model.config.heads - 1));
  const slice = (W) => columns(W, h * dK, dK);
  return { head: h, Q: lab.matmul(model.X, slice(model.Wq)), K: lab.matmul(model.X, slice(model.Wk)), V: lab.matmul(model.X, slice(model.Wv)) };
}

/** The library's option for factor c: none at c = 1 (its default 1/√d_k, named so in its formulas), else c/√d_k. */
export const scaleOption = (factor, dK) => (factor === 1 ? undefined : factor / Math.sqrt(dK));

/** The weight whose gradient each input gradient gives (dW = Xᵀ dG): dQ → W_Q, dK → W_K, dV → W_V. */
export const WEIGHT_OF = { dQ: 'Q', dK: 'K', dV: 'V' };

/** Mᵀ as a new matrix (a layout change; the products stay the library's). */
export function transposed(M) {
  const data = new Float32Array(M.data.length);
  for (let i = 0; i < M.rows; i++) for (let j = 0; j < M.cols; j++) data[j * M.rows + i] = M.data[i * M.cols + j];
  return { rows: M.cols, cols: M.rows, data };
}

/**
 * Forward and backward for Q, K, V at factor c: the forward trace's S' (scaled, masked), P, O;
 * dO of the loss; the backward trace's dO, dV, dP, dS, dQ, dK. Every matrix is the library's.
 * With the head's input X (Q = X W_Q …), dQ, dK and dV carry `weightGrad`: dW = Xᵀ dG (lab.matmul).
 */
export function backwardPass(lab, { Q, K, V, mask, T, X }, factor) {
  const scale = scaleOption(factor, Q.cols);
  const forward = lab.scaledDotProductAttention(Q, K, V, { mask, scale, trace: true });
  const f = stepsById(forward.steps);
  const { dO, loss } = outputGradient(forward.output, T);
  const backward = lab.attentionBackward(Q, K, V, dO, { mask, scale, trace: true });
  const b = stepsById(backward.steps);
  const S = f.masked ?? f.scaled ?? f.scores;
  const steps = [
    { key: 'S', matrix: S.matrix, formula: S.formula, mask: f.masked?.mask, square: true },
    { key: 'P', matrix: f.weights.matrix, formula: f.weights.formula, mask: f.masked?.mask, square: true },
    { key: 'O', matrix: f.output.matrix, formula: f.output.formula },
    ...['dO', 'dV', 'dP', 'dS', 'dQ', 'dK'].map((id) => ({ key: id, matrix: b[id].matrix, formula: b[id].formula, square: id === 'dP' || id === 'dS', keys: id === 'dV' || id === 'dK' })),
  ];
  const rows = rowSaturation(f.weights.matrix, b.dS.matrix);
  if (X) {
    // The weights' gradients: Q = X W_Q (the head's columns), so dW_Q = Xᵀ dQ; likewise K and V.
    const Xt = transposed(X);
    for (const step of steps) if (WEIGHT_OF[step.key]) step.weightGrad = lab.matmul(Xt, step.matrix);
  }
  return { factor, scale: scale ?? 1 / Math.sqrt(Q.cols), loss, steps, dS: sizeOf(b.dS.matrix), saturation: meanRowMax(f.weights.matrix), rows };
}

/** ‖dS‖_F, max |dS| and the mean row max of P at every listed factor (the same Q, K, V, T). */
export function saturationSweep(lab, inputs) {
  return SCALE_FACTORS.map((factor) => {
    const r = backwardPass(lab, inputs, factor);
    return { factor, scale: r.scale, saturation: r.saturation, norm: r.dS.norm, maxAbs: r.dS.maxAbs, loss: r.loss };
  });
}
