// The batched family: attention over a batch of heads as ONNX's Attention
// operator and PyTorch's scaled_dot_product_attention define it, with
// grouped-query heads, a KV cache (pastKey/pastValue), soft-capping and masks
// that compose (causal with an offset, a sliding window, per-batch key
// lengths, a boolean mask and an additive bias, both broadcast). Raw calls in
// ops/batched.cpp; the tensor rules in ../tensors.js.
import { AttentionError, fail } from '../errors.js';
import { checkScoreBound, maxRowNorm } from '../overflow.js';
import { defaultScale } from '../shapes.js';
import { broadcastPlane, shapeText, toTensor } from '../tensors.js';
import { checkOptions, toBoolean, toNumber, toPositiveInteger } from '../validate.js';

const { INVALID_ARGUMENT, INVALID_MASK, SHAPE_MISMATCH } = AttentionError.codes;
const fn = 'batchedAttention';
const OPTIONS = ['heads', 'kvHeads', 'scale', 'softcap', 'causal', 'causalOffset', 'window', 'kvLengths', 'validLens', 'mask', 'bias',
  'pastKey', 'pastValue', 'trace', 'weights'];

const STEPS = {
  scores: ['Scaled scores', "S = QK^{\\top} \\cdot \\text{scale}"],
  capped: ['Soft-capped scores', "S' = c \\tanh(S / c)"],
  biased: ['Masked and biased scores', "S'' = S' + B \\text{ (hidden: } -\\infty)"],
  weights: ['Attention weights', "A = \\operatorname{softmax}(S'')"],
};

/** @param {{ frame: (fn: string) => import('../frame.js').Frame }} context */
export function batchedOps(context) {
  return { batchedAttention: (Q, K, V, options) => batchedAttention(context, Q, K, V, options) };
}

// Heads and widths of Q, K, V: 4-D [batch, heads, rows, width] or 3-D [batch, rows, heads·width].
function headShapes(q, k, v, o) {
  const rank = q.shape.length;
  for (const [name, t] of [['K', k], ['V', v]])
    if (t.shape.length !== rank) fail(SHAPE_MISMATCH, `${fn}: Q has shape ${shapeText(q.shape)} but ${name} has ${shapeText(t.shape)}; Q, K and V must all be 3-D or all 4-D`);
  const [batch, n, m] = rank === 4 ? [q.shape[0], q.shape[2], k.shape[2]] : [q.shape[0], q.shape[1], k.shape[1]];
  let heads, kvHeads, d, dk, dv;
  if (rank === 4) {
    [heads, kvHeads] = [q.shape[1], k.shape[1]];
    [d, dk, dv] = [q.shape[3], k.shape[3], v.shape[3]];
    if (v.shape[1] !== kvHeads) fail(SHAPE_MISMATCH, `${fn}: K has ${kvHeads} heads but V has ${v.shape[1]} (shapes ${shapeText(k.shape)}, ${shapeText(v.shape)})`);
    for (const [name, given, actual] of [['heads', o.heads, heads], ['kvHeads', o.kvHeads, kvHeads]])
      if (given !== undefined && given !== actual) fail(SHAPE_MISMATCH, `${fn}: options.${name} is ${given} but the 4-D shapes give ${actual}`);
  } else {
    if (o.heads === undefined || o.kvHeads === undefined) fail(INVALID_ARGUMENT, `${fn}: 3-D inputs [batch, rows, heads·width] need options.heads and options.kvHeads`);
    [heads, kvHeads] = [toPositiveInteger(fn, 'heads', o.heads), toPositiveInteger(fn, 'kvHeads', o.kvHeads)];
    for (const [name, t, h] of [['Q', q, heads], ['K', k, kvHeads], ['V', v, kvHeads]])
      if (t.shape[2] % h !== 0) fail(SHAPE_MISMATCH, `${fn}: ${name} has shape ${shapeText(t.shape)}; its last size ${t.shape[2]} is not a multiple of ${h} heads`);
    [d, dk, dv] = [q.shape[2] / heads, k.shape[2] / kvHeads, v.shape[2] / kvHeads];
  }
  if (k.shape[0] !== batch || v.shape[0] !== batch) fail(SHAPE_MISMATCH, `${fn}: Q, K, V have batch sizes ${batch}, ${k.shape[0]}, ${v.shape[0]}; they must agree`);
  if (dk !== d) fail(SHAPE_MISMATCH, `${fn}: queries have width ${d} but keys ${dk} (shapes ${shapeText(q.shape)}, ${shapeText(k.shape)}); they must agree`);
  const vm = rank === 4 ? v.shape[2] : v.shape[1];
  if (vm !== m) fail(SHAPE_MISMATCH, `${fn}: K has ${m} keys but V has ${vm} values; one value per key`);
  if (heads % kvHeads !== 0) fail(SHAPE_MISMATCH, `${fn}: ${heads} query heads cannot share ${kvHeads} key/value heads; heads must be a multiple of kvHeads`);
  return { layout: rank === 4 ? 0 : 1, batch, heads, kvHeads, n, m, d, dv };
}

