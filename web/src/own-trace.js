// The traced result of an author's own numbers, in the shape of a traced multiHeadAttention result
// ({ heads: [{ output, weights, steps }], concat, output, steps }), so the steps and heads panels
// read it as they read the library's: Q, K, V given → each head is the library's
// scaledDotProductAttention on that head's column slices; weights given → each head is the matrix
// as given (nothing computed). No DOM here.
import { columnsOf } from './own-numbers.js';

/** A step as the trace gives it. */
const step = (id, matrix, formula) => ({ id, matrix, formula });

/** The author's Q, K, V (model.mode 'qkv') or weights (model.mode 'weights'), traced. */
export function ownResult(lab, model) {
  return model.mode === 'weights' ? givenWeights(model) : fromQKV(lab, model);
}

function givenWeights(model) {
  // A given matrix is written A, as the library writes the weights' step, without a formula behind it.
  return { heads: model.weights.map((w) => ({ weights: w, steps: [step('weights', w, 'A')] })), steps: [] };
}

function fromQKV(lab, { Q, K, V, Wo, mask, config }) {
  const h = config.heads;
  const [dk, dv] = [Q.cols / h, V.cols / h];
  const heads = Array.from({ length: h }, (_, k) => {
    const [q, key, v] = [columnsOf(Q, k * dk, dk), columnsOf(K, k * dk, dk), columnsOf(V, k * dv, dv)];
    const r = lab.scaledDotProductAttention(q, key, v, { mask, trace: true });
    return { output: r.output, weights: r.weights, steps: [step('Q', q, 'Q'), step('K', key, 'K'), step('V', v, 'V'), ...r.steps] };
  });
  // One head: no concatenation and no W_O (the head's own output is its last step).
  if (h === 1) return { heads, steps: [] };
  // The heads' outputs side by side (copied, not computed), then W_O when the author gave it.
  const concat = { rows: Q.rows, cols: h * dv, data: new Float32Array(Q.rows * h * dv) };
  heads.forEach(({ output }, k) => {
    for (let i = 0; i < Q.rows; i++) concat.data.set(output.data.subarray(i * dv, (i + 1) * dv), i * h * dv + k * dv);
  });
  const steps = [step('concat', concat, 'H = \\operatorname{Concat}(O^{(1)}, \\dots, O^{(h)})')];
  const output = Wo ? lab.matmul(concat, Wo) : null;
  if (output) steps.push(step('output', output, 'O = HW_O'));
  return { heads, concat, output, steps };
}
