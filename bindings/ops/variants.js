// The efficient variants: O(n·w·d) local, O(n·d²) linear and O(n·k·d)
// Linformer attention instead of O(n²·d). Raw calls in ops/variants.cpp.
import { AttentionError, fail } from '../errors.js';
import { checkDotScores, checkScoreBound, frobenius, maxRowNorm } from '../overflow.js';
import { attentionInputs, defaultScale, requireOption } from '../shapes.js';
import { checkOptions, expectEqual, shape, toBoolean, toMatrix, toNumber, toPositiveInteger } from '../validate.js';

// The traced variants return the dense weights, so they stay small.
const MAX_TRACED_WEIGHTS = 4 * 1024 * 1024;
function tracedWeights(fn, trace, rows, cols) {
  if (trace && rows * cols > MAX_TRACED_WEIGHTS)
    fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: trace: true returns the ${rows}×${cols} weights, more than ${MAX_TRACED_WEIGHTS} entries; trace smaller inputs`);
  return toBoolean(fn, 'trace', trace);
}

/**
 * The family's public functions, bound to one module's context.
 * @param {{ frame: (fn: string) => import('../frame.js').Frame }} context
 */
export function variantOps(context) {
  return {
    localAttention: (Q, K, V, options) => localAttention(context, Q, K, V, options),
    linearAttention: (Q, K, V, options) => linearAttention(context, Q, K, V, options),
    linformerAttention: (Q, K, V, options) => linformerAttention(context, Q, K, V, options),
  };
}

// Runs the raw call `name`: Q, K, V (and `extra` inputs) in, the output and, when traced, the weights (rows × cols) out;
// `scratch(f)` asks for the floats of scratch the call needs.
function run({ frame }, fn, name, { q, k, v, extra = {}, scratch, trace, rows, cols, values }) {
  const [n, dv] = [q.rows, v.cols];
  const f = frame(fn);
  const inputs = { Q: f.input(q.data), K: f.input(k.data), V: f.input(v.data) };
  for (const [key, data] of Object.entries(extra)) inputs[key] = f.input(data);
  const output = f.output(n * dv);
  const scratchSlot = scratch ? { scratch: f.output(scratch(f)) } : {};
  const weights = f.output(rows * cols, trace);
  f.call(name, { ...inputs, ...scratchSlot, ...values, output, weights });
  return trace ? { output: f.matrix(output, n, dv), weights: f.matrix(weights, rows, cols) } : { output: f.matrix(output, n, dv) };
}

function localAttention(context, Q, K, V, options) {
  const fn = 'localAttention';
  const o = checkOptions(fn, options, ['window', 'causal', 'scale', 'trace']);
  const [q, k, v] = attentionInputs(fn, Q, K, V);
  expectEqual(k.rows, q.rows, () => `${fn}: Q is ${shape(q)} but K is ${shape(k)} (local attention is self-attention: Q.rows must equal K.rows)`);
  const window = toPositiveInteger(fn, 'window', requireOption(fn, o, 'window'));
  const causal = toBoolean(fn, 'causal', o.causal);
  const scale = Math.fround(toNumber(fn, 'scale', o.scale, defaultScale(q.cols)));
  const [n, d, dv] = [q.rows, q.cols, v.cols];
  checkDotScores(fn, q, k, scale);
  const trace = tracedWeights(fn, o.trace, n, n);
  const values = { n, d, dv, window: Math.min(window, 0x7fffffff), causal, scale };
  return run(context, fn, 'local', { q, k, v, trace, rows: n, cols: n, values });
}

function linearAttention(context, Q, K, V, options) {
  const fn = 'linearAttention';
  const o = checkOptions(fn, options, ['causal', 'trace']);
  const [q, k, v] = attentionInputs(fn, Q, K, V);
  const causal = toBoolean(fn, 'causal', o.causal);
  if (causal) expectEqual(k.rows, q.rows, () => `${fn}: Q is ${shape(q)} but K is ${shape(k)} (causal needs one key per query: Q.rows must equal K.rows)`);
  const [n, m, d, dv] = [q.rows, k.rows, q.cols, v.cols];
  const trace = tracedWeights(fn, o.trace, n, m);
  const scratch = (f) => f.query('linearScratchFloats', { d, dv });
  return run(context, fn, 'linear', { q, k, v, scratch, trace, rows: n, cols: m, values: { n, d, m, dv, causal } });
}

function linformerAttention(context, Q, K, V, options) {
  const fn = 'linformerAttention';
  const o = checkOptions(fn, options, ['E', 'F', 'scale', 'trace']);
  const [q, k, v] = attentionInputs(fn, Q, K, V);
  const [e, fm] = ['E', 'F'].map((name) => toMatrix(fn, name, requireOption(fn, o, name)));
  const [n, m, d, dv, p] = [q.rows, k.rows, q.cols, v.cols, e.rows];
  expectEqual(e.cols, m, () => `${fn}: K is ${shape(k)} but E is ${shape(e)} (E.cols must equal K.rows: E projects the keys)`);
  expectEqual(fm.rows === p && fm.cols === m, true, () => `${fn}: E is ${shape(e)} but F is ${shape(fm)} (F must have E's shape, p×m)`);
  if (p === 0) fail(AttentionError.codes.INVALID_ARGUMENT, `${fn}: E is ${shape(e)}; the projected length p = E.rows must be at least 1`);
  const scale = Math.fround(toNumber(fn, 'scale', o.scale, defaultScale(d)));
  const [nq, ne, nk] = [maxRowNorm(q), frobenius(e), frobenius(k)];
  checkScoreBound(fn, nq * ne * nk * Math.max(1, Math.abs(scale)), () => `Q rows up to ${nq.toExponential(2)}, ‖E‖ = ${ne.toExponential(2)} and ‖K‖ = ${nk.toExponential(2)}`);
  const trace = tracedWeights(fn, o.trace, n, p);
  const scratch = (f) => f.query('linformerScratchFloats', { p, d, dv });
  return run(context, fn, 'linformer', { q, k, v, extra: { E: e.data, F: fm.data }, scratch, trace, rows: n, cols: p, values: { n, d, m, dv, p, scale } });
}
