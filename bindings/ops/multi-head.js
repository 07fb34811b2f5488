// The multi-head family: multiHeadAttention (with every head's trace) and
// createMultiHeadAttention, a layer whose weights are packed once in WASM
// memory for repeated forward passes. Raw calls in ops/multi-head.cpp.
import { attentionSteps } from '../attention-trace.js';
import { AttentionError, fail } from '../errors.js';
import { checkProjectedScores } from '../overflow.js';
import { columns, defaultScale, multiHeadWeights } from '../shapes.js';
import { step } from '../steps.js';
import { shapeText, toTensor } from '../tensors.js';
import { MaskKind, checkOptions, expectEqual, maskData, shape, toMask, toMatrix, toBoolean } from '../validate.js';

/**
 * The family's public functions, bound to one module's context.
 * @param {{ module: object, workspace: import('../workspace.js').Workspace, frame: (fn: string) => import('../frame.js').Frame }} context
 */
export function multiHeadOps(context) {
  // Packed layers free their WASM memory when garbage-collected, if not disposed first.
  const own = { ...context, layers: new FinalizationRegistry((storage) => context.module._free(storage)) };
  return {
    multiHeadAttention: (X, options) => multiHeadAttention(own, X, options),
    createMultiHeadAttention: (options) => createMultiHeadAttention(own, options),
  };
}

function multiHeadAttention({ frame }, X, options) {
  const fn = 'multiHeadAttention';
  const o = checkOptions(fn, options, ['heads', 'Wq', 'Wk', 'Wv', 'Wo', 'mask', 'trace']);
  const x = toMatrix(fn, 'X', X);
  const { heads, wq, wk, wv, wo } = multiHeadWeights(fn, o, x);
  const [n, dkAll, dvAll, dOut] = [x.rows, wq.cols, wv.cols, wo.cols];
  checkProjectedScores(fn, x, wq, wk, defaultScale(dkAll / heads), wv);
  const mask = toMask(fn, o.mask, n, n);
  const trace = toBoolean(fn, 'trace', o.trace);
  const f = frame(fn);
  const inputs = { X: f.input(x.data), Wq: f.input(wq.data), Wk: f.input(wk.data), Wv: f.input(wv.data), Wo: f.input(wo.data), mask: f.input(maskData(mask)) };
  const outputs = {
    Q: f.output(n * dkAll), K: f.output(n * dkAll), V: f.output(n * dvAll),
    weights: f.output(heads * n * n), concat: f.output(n * dvAll), output: f.output(n * dOut),
    scores: f.output(heads * n * n, trace), scaled: f.output(heads * n * n, trace),
    masked: f.output(heads * n * n, trace && mask.kind !== MaskKind.none),
  };
  f.call('multiHead', { ...inputs, ...outputs, n, dModel: x.cols, heads, dkAll, dvAll, dOut, maskKind: mask.kind });
  const result = { output: f.matrix(outputs.output, n, dOut), concat: f.matrix(outputs.concat, n, dvAll) };
  const projections = trace ? { Q: f.matrix(outputs.Q, n, dkAll), K: f.matrix(outputs.K, n, dkAll), V: f.matrix(outputs.V, n, dvAll) } : null;
  result.heads = headResults(f, outputs, projections, result.concat, { heads, n, dk: dkAll / heads, dv: dvAll / heads, mask });
  if (trace)
    result.steps = [step('Q', projections.Q), step('K', projections.K), step('V', projections.V), step('concat', result.concat),
      step('output', result.output, 'multiHead')];
  return result;
}

// Each head's output and weights, and with a trace its Q, K, V slices and steps.
function headResults(f, outputs, projections, concat, { heads, n, dk, dv, mask }) {
  return Array.from({ length: heads }, (_, h) => {
    const at = (slot) => f.part(slot, h * n * n);
    const head = { output: columns(concat, h * dv, dv), weights: f.matrix(at(outputs.weights), n, n) };
    if (projections) {
      const { Q, K, V } = projections;
      const slots = { scores: at(outputs.scores), scaled: at(outputs.scaled), masked: at(outputs.masked) };
      head.steps = [step('Q', columns(Q, h * dk, dk)), step('K', columns(K, h * dk, dk)), step('V', columns(V, h * dv, dv)),
        ...attentionSteps(f, slots, n, n, mask, 'dot', head)];
    }
    return head;
  });
}

