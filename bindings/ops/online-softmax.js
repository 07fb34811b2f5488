// The online softmax of the fused path, traced for one query row: keys in
// blocks of `block`, and after each block the running max m, the running sum ℓ,
// the rescale e^(m_old − m_new) of ℓ and of the output accumulator, and the
// output so far. Raw call in ops/online-softmax.cpp (core: src/online_softmax.h).
import { AttentionError, fail } from '../errors.js';
import { checkDotScores } from '../overflow.js';
import { attentionInputs, defaultScale } from '../shapes.js';
import { checkOptions, maskData, toMask, toNumber, toPositiveInteger } from '../validate.js';

/**
 * The family's public functions, bound to one module's context.
 * @param {{ frame: (fn: string) => import('../frame.js').Frame }} context
 */
export function onlineSoftmaxOps(context) {
  return { onlineSoftmax: (Q, K, V, options) => onlineSoftmax(context, Q, K, V, options) };
}

// A copy of `count` floats that may hold −∞ (a masked score, a max before any visible key) but no NaN or +∞.
function readMaybeMinusInfinity(f, slot, count) {
  const data = f.workspace.read(f.addr(slot), count);
  for (let i = 0; i < count; i++)
    if (Number.isNaN(data[i]) || data[i] === Infinity) fail(AttentionError.codes.OVERFLOW, `${f.fn}: the result overflowed float32 (entry ${i} is ${data[i]}); rescale the inputs`);
  return data;
}

function onlineSoftmax({ frame }, Q, K, V, options) {
  const fn = 'onlineSoftmax';
  const o = checkOptions(fn, options, ['row', 'block', 'mask', 'scale']);
  const [q, k, v] = attentionInputs(fn, Q, K, V);
  const [n, m, d, dv] = [q.rows, k.rows, q.cols, v.cols];
  const row = o.row ?? 0;
  if (!Number.isInteger(row) || row < 0 || row >= n) fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: row must be an integer from 0 to ${n - 1} (Q is ${n}×${d}), got ${row}`);
  const block = toPositiveInteger(fn, 'block', o.block ?? 2);
  const scale = Math.fround(toNumber(fn, 'scale', o.scale, defaultScale(d)));
  if (!Number.isFinite(scale)) fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: scale ${o.scale} is outside float32 range`);
  checkDotScores(fn, q, k, scale);
  const mask = toMask(fn, o.mask, n, m);
  const sent = Math.min(block, Math.max(m, 1)); // a block of m keys or more is one block; keeps it within u32
  const nb = Math.ceil(m / sent);
  const f = frame(fn);
  const inputs = { Q: f.input(q.data), K: f.input(k.data), V: f.input(v.data), mask: f.input(maskData(mask)) };
  const slots = {
    scores: f.output(m), blockMax: f.output(nb), runningMax: f.output(nb), rescale: f.output(nb), runningSum: f.output(nb),
    accumulator: f.output(nb * dv), partial: f.output(nb * dv), output: f.output(dv), weights: f.output(m), totals: f.output(3),
  };
  f.call('onlineSoftmax', { ...inputs, ...slots, n, d, m, dv, row, block: sent, maskKind: mask.kind, scale });
  const scores = readMaybeMinusInfinity(f, slots.scores, m);
  const [blockMax, runningMax] = [readMaybeMinusInfinity(f, slots.blockMax, nb), readMaybeMinusInfinity(f, slots.runningMax, nb)];
  const totals = readMaybeMinusInfinity(f, slots.totals, 3);
  const [rescale, runningSum] = [f.matrix(slots.rescale, 1, nb).data, f.matrix(slots.runningSum, 1, nb).data];
  const [accumulator, partial] = [f.matrix(slots.accumulator, nb, dv).data, f.matrix(slots.partial, nb, dv).data];
  const blocks = Array.from({ length: nb }, (_, b) => ({
    first: b * sent,
    end: Math.min(m, (b + 1) * sent),
    blockMax: blockMax[b],
    max: runningMax[b],
    rescale: rescale[b],
    sum: runningSum[b],
    accumulator: accumulator.slice(b * dv, (b + 1) * dv),
    output: partial.slice(b * dv, (b + 1) * dv),
  }));
  const result = { row, block, scores, blocks, output: f.matrix(slots.output, 1, dv).data, weights: f.matrix(slots.weights, 1, m).data };
  return { ...result, max: totals[0], sum: totals[1], weightSum: totals[2] };
}
