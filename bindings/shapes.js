// Shape rules several operation families share: required options, Q/K/V of an
// attention call, projection and multi-head weights, optional vectors. Each
// throws an AttentionError whose message names the shapes that disagree.
import { AttentionError, fail } from './errors.js';
import { expectEqual, shape, toMatrix, toPositiveInteger, toVector } from './validate.js';

/** 1/√d rounded to float32 once, as the core computes it. */
export const defaultScale = (d) => (d > 0 ? Math.fround(1 / Math.sqrt(d)) : 1);

export function requireOption(fn, options, name) {
  if (options[name] === undefined) fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: options.${name} is required`);
  return options[name];
}

/** Q, K, V of an attention call: Q and K the same width, K and V the same rows. */
export function attentionInputs(fn, Q, K, V) {
  const [q, k, v] = [toMatrix(fn, 'Q', Q), toMatrix(fn, 'K', K), toMatrix(fn, 'V', V)];
  expectEqual(q.cols, k.cols, () => `${fn}: Q is ${shape(q)} but K is ${shape(k)} (Q.cols must equal K.cols)`);
  expectOneValuePerKey(fn, k, v);
  return [q, k, v];
}

export function expectOneValuePerKey(fn, k, v) {
  expectEqual(k.rows, v.rows, () => `${fn}: K is ${shape(k)} but V is ${shape(v)} (K.rows must equal V.rows: one value per key)`);
}

/**
 * Q, K, V projection weights: each d_model × width, the first two alike.
 * d_model is X.cols, or Wq.rows for a layer created without an X.
 */
export function projectionWeights(fn, o, x) {
  const [wq, wk, wv] = ['Wq', 'Wk', 'Wv'].map((name) => toMatrix(fn, name, requireOption(fn, o, name)));
  for (const [name, w] of [['Wq', wq], ['Wk', wk], ['Wv', wv]]) {
    if (x) expectEqual(w.rows, x.cols, () => `${fn}: X is ${shape(x)} but ${name} is ${shape(w)} (${name}.rows must equal X.cols, d_model)`);
    else expectEqual(w.rows, wq.rows, () => `${fn}: Wq is ${shape(wq)} but ${name} is ${shape(w)} (${name}.rows must equal Wq.rows, d_model)`);
  }
  expectEqual(wk.cols, wq.cols, () => `${fn}: Wq is ${shape(wq)} but Wk is ${shape(wk)} (queries and keys need the same width d_k)`);
  return [wq, wk, wv];
}

/** heads, W_Q, W_K, W_V, W_O of a multi-head layer, checked against each other (and X when given). */
export function multiHeadWeights(fn, o, x) {
  const heads = toPositiveInteger(fn, 'heads', requireOption(fn, o, 'heads'));
  const [wq, wk, wv] = projectionWeights(fn, o, x);
  const wo = toMatrix(fn, 'Wo', requireOption(fn, o, 'Wo'));
  for (const [name, w] of [['Wq', wq], ['Wv', wv]])
    if (w.cols % heads !== 0)
      fail(AttentionError.codes.SHAPE_MISMATCH, `${fn}: ${name} is ${shape(w)} but ${heads} heads do not divide its ${w.cols} columns (${name}.cols must be a multiple of heads)`);
  expectEqual(wo.rows, wv.cols, () => `${fn}: Wv is ${shape(wv)} but Wo is ${shape(wo)} (Wo.rows must equal Wv.cols, the concatenated head width)`);
  return { heads, wq, wk, wv, wo };
}

/** A vector option of a given length (`what` names it, e.g. "d_ff (W1.cols)"), or `fill` repeated when it is absent. */
export function vectorOption(fn, o, name, length, what, fill) {
  if (o[name] === undefined) return new Float32Array(length).fill(fill);
  const v = toVector(fn, name, o[name]);
  expectEqual(v.length, length, () => `${fn}: ${name} has ${v.length} values but must have ${what} = ${length}`);
  return v;
}

/** Columns [first, first + count) of a matrix, as a fresh matrix (one head's slice). */
export function columns(m, first, count) {
  const data = new Float32Array(m.rows * count);
  for (let i = 0; i < m.rows; i++) data.set(m.data.subarray(i * m.cols + first, i * m.cols + first + count), i * count);
  return { rows: m.rows, cols: count, data };
}