// Copies W_Q, W_K, W_V, W_O into a block of their own, packed for the forward pass.
function packLayer({ module, workspace, frame }, fn, { heads, wq, wk, wv, wo }) {
  const dims = { dModel: wq.rows, heads, dk: wq.cols / heads, dv: wv.cols / heads, dOut: wo.cols };
  const f = frame(fn);
  const storage = workspace.allocateBlock(fn, f.query('layerFloats', dims) * 4);
  try {
    const inputs = { Wq: f.input(wq.data), Wk: f.input(wk.data), Wv: f.input(wv.data), Wo: f.input(wo.data) };
    f.call('packLayer', { ...inputs, dModel: wq.rows, dkAll: wq.cols, dvAll: wv.cols, dOut: wo.cols, heads, storage });
  } catch (error) {
    module._free(storage);
    throw error;
  }
  return { dims, storage };
}

function createMultiHeadAttention(context, options) {
  const { module, layers } = context;
  const fn = 'createMultiHeadAttention';
  const o = checkOptions(fn, options, ['heads', 'Wq', 'Wk', 'Wv', 'Wo']);
  const { heads, ...given } = multiHeadWeights(fn, o, null);
  // Copies: the layer must not change when the caller later edits its arrays.
  const [wq, wk, wv, wo] = [given.wq, given.wk, given.wv, given.wo].map((w) => ({ ...w, data: w.data.slice() }));
  const { dims, storage } = packLayer(context, fn, { heads, wq, wk, wv, wo });
  let disposed = false;
  const layer = {
    heads,
    dModel: wq.rows,
    dOut: wo.cols,
    forward(X, forwardOptions) {
      const fwd = 'MultiHeadAttention.forward';
      if (disposed) fail(AttentionError.codes.DISPOSED, `${fwd}: this layer was disposed; create a new one`);
      if (isBatch(X)) return batchForward(context, fwd, { dims, storage, wq, wk, wv, heads }, X, forwardOptions);
      const fo = checkOptions(fwd, forwardOptions, ['mask', 'trace']);
      if (fo.trace) {
        const x = checkLayerInput(fwd, { wq, wk, wv, heads }, X, null).x;
        return multiHeadAttention(context, x, { heads, Wq: wq, Wk: wk, Wv: wv, Wo: wo, mask: fo.mask, trace: true });
      }
      const { x, mask } = checkLayerInput(fwd, { wq, wk, wv, heads }, X, fo.mask);
      return layerForward(context, fwd, dims, storage, x, mask);
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      layers.unregister(layer);
      module._free(storage);
    },
  };
  layers.register(layer, storage, layer);
  return layer;
}

/**
 * X and the mask of a packed layer's forward pass, checked against the layer's weights (wq, wk,
 * wv: the checked matrices; heads split d_k evenly). Shared with the worker pool (parallel/pool.js).
 * mask null: not checked (the traced path checks it itself).
 */
export function checkLayerInput(fn, { wq, wk, wv, heads }, X, mask) {
  const x = toMatrix(fn, 'X', X);
  expectEqual(x.cols, wq.rows, () => `${fn}: X is ${shape(x)} but the layer's d_model is ${wq.rows} (X.cols must equal Wq.rows)`);
  if (mask === null) return { x };
  checkProjectedScores(fn, x, wq, wk, defaultScale(wq.cols / heads), wv);
  return { x, mask: toMask(fn, mask, x.rows, x.rows) };
}

const { INVALID_ARGUMENT, INVALID_MASK } = AttentionError.codes;
// A batch: a tensor of three sizes, or nested arrays three deep (a matrix is { rows, cols, data } or two deep).
const isBatch = (X) => X !== null && typeof X === 'object' && ((Array.isArray(X.shape) && X.shape.length === 3) || (Array.isArray(X) && Array.isArray(X[0]) && Array.isArray(X[0][0])));

