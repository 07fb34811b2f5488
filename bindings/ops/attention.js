// The attention family: matmul, softmax, scaled dot-product (traced, or fused
// when the weights are not wanted), additive and self-attention. Raw calls in
// ops/attention.cpp. Each function: check options and shapes, lay out one
// frame, call the core, copy the results out.
import { attentionSlots, attentionSteps } from '../attention-trace.js';
import { AttentionError, fail } from '../errors.js';
import { checkDotScores, checkProjectedScores, checkScoreBound } from '../overflow.js';
import { attentionInputs, defaultScale, expectOneValuePerKey, projectionWeights, requireOption } from '../shapes.js';
import { step } from '../steps.js';
import { checkOptions, expectEqual, MaskKind, maskData, shape, toBoolean, toMask, toMatrix, toNumber, toVector } from '../validate.js';

/**
 * The family's public functions, bound to one module's context.
 * @param {{ frame: (fn: string) => import('../frame.js').Frame }} context
 */
export function attentionOps(context) {
  return {
    matmul: (A, B) => matmul(context, A, B),
    softmax: (S, options) => softmax(context, S, options),
    scaledDotProductAttention: (Q, K, V, options) => scaledDotProductAttention(context, Q, K, V, options),
    additiveAttention: (Q, K, V, options) => additiveAttention(context, Q, K, V, options),
    selfAttention: (X, options) => selfAttention(context, X, options),
  };
}

function matmul({ frame }, A, B) {
  const fn = 'matmul';
  const a = toMatrix(fn, 'A', A);
  const b = toMatrix(fn, 'B', B);
  expectEqual(a.cols, b.rows, () => `${fn}: A is ${shape(a)} but B is ${shape(b)} (A.cols must equal B.rows)`);
  const f = frame(fn);
  const slots = { A: f.input(a.data), B: f.input(b.data), C: f.output(a.rows * b.cols) };
  f.call('matmul', { ...slots, n: a.rows, k: a.cols, m: b.cols });
  return f.matrix(slots.C, a.rows, b.cols);
}

function softmax({ frame }, S, options) {
  const fn = 'softmax';
  const o = checkOptions(fn, options, ['mask']);
  const s = toMatrix(fn, 'S', S);
  const mask = toMask(fn, o.mask, s.rows, s.cols);
  const f = frame(fn);
  const weights = f.output(s.rows * s.cols);
  f.call('softmax', { S: f.input(s.data), n: s.rows, m: s.cols, maskKind: mask.kind, mask: f.input(maskData(mask)), weights, masked: null });
  return f.matrix(weights, s.rows, s.cols);
}

/**
 * The checked arguments of a scaled dot-product call: Q, K, V, the mask, the float32 scale and
 * whether the weights and a trace are wanted. Shared with the worker pool (parallel/pool.js), which
 * checks on the page's thread before it splits the rows.
 */
export function checkScaledDotProduct(fn, Q, K, V, options) {
  const o = checkOptions(fn, options, ['mask', 'scale', 'trace', 'weights']);
  const [q, k, v] = attentionInputs(fn, Q, K, V);
  const scale = Math.fround(toNumber(fn, 'scale', o.scale, defaultScale(q.cols)));
  if (!Number.isFinite(scale)) fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: scale ${o.scale} is outside float32 range`);
  checkDotScores(fn, q, k, scale);
  const mask = toMask(fn, o.mask, q.rows, k.rows);
  const trace = toBoolean(fn, 'trace', o.trace);
  const weights = toBoolean(fn, 'weights', o.weights ?? true);
  if (!weights && trace) fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: trace: true needs the weights; drop weights: false to trace`);
  return { q, k, v, mask, scale, trace, weights, customScale: o.scale !== undefined };
}

function scaledDotProductAttention(context, Q, K, V, options) {
  const { frame } = context;
  const fn = 'scaledDotProductAttention';
  const { q, k, v, mask, scale, trace, weights, customScale } = checkScaledDotProduct(fn, Q, K, V, options);
  const [n, m, d, dv] = [q.rows, k.rows, q.cols, v.cols];
  if (!weights) return fusedAttention(context, fn, q, k, v, mask, scale);
  const f = frame(fn);
  const inputs = { Q: f.input(q.data), K: f.input(k.data), V: f.input(v.data), mask: f.input(maskData(mask)) };
  const slots = attentionSlots(f, n, m, dv, mask, trace);
  // untraced with a prefix mask: the blocked kernel, which packs Kᵀ into scratch
  const blocked = !trace && mask.kind !== MaskKind.matrix;
  const scratch = f.output(blocked ? f.query('weightsScratchFloats', { m, d }) : 0, blocked);
  f.call('scaledDotProduct', { ...inputs, ...slots, n, d, m, dv, maskKind: mask.kind, scale, scratch });
  const result = { output: f.matrix(slots.output, n, dv), weights: f.matrix(slots.weights, n, m) };
  const custom = customScale ? { scale } : {};
  if (trace) result.steps = attentionSteps(f, slots, n, m, mask, 'dot', result, custom);
  return result;
}