// pastKey [batch, kvHeads, past, d] and pastValue [batch, kvHeads, past, dv]: both or neither.
function pastTensors(o, s) {
  if ((o.pastKey === undefined) !== (o.pastValue === undefined)) fail(INVALID_ARGUMENT, `${fn}: give pastKey and pastValue together, or neither`);
  if (o.pastKey === undefined) return { past: 0 };
  const [pk, pv] = [toTensor(fn, 'pastKey', o.pastKey, { ranks: [4] }), toTensor(fn, 'pastValue', o.pastValue, { ranks: [4] })];
  const past = pk.shape[2];
  for (const [name, t, width] of [['pastKey', pk, s.d], ['pastValue', pv, s.dv]]) {
    const want = [s.batch, s.kvHeads, past, width];
    if (t.shape.some((x, i) => x !== want[i])) fail(SHAPE_MISMATCH, `${fn}: ${name} has shape ${shapeText(t.shape)} but ${shapeText(want)} was expected [batch, kvHeads, past, width]`);
  }
  return { past, pastKey: pk, pastValue: pv };
}

function perBatch(name, value, batch, lo, hi) {
  const list = typeof value === 'number' ? new Array(batch).fill(value) : value;
  if (!Array.isArray(list) && !ArrayBuffer.isView(list)) fail(INVALID_MASK, `${fn}: ${name} must be a number or an array with one entry per batch entry`);
  if (list.length !== batch) fail(INVALID_MASK, `${fn}: ${name} has ${list.length} entries but the batch has ${batch}`);
  return Int32Array.from(list, (x, b) => {
    const value = Number(x);
    if (!Number.isInteger(value) || value < lo || value > hi) fail(INVALID_MASK, `${fn}: ${name}[${b}] is ${x}; it must be an integer from ${lo} to ${hi}`);
    return value;
  });
}

// The score rules: cap, causal offset(s), window, lengths, mask and bias planes.
function scoreRules(o, s, total, past) {
  const target = [s.batch, s.heads, s.n, total];
  const rules = { softcap: toNumber(fn, 'softcap', o.softcap, 0), causal: toBoolean(fn, 'causal', o.causal), causalOffset: past, causalOffsets: null };
  if (rules.softcap < 0) fail(INVALID_ARGUMENT, `${fn}: softcap is ${o.softcap}; it must be positive (or 0 for none)`);
  if (o.causalOffset !== undefined) {
    if (!rules.causal && o.window === undefined) fail(INVALID_ARGUMENT, `${fn}: causalOffset needs causal: true or a window`);
    if (typeof o.causalOffset === 'number') rules.causalOffset = perBatch('causalOffset', [o.causalOffset], 1, -0x7fffffff, 0x7fffffff)[0];
    else rules.causalOffsets = perBatch('causalOffset', o.causalOffset, s.batch, -0x7fffffff, 0x7fffffff);
  }
  rules.window = o.window === undefined ? 0 : toPositiveInteger(fn, 'window', o.window);
  rules.kvLengths = o.kvLengths === undefined ? null : perBatch('kvLengths', o.kvLengths, s.batch, 0, total);
  rules.keep = null;
  if (o.mask !== undefined) {
    const mask = toTensor(fn, 'mask', o.mask, { ranks: [2, 3, 4] });
    const bad = mask.data.findIndex((x) => x !== 0 && x !== 1);
    if (bad >= 0) fail(INVALID_MASK, `${fn}: mask entry ${bad} is ${mask.data[bad]}; a mask holds true/1 (may attend) or false/0 (hidden); use bias for additive values`);
    rules.keep = { data: Uint8Array.from(mask.data), ...broadcastPlane(fn, 'mask', mask.shape, target) };
  }
  rules.bias = null;
  if (o.bias !== undefined) {
    const bias = toTensor(fn, 'bias', o.bias, { ranks: [2, 3, 4], allowNegativeInfinity: true });
    rules.bias = { data: bias.data, ...broadcastPlane(fn, 'bias', bias.shape, target), largest: largestFinite(bias.data) };
  }
  return rules;
}

// The largest finite |x| (a plain loop: reduce with a closure cost ~14 ms on a 1,024² bias).
function largestFinite(data) {
  let largest = 0;
  for (let i = 0; i < data.length; i++) {
    const a = Math.abs(data[i]);
    if (a > largest && a !== Infinity) largest = a;
  }
  return largest;
}