/**
 * A batch of padded sequences, X [batch, n, d_model] → { output [batch, n, d_out], concat [batch, n,
 * h·d_v] }: each sequence through the layer as its own n×d_model matrix (so the same numbers as a loop
 * of 2-D calls), with `kvLengths` (alias `validLens`): the first kvLengths[b] rows of sequence b are
 * real and every query sees those keys only, under `mask: 'causal'` the earlier ones among them.
 */
function batchForward(context, fn, layer, X, options) {
  const o = checkOptions(fn, options, ['mask', 'kvLengths', 'validLens', 'trace']);
  if (o.trace) fail(INVALID_ARGUMENT, `${fn}: trace is for one sequence (an n×d_model X); give the sequences one at a time to trace them`);
  if (o.mask !== undefined && o.mask !== 'none' && o.mask !== 'causal')
    fail(INVALID_MASK, `${fn}: a batch's mask is 'none' or 'causal' (the padding goes in kvLengths, one length per sequence), got ${typeof o.mask === 'string' ? JSON.stringify(o.mask) : typeof o.mask}`);
  if (o.kvLengths !== undefined && o.validLens !== undefined) fail(INVALID_ARGUMENT, `${fn}: give kvLengths or its alias validLens, not both`);
  const x = toTensor(fn, 'X', X, { ranks: [3] });
  const [batch, n, dModel] = x.shape;
  expectEqual(dModel, layer.wq.rows, () => `${fn}: X has shape ${shapeText(x.shape)} but the layer's d_model is ${layer.wq.rows} (X's last size must equal Wq.rows)`);
  const given = o.kvLengths ?? o.validLens;
  const name = o.kvLengths === undefined && o.validLens !== undefined ? 'validLens' : 'kvLengths';
  const lengths = given === undefined ? new Array(batch).fill(n) : typeof given === 'number' ? new Array(batch).fill(given) : given;
  if (!Array.isArray(lengths) && !ArrayBuffer.isView(lengths)) fail(INVALID_MASK, `${fn}: ${name} must be a number or an array with one length per sequence`);
  if (lengths.length !== batch) fail(INVALID_MASK, `${fn}: ${name} has ${lengths.length} entries but the batch has ${batch} sequences`);
  const causal = o.mask === 'causal';
  const [dvAll, dOut] = [layer.dims.heads * layer.dims.dv, layer.dims.dOut];
  const output = new Float32Array(batch * n * dOut);
  const concat = new Float32Array(batch * n * dvAll);
  for (let b = 0; b < batch; b++) {
    const len = lengths[b];
    if (!Number.isInteger(len) || len < 0 || len > n) fail(INVALID_MASK, `${fn}: ${name}[${b}] is ${len}; each length must be an integer from 0 to ${n} (the rows of a sequence)`);
    const rows = { rows: n, cols: dModel, data: x.data.subarray(b * n * dModel, (b + 1) * n * dModel) };
    const mask = len === n ? (causal ? 'causal' : 'none') : causal ? causalWithin(n, len) : { validLens: len };
    const { x: xb, mask: mb } = checkLayerInput(fn, layer, rows, mask);
    const r = layerForward(context, fn, layer.dims, layer.storage, xb, mb);
    output.set(r.output.data, b * n * dOut);
    concat.set(r.concat.data, b * n * dvAll);
  }
  return { output: { shape: [batch, n, dOut], data: output }, concat: { shape: [batch, n, dvAll], data: concat } };
}

// The n×n 0/1 mask of a causal sequence whose keys from `len` on are padding.
function causalWithin(n, len) {
  const data = new Float32Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j <= i && j < len; j++) data[i * n + j] = 1;
  return { rows: n, cols: n, data };
}

function layerForward({ frame }, fn, dims, storage, x, mask) {
  const n = x.rows;
  const f = frame(fn);
  const [dvAll, dOut] = [dims.heads * dims.dv, dims.dOut];
  const [X, maskSlot] = [f.input(x.data), f.input(maskData(mask))];
  const [concat, output, scratch] = [f.output(n * dvAll), f.output(n * dOut), f.output(f.query('layerForwardFloats', { ...dims, n }))];
  f.call('layerForward', { ...dims, storage, X, n, maskKind: mask.kind, mask: maskSlot, concat, output, scratch });
  return { output: f.matrix(output, n, dOut), concat: f.matrix(concat, n, dvAll) };
}