// The fast path: output only, block by block, no n×m matrix anywhere.
function fusedAttention({ frame }, fn, q, k, v, mask, scale) {
  const [n, m, d, dv] = [q.rows, k.rows, q.cols, v.cols];
  const f = frame(fn);
  const inputs = { Q: f.input(q.data), K: f.input(k.data), V: f.input(v.data), mask: f.input(maskData(mask)) };
  const [output, scratch] = [f.output(n * dv), f.output(f.query('fusedScratchFloats', { m, d, dv }))];
  f.call('fused', { ...inputs, n, d, m, dv, maskKind: mask.kind, scale, output, scratch });
  return { output: f.matrix(output, n, dv) };
}

function additiveAttention({ frame }, Q, K, V, options) {
  const fn = 'additiveAttention';
  const o = checkOptions(fn, options, ['Wq', 'Wk', 'wv', 'mask', 'trace']);
  const [q, k, v] = [toMatrix(fn, 'Q', Q), toMatrix(fn, 'K', K), toMatrix(fn, 'V', V)];
  const wq = toMatrix(fn, 'Wq', requireOption(fn, o, 'Wq'));
  const wk = toMatrix(fn, 'Wk', requireOption(fn, o, 'Wk'));
  const wv = toVector(fn, 'wv', requireOption(fn, o, 'wv'));
  expectOneValuePerKey(fn, k, v);
  expectEqual(wq.rows, q.cols, () => `${fn}: Q is ${shape(q)} but Wq is ${shape(wq)} (Wq.rows must equal Q.cols)`);
  expectEqual(wk.rows, k.cols, () => `${fn}: K is ${shape(k)} but Wk is ${shape(wk)} (Wk.rows must equal K.cols)`);
  expectEqual(wk.cols, wq.cols, () => `${fn}: Wq is ${shape(wq)} but Wk is ${shape(wk)} (both map into the same hidden size h)`);
  expectEqual(wv.length, wq.cols, () => `${fn}: wv has ${wv.length} entries but the hidden size h is ${wq.cols} (Wq.cols)`);
  const [n, m, h, dv] = [q.rows, k.rows, wq.cols, v.cols];
  const wvSum = wv.reduce((sum, x) => sum + Math.abs(x), 0);
  checkScoreBound(fn, wvSum, () => `wv with Σ|wv| = ${wvSum.toExponential(2)} (|w_vᵀ tanh(·)| <= Σ|wv|)`);
  const mask = toMask(fn, o.mask, n, m);
  const trace = toBoolean(fn, 'trace', o.trace);
  const f = frame(fn);
  const inputs = { Q: q.data, K: k.data, V: v.data, Wq: wq.data, Wk: wk.data, wv, mask: maskData(mask) };
  const slots = { ...mapValues(inputs, (data) => f.input(data)), scratch: f.output((n + m) * h) };
  const outputs = attentionSlots(f, n, m, dv, mask, trace, { scaled: false });
  f.call('additive', { ...slots, ...outputs, n, dq: q.cols, m, dk: k.cols, dv, h, maskKind: mask.kind });
  const result = { output: f.matrix(outputs.output, n, dv), weights: f.matrix(outputs.weights, n, m) };
  if (trace) result.steps = attentionSteps(f, outputs, n, m, mask, 'additive', result);
  return result;
}

function selfAttention({ frame }, X, options) {
  const fn = 'selfAttention';
  const o = checkOptions(fn, options, ['Wq', 'Wk', 'Wv', 'mask', 'trace']);
  const x = toMatrix(fn, 'X', X);
  const [wq, wk, wv] = projectionWeights(fn, o, x);
  const [n, dk, dv] = [x.rows, wq.cols, wv.cols];
  checkProjectedScores(fn, x, wq, wk, defaultScale(dk), wv);
  const mask = toMask(fn, o.mask, n, n);
  const trace = toBoolean(fn, 'trace', o.trace);
  const f = frame(fn);
  const inputs = mapValues({ X: x.data, Wq: wq.data, Wk: wk.data, Wv: wv.data, mask: maskData(mask) }, (data) => f.input(data));
  const projections = { Q: f.output(n * dk), K: f.output(n * dk), V: f.output(n * dv) };
  const slots = attentionSlots(f, n, n, dv, mask, trace);
  f.call('selfAttention', { ...inputs, ...projections, ...slots, n, dModel: x.cols, dk, dv, maskKind: mask.kind });
  const result = { output: f.matrix(slots.output, n, dv), weights: f.matrix(slots.weights, n, n) };
  if (trace)
    result.steps = [step('Q', f.matrix(projections.Q, n, dk)), step('K', f.matrix(projections.K, n, dk)), step('V', f.matrix(projections.V, n, dv)),
      ...attentionSteps(f, slots, n, n, mask, 'dot', result)];
  return result;
}

const mapValues = (object, map) => Object.fromEntries(Object.entries(object).map(([key, value]) => [key, map(value)]));