function checkScores(q, k, pastKey, s, scale, rules) {
  const rows = (t, width) => ({ rows: t.data.length / Math.max(width, 1), cols: width, data: t.data });
  const nk = Math.max(maxRowNorm(rows(k, s.d)), pastKey ? maxRowNorm(rows(pastKey, s.d)) : 0);
  const bound = maxRowNorm(rows(q, s.d)) * nk * Math.max(1, Math.abs(scale)) + (rules.bias?.largest ?? 0);
  checkScoreBound(fn, bound, () => `queries and keys (and the bias) of these sizes`);
}

function planeFields(prefix, plane, f) {
  const name = prefix === 'keep' ? 'keep' : 'bias';
  if (!plane) return { [name]: null, [`${prefix}BatchStride`]: 0, [`${prefix}HeadStride`]: 0, [`${prefix}RowStride`]: 0, [`${prefix}Cols`]: 0 };
  return { [name]: f.input(plane.data), [`${prefix}BatchStride`]: plane.batchStride, [`${prefix}HeadStride`]: plane.headStride, [`${prefix}RowStride`]: plane.rowStride, [`${prefix}Cols`]: plane.cols };
}

// validLens, the word of the matrix functions' masks, is taken for kvLengths (one length per batch entry here).
function withKvLengths(o) {
  if (o.validLens === undefined) return o;
  if (o.kvLengths !== undefined) fail(INVALID_ARGUMENT, `${fn}: give kvLengths or its alias validLens, not both`);
  const { validLens, ...rest } = o;
  return { ...rest, kvLengths: validLens };
}

function batchedAttention({ frame }, Q, K, V, options) {
  const o = withKvLengths(checkOptions(fn, options, OPTIONS));
  const [q, k, v] = [toTensor(fn, 'Q', Q), toTensor(fn, 'K', K), toTensor(fn, 'V', V)];
  const s = headShapes(q, k, v, o);
  const cache = pastTensors(o, s);
  const total = cache.past + s.m;
  const scale = Math.fround(toNumber(fn, 'scale', o.scale, defaultScale(s.d)));
  if (!Number.isFinite(scale)) fail(INVALID_ARGUMENT, `${fn}: scale ${o.scale} is outside float32 range`);
  const rules = scoreRules(o, s, total, cache.past);
  checkScores(q, k, cache.pastKey, s, scale, rules);
  const trace = toBoolean(fn, 'trace', o.trace);
  const keepWeights = toBoolean(fn, 'weights', o.weights ?? true);
  if (trace && !keepWeights) fail(INVALID_ARGUMENT, `${fn}: trace: true needs the weights; drop weights: false to trace`);
  const f = frame(fn);
  const planes = s.batch * s.heads * s.n * total;
  const slots = {
    output: f.output(s.batch * s.heads * s.n * s.dv), weights: f.output(planes, keepWeights),
    presentKey: f.output(s.batch * s.kvHeads * total * s.d, cache.past > 0), presentValue: f.output(s.batch * s.kvHeads * total * s.dv, cache.past > 0),
    scores: f.output(planes, trace), capped: f.output(planes, trace && rules.softcap > 0), biased: f.output(planes, trace),
  };
  const scratch = keepWeights ? null : f.output(f.query('batchedScratchFloats', { dv: s.dv }));
  f.call('batchedAttention', {
    ...s, ...slots, scratch, Q: f.input(q.data), K: f.input(k.data), V: f.input(v.data),
    pastKey: f.input(cache.pastKey?.data), pastValue: f.input(cache.pastValue?.data), past: cache.past,
    scale, softcap: rules.softcap, causal: rules.causal ? 1 : 0, causalOffset: rules.causalOffset, causalOffsets: f.input(rules.causalOffsets),
    window: rules.window, kvLengths: f.input(rules.kvLengths), ...planeFields('keep', rules.keep, f), ...planeFields('bias', rules.bias, f),
  });
  return results(f, slots, s, total, q.shape.slice(0, -1).concat(s.layout === 0 ? [s.dv] : [s.heads * s.dv]));
}

function results(f, slots, s, total, outputShape) {
  const tensor = (slot, shape) => slot && { shape, data: f.matrix(slot, 1, shape.reduce((a, b) => a * b, 1)).data };
  const planeShape = [s.batch, s.heads, s.n, total];
  const result = { output: tensor(slots.output, outputShape) };
  if (slots.weights) result.weights = tensor(slots.weights, planeShape);
  if (slots.presentKey) {
    result.presentKey = tensor(slots.presentKey, [s.batch, s.kvHeads, total, s.d]);
    result.presentValue = tensor(slots.presentValue, [s.batch, s.kvHeads, total, s.dv]);
  }
  if (slots.scores) {
    const ids = ['scores', ...(slots.capped ? ['capped'] : []), 'biased'];
    result.steps = [...ids.map((id) => ({ id, title: STEPS[id][0], formula: STEPS[id][1], tensor: tensor(slots[id], planeShape) })),
      { id: 'weights', title: STEPS.weights[0], formula: STEPS.weights[1], tensor: result.weights }];
  }
  return result;
}
