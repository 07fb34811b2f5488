// Which arithmetic a step of <attention-steps> has (cell-arithmetic.js), from the panel's trace:
// the chosen head's Q, K, V and its scores, scaled scores, weights and output; the product
// concat · W_O for the output of several heads. No DOM: createHeatmap's `arithmetic` and `symbols`.
import { cellArithmetic } from '../../cell-arithmetic.js';
import { traceStep } from '../../trace-view.js';

/** { arithmetic, symbols } for step `step`, or {} when it has none (X, Q, the masked step, given weights). */
export function stepArithmetic(step, { byKey, model, result, headIndex }) {
  const ofHead = (id) => traceStep(result, id, headIndex)?.matrix;
  const logits = byKey.masked ?? byKey.scaled;
  const m = { Q: ofHead('Q'), K: ofHead('K'), V: ofHead('V'), scores: byKey.scores?.matrix, scaled: byKey.scaled?.matrix, logits: logits?.matrix, mask: byKey.masked?.mask, weights: byKey.weights?.matrix };
  const use = (kind, extra = {}, symbols) => ({ arithmetic: (i, j) => cellArithmetic(kind, i, j, { ...m, ...extra }), symbols });
  switch (step.given ? '' : step.key) {
    case 'scores':
    case 'scaled':
    case 'weights':
      return use(step.key);
    case 'output':
    case 'head-output':
      return use('output', { output: step.matrix });
    case 'final':
      return model.Wo && byKey.concat ? use('product', { A: byKey.concat.matrix, B: model.Wo, C: step.matrix }, { value: 'o', a: 'h', b: 'w', from: 'H, W_O' }) : {};
    default:
      return {};
  }
}
