// What each step of <attention-steps> was computed from, and how a cell of
// the step maps onto cells of its operands (for the hover highlight).
import { onOneScale } from '../../colors.js';
import { traceMatrix } from '../../trace-view.js';
import { headMark } from './trace-steps.js';

/** Operands of more numbers than this start closed. */
export const OPEN_CELLS = 2048;

/** Column labels d1, d2, … (counted from 1, as the page counts heads, rows and columns). */
export const dims = (n, prefix = 'd') => Array.from({ length: n }, (_, j) => `${prefix}${j + 1}`);

const rowOf = (i) => ({ rows: [i] });
const colOf = (i, j) => ({ cols: [j] });
const rowOfKey = (i, j) => ({ rows: [j] });
const sameCell = (i, j) => ({ cells: [[i, j]] });

/**
 * The operands of `step` as `operand(name, matrix, rowLabels, colLabels, map, mask?)` makes
 * them; `map(i, j)` is what cell (i, j) of the step came from: { rows?, cols?, cells? }.
 * `traced` = { byKey, model, result, headIndex, trained } (byKey: the panel's steps by key; trained:
 * the matrices are a trained model's, not the author's).
 */
export function operandList(step, traced, t, operand) {
  const { byKey, model, result, headIndex, trained } = traced;
  const tokens = model.tokens;
  // The author's own matrices are named as theirs ("W_Q (yours)"), a trained model's as trained,
  // the seeded ones plainly.
  const own = (name, input) => (model.given?.has(input) ? t(trained ? 'steps.trainedName' : 'steps.yours', { name }) : name);
  const W = { Q: [own('W_Q', 'Wq'), model.Wq], K: [own('W_K', 'Wk'), model.Wk], V: [own('W_V', 'Wv'), model.Wv] };
  // Given weights have no operands; the reader's Q, K, V come from an X and W_Q, W_K, W_V it keeps inside.
  if (model.mode === 'weights' || (model.mode === 'reader' && ['Q', 'K', 'V'].includes(step.key))) return [];
  // The chosen head's Q, K, V (a single-head result is its own only head).
  const ofHead = (id) => traceMatrix(result, id, headIndex);
  // Several heads: the head's own slices, named as in its formulas (Q⁽²⁾ for Q^{(2)}).
  const mark = model.config.heads > 1 ? headMark(headIndex + 1) : '';
  switch (step.key) {
    case 'Q':
    case 'K':
    case 'V': {
      const [name, w] = W[step.key];
      return [operand(own('X', 'X'), model.X, tokens, dims(model.X.cols), rowOf), operand(name, w, dims(w.rows), dims(w.cols), colOf)];
    }
    case 'scores': {
      const q = ofHead('Q');
      const k = ofHead('K');
      return [operand(own(`Q${mark}`, 'Q'), q, tokens, dims(q.cols), rowOf), operand(own(`K${mark}`, 'K'), k, tokens, dims(k.cols), rowOfKey)];
    }
    case 'scaled':
      return [operand(t('step.scores'), byKey.scores.matrix, tokens, tokens, sameCell)];
    case 'masked':
      return [operand(t('step.scaled'), byKey.scaled.matrix, tokens, tokens, sameCell)];
    case 'weights': {
      const src = byKey.masked ?? byKey.scaled;
      return [operand(t(`step.${src.key}`), src.matrix, tokens, tokens, rowOf, src.mask)];
    }
    case 'output':
    case 'head-output': {
      const v = ofHead('V');
      return [operand(t('step.weights'), byKey.weights.matrix, tokens, tokens, rowOf), operand(own(`V${mark}`, 'V'), v, tokens, dims(v.cols), colOf)];
    }
    case 'concat': {
      const dv = result.heads[0].output.cols;
      // The heads' outputs on one colour scale: one quantity, side by side.
      const outputs = onOneScale(result.heads.map((h) => h.output));
      return outputs.map((output, k) => operand(t('heads.head', { h: k + 1 }), output, tokens, dims(dv), (i, j) => (Math.floor(j / dv) === k ? { cells: [[i, j % dv]] } : {})));
    }
    case 'final': {
      const concat = byKey.concat.matrix;
      return [operand(t('step.concat'), concat, tokens, dims(concat.cols), rowOf), operand(own('W_O', 'Wo'), model.Wo, dims(model.Wo.rows), dims(model.Wo.cols), colOf)];
    }
    default:
      return [];
  }
}
