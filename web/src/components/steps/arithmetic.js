// Which arithmetic a step of <attention-steps> has (cell-arithmetic.js), from the panel's trace:
// the chosen head's Q, K, V and its scores, scaled scores, weights and output; the product
// concat · W_O for the output of several heads. No DOM: createHeatmap's `arithmetic` and `symbols`.
import { cellArithmetic } from '../../cell-arithmetic.js';
import { traceStep } from '../../trace-view.js';
import { headMark } from './trace-steps.js';

const HEAD_SYMBOLS = (h) => ({
  scores: { value: `s${h}`, a: `q${h}`, b: `k${h}`, from: `Q${h}, K${h}` },
  scaled: { value: `s′${h}`, score: `s${h}`, from: `S${h}` },
  weights: { value: `a${h}`, x: `s′${h}`, from: `S′${h}` },
  output: { value: `o${h}`, a: `a${h}`, b: `v${h}`, from: `A${h}, V${h}` },
});

/** { arithmetic, symbols } for step `step`, or {} when it has none (X, Q, the masked step, given weights). */
export function stepArithmetic(step, { byKey, model, result, headIndex }) {
  const ofHead = (id) => traceStep(result, id, headIndex)?.matrix;
  const logits = byKey.masked ?? byKey.scaled;
  const m = { Q: ofHead('Q'), K: ofHead('K'), V: ofHead('V'), scores: byKey.scores?.matrix, scaled: byKey.scaled?.matrix, logits: logits?.matrix, mask: byKey.masked?.mask, weights: byKey.weights?.matrix };
  const use = (kind, extra = {}, symbols) => ({ arithmetic: (i, j) => cellArithmetic(kind, i, j, { ...m, ...extra }), symbols });
  // Several heads: the head's own slices and steps, named as in its formulas (q⁽²⁾, S′⁽²⁾).
  const h = step.head && model.config.heads > 1 ? headMark(headIndex + 1) : '';
  const named = h && HEAD_SYMBOLS(h);
  switch (step.given ? '' : step.key) {
    case 'scores':
    case 'scaled':
    case 'weights':
      return use(step.key, {}, named?.[step.key]);
    case 'output':
    case 'head-output':
      return use('output', { output: step.matrix }, named?.output);
    case 'final':
      return model.Wo && byKey.concat ? use('product', { A: byKey.concat.matrix, B: model.Wo, C: step.matrix }, { value: 'o', a: 'h', b: 'w', from: 'H, W_O' }) : {};
    default:
      return {};
  }
}
