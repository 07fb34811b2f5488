// The Transformer family: one post-norm encoder block (multi-head attention,
// add & norm, feed-forward, add & norm) with every intermediate traced.
// Raw call in ops/transformer.cpp.
import { AttentionError, fail } from '../errors.js';
import { checkProjectedScores } from '../overflow.js';
import { columns, defaultScale, multiHeadWeights, requireOption, vectorOption } from '../shapes.js';
import { step } from '../steps.js';
import { checkOptions, expectEqual, maskData, shape, toBoolean, toMask, toMatrix, toNumber } from '../validate.js';

const OPTIONS = ['heads', 'Wq', 'Wk', 'Wv', 'Wo', 'W1', 'b1', 'W2', 'b2', 'gamma1', 'beta1', 'gamma2', 'beta2', 'epsilon', 'mask', 'trace'];

// W1, W2 and the bias and norm vectors, checked against d_model = X.cols.
function feedForwardWeights(fn, o, x, wo) {
  const dModel = x.cols;
  expectEqual(wo.cols, dModel, () => `${fn}: X is ${shape(x)} but Wo is ${shape(wo)} (Wo.cols must equal d_model = X.cols for the residual connection)`);
  const w1 = toMatrix(fn, 'W1', requireOption(fn, o, 'W1'));
  const w2 = toMatrix(fn, 'W2', requireOption(fn, o, 'W2'));
  expectEqual(w1.rows, dModel, () => `${fn}: X is ${shape(x)} but W1 is ${shape(w1)} (W1.rows must equal d_model = X.cols)`);
  expectEqual(w2.rows, w1.cols, () => `${fn}: W1 is ${shape(w1)} but W2 is ${shape(w2)} (W2.rows must equal d_ff = W1.cols)`);
  expectEqual(w2.cols, dModel, () => `${fn}: X is ${shape(x)} but W2 is ${shape(w2)} (W2.cols must equal d_model = X.cols for the residual connection)`);
  const dFf = w1.cols;
  const model = [dModel, 'd_model (X.cols)'];
  const vectors = {
    b1: vectorOption(fn, o, 'b1', dFf, 'd_ff (W1.cols)', 0), b2: vectorOption(fn, o, 'b2', ...model, 0),
    gamma1: vectorOption(fn, o, 'gamma1', ...model, 1), beta1: vectorOption(fn, o, 'beta1', ...model, 0),
    gamma2: vectorOption(fn, o, 'gamma2', ...model, 1), beta2: vectorOption(fn, o, 'beta2', ...model, 0),
  };
  return { w1, w2, dFf, vectors };
}

/**
 * The family's public functions, bound to one module's context.
 * @param {{ frame: (fn: string) => import('../frame.js').Frame }} context
 */
export function transformerOps(context) {
  return { transformerBlock: (X, options) => transformerBlock(context, X, options) };
}

function transformerBlock({ frame }, X, options) {
  const fn = 'transformerBlock';
  const o = checkOptions(fn, options, OPTIONS);
  const x = toMatrix(fn, 'X', X);
  const { heads, wq, wk, wv, wo } = multiHeadWeights(fn, o, x);
  const [n, dModel, dkAll, dvAll] = [x.rows, x.cols, wq.cols, wv.cols];
  const { w1, w2, dFf, vectors } = feedForwardWeights(fn, o, x, wo);
  const epsilon = Math.fround(toNumber(fn, 'epsilon', o.epsilon, 1e-5));
  if (!(epsilon > 0) || epsilon === Infinity)
    fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: epsilon must be a positive number within float32 range, got ${o.epsilon}`);
  checkProjectedScores(fn, x, wq, wk, defaultScale(dkAll / heads), wv);
  const mask = toMask(fn, o.mask, n, n);
  const trace = toBoolean(fn, 'trace', o.trace);
  const f = frame(fn);
  const weights = { X: x.data, Wq: wq.data, Wk: wk.data, Wv: wv.data, Wo: wo.data, W1: w1.data, W2: w2.data, ...vectors, mask: maskData(mask) };
  const inputs = Object.fromEntries(Object.entries(weights).map(([name, data]) => [name, f.input(data)]));
  const slots = {
    Q: f.output(n * dkAll), K: f.output(n * dkAll), V: f.output(n * dvAll), weights: f.output(heads * n * n),
    concat: f.output(n * dvAll), attention: f.output(n * dModel), sum1: f.output(n * dModel), norm1: f.output(n * dModel),
    hidden: f.output(n * dFf), ffn: f.output(n * dModel), sum2: f.output(n * dModel), output: f.output(n * dModel),
  };
  f.call('transformerBlock', { ...inputs, ...slots, n, dModel, heads, dkAll, dvAll, dFf, epsilon, maskKind: mask.kind });
  const read = (name, cols) => f.matrix(slots[name], n, cols);
  const result = { output: read('output', dModel) };
  if (trace) Object.assign(result, blockTrace(f, slots, read, result.output, { n, heads, dModel, dkAll, dvAll, dFf }));
  return result;
}

// Every head's weights and slices, and the block's steps in computation order.
function blockTrace(f, slots, read, output, { n, heads, dModel, dkAll, dvAll, dFf }) {
  const [q, k, v, concat] = [read('Q', dkAll), read('K', dkAll), read('V', dvAll), read('concat', dvAll)];
  const [dk, dv] = [dkAll / heads, dvAll / heads];
  const headList = Array.from({ length: heads }, (_, h) => ({
    weights: f.matrix(f.part(slots.weights, h * n * n), n, n),
    output: columns(concat, h * dv, dv),
    Q: columns(q, h * dk, dk), K: columns(k, h * dk, dk), V: columns(v, h * dv, dv),
  }));
  const after = (id, name, cols) => step(id, read(name, cols), 'transformer');
  const steps = [step('Q', q), step('K', k), step('V', v), step('concat', concat),
    after('attention', 'attention', dModel), after('residual1', 'sum1', dModel), after('norm1', 'norm1', dModel),
    after('hidden', 'hidden', dFf), after('ffn', 'ffn', dModel), after('residual2', 'sum2', dModel),
    step('output', output, 'transformer')];
  return { heads: headList, steps };
}
