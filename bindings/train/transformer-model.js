// The model object createTransformer and loadTransformer return: training
// steps, evaluation, gradients and named parameters (copies in and out),
// greedy generation (transformer-generate.js), one pass's attention maps and logits
// (transformer-attend.js), save and dispose. Every call
// checks its batch in JS first (transformer-batch.js), so a status from the
// core here is a bug (INTERNAL). After dispose() every call throws DISPOSED.
import { AttentionError, fail } from '../errors.js';
import { checkOptions, nearestName, toMatrix, toNumber } from '../validate.js';
import { checkCoreStatus, toBatch } from './transformer-batch.js';
import { attend } from './transformer-attend.js';
import { generate } from './transformer-generate.js';

const { DISPOSED, INVALID_ARGUMENT, SHAPE_MISMATCH } = AttentionError.codes;
const STEP_OPTIONS = ['learningRate', 'weightDecay', 'clipNorm', 'beta1', 'beta2', 'epsilon'];
const FLOAT32_MAX = 3.4028234663852886e38;
// What modelInfo reports (ops/training.cpp).
const INFO = { steps: 3, parameters: 5, gradients: 6 };
// save()'s precisions, in the core's numbering (attn::SavePrecision).
const PRECISIONS = ['float32', 'float16', 'int8'];
// The smallest magnitude float16 rounds to infinity (src/train/quantize.h).
const HALF_LIMIT = 65520;
/**
 * The largest weight a model takes (float16's largest finite value): a gain of 3e38, or weights of
 * 1e30, loaded silently and then gave a NaN loss and an empty text.
 */
export const WEIGHT_LIMIT = 65504;

/** Throws naming the first entry of tensor `name` that is not finite or beyond WEIGHT_LIMIT. */
export function checkWeights(fn, name, data, cols) {
  for (let k = 0; k < data.length; k++) {
    const x = data[k];
    if (!(Math.abs(x) <= WEIGHT_LIMIT))
      fail(INVALID_ARGUMENT, `${fn}: ${name}[${Math.floor(k / cols)}][${k % cols}] is ${x}; a weight must be finite and at most ${WEIGHT_LIMIT} in magnitude (float16's largest)`);
  }
}

/**
 * @param {object} context the family's context (module, workspace, frame, models, destroy)
 * @param {number} handle the core's model address
 * @param {{ settings: object, padId: number, parameterCount: number, tensors: { name: string, offset: number, rows: number, cols: number }[] }} description
 * @param {object | null} task the task it was made for (text and labels), or null
 */
export function makeModel(context, handle, description, task) {
  const state = { context, handle, disposed: false, task, ...description, config: Object.freeze({ ...description.settings }) };
  const guarded = (fn, body) => (...args) => {
    alive(fn, state);
    return body(...args);
  };
  const model = {
    config: state.config,
    task,
    parameterCount: description.parameterCount,
    /** Names and shapes of the parameter tensors, in the core's order. */
    tensors: Object.freeze(description.tensors.map(({ name, rows, cols }) => Object.freeze({ name, rows, cols }))),
    /** Updates applied so far. */
    get steps() {
      alive('TransformerModel.steps', state);
      return info(state, 'TransformerModel.steps', INFO.steps);
    },
    get disposed() {
      return state.disposed;
    },
    trainStep: guarded('TransformerModel.trainStep', (batch, options) => trainStep(state, batch, options)),
    evaluate: guarded('TransformerModel.evaluate', (batch) => evaluate(state, 'TransformerModel.evaluate', batch)),
    loss: guarded('TransformerModel.loss', (batch) => evaluate(state, 'TransformerModel.loss', batch).loss),
    gradients: guarded('TransformerModel.gradients', (batch) => gradients(state, batch)),
    parameters: guarded('TransformerModel.parameters', () => readTensors(state, 'TransformerModel.parameters', INFO.parameters)),
    setParameters: guarded('TransformerModel.setParameters', (values) => setParameters(state, values)),
    generate: guarded('TransformerModel.generate', (ids, options) => generate(state, ids, options)),
    attend: guarded('TransformerModel.attend', (ids, options) => attend(state, ids, options)),
    save: guarded('TransformerModel.save', (options) => save(state, options)),
    dispose() {
      if (state.disposed) return;
      state.disposed = true;
      context.models.unregister(model);
      context.destroy(handle);
    },
  };
  return model;
}

function alive(fn, state) {
  if (state.disposed) fail(DISPOSED, `${fn}: this model was disposed; create a new one with createTransformer (or loadTransformer)`);
}

function info(state, fn, what) {
  return state.context.frame(fn).query('modelInfo', { model: state.handle, what });
}

// A checked batch's slots in a frame, named as the raw blocks name them, with the status slot.
function batchSlots(state, fn, batch) {
  const b = toBatch(fn, batch, state.config, state.padId);
  const f = state.context.frame(fn);
  const slots = {
    size: b.size, source: f.input(b.source), sourceLength: b.sourceLength, input: f.input(b.input), target: f.input(b.target),
    length: b.length, status: f.output(1),
  };
  const check = () => checkCoreStatus(fn, state.context.module.HEAP32[f.addr(slots.status) >> 2], `a batch of ${b.size} rows of ${b.length} tokens${b.sourceLength ? ` (sources of ${b.sourceLength})` : ''}`);
  return { f, slots, check };
}

function float64s(state, f, slot, count) {
  const start = f.addr(slot) >> 3;
  return Array.from(state.context.module.HEAPF64.subarray(start, start + count));
}

function stepSettings(fn, options) {
  const o = checkOptions(fn, options, STEP_OPTIONS);
  const positive = (name, fallback, { zero = false, below } = {}) => {
    const x = toNumber(fn, name, o[name], fallback);
    if (!(zero ? x >= 0 : x > 0) || x > FLOAT32_MAX || (below !== undefined && x >= below))
      fail(INVALID_ARGUMENT, `${fn}: ${name} must be ${zero ? 'at least 0' : 'positive'}${below === undefined ? ' and within float32 range' : ` and below ${below}`}, got ${x}`);
    return x;
  };
  return {
    learningRate: positive('learningRate', 1e-3), weightDecay: positive('weightDecay', 0, { zero: true }),
    clipNorm: positive('clipNorm', 1, { zero: true }), beta1: positive('beta1', 0.9, { zero: true, below: 1 }),
    beta2: positive('beta2', 0.98, { zero: true, below: 1 }), epsilon: positive('epsilon', 1e-9),
  };
}

function trainStep(state, batch, options) {
  const fn = 'TransformerModel.trainStep';
  const settings = stepSettings(fn, options);
  const { f, slots, check } = batchSlots(state, fn, batch);
  const result = f.output(8);
  f.call('modelTrainStep', { model: state.handle, ...slots, ...settings, result });
  check();
  const [loss, gradientNorm, step, diverged] = float64s(state, f, result, 4);
  return { loss, gradientNorm, step, diverged: diverged !== 0 };
}

function evaluate(state, fn, batch) {
  const { f, slots, check } = batchSlots(state, fn, batch);
  const result = f.output(8);
  f.call('modelEvaluate', { model: state.handle, ...slots, result });
  check();
  const [loss, accuracy, exactMatch, counted] = float64s(state, f, result, 4);
  return { loss, accuracy, exactMatch, counted };
}

function gradients(state, batch) {
  const fn = 'TransformerModel.gradients';
  const { f, slots, check } = batchSlots(state, fn, batch);
  const loss = f.output(2);
  f.call('modelGradients', { model: state.handle, ...slots, loss });
  check();
  return readTensors(state, fn, INFO.gradients);
}

// Copies of every named tensor of the parameters or of the last gradients.
function readTensors(state, fn, what) {
  const base = info(state, fn, what) / 4;
  const heap = state.context.module.HEAPF32;
  const out = {};
  for (const { name, offset, rows, cols } of state.tensors)
    out[name] = { rows, cols, data: heap.slice(base + offset, base + offset + rows * cols) };
  return out;
}

// Every value is checked (name, shape, finite) before any is written: a refused call changes nothing.
function setParameters(state, values) {
  const fn = 'TransformerModel.setParameters';
  if (values === null || typeof values !== 'object' || Array.isArray(values))
    fail(INVALID_ARGUMENT, `${fn}: give an object { [name]: Matrix } such as model.parameters() returns`);
  const byName = new Map(state.tensors.map((t) => [t.name, t]));
  const writes = Object.entries(values).map(([name, value]) => {
    const tensor = byName.get(name);
    if (!tensor) {
      const near = nearestName(name, [...byName.keys()]);
      fail(INVALID_ARGUMENT, `${fn}: this model has no parameter ${name}${near ? `; did you mean ${near}?` : ''} (model.tensors lists them)`);
    }
    const m = toMatrix(fn, name, value);
    if (m.rows !== tensor.rows || m.cols !== tensor.cols)
      fail(SHAPE_MISMATCH, `${fn}: ${name} is ${m.rows}×${m.cols} but this model's ${name} is ${tensor.rows}×${tensor.cols}`);
    checkWeights(fn, name, m.data, m.cols);
    return [tensor.offset, m.data];
  });
  const base = info(state, fn, INFO.parameters) / 4;
  const heap = state.context.module.HEAPF32;
  for (const [offset, data] of writes) heap.set(data, base + offset);
}

function precisionOf(fn, options) {
  const { precision = 'float32' } = checkOptions(fn, options, ['precision']);
  const code = PRECISIONS.indexOf(precision);
  if (code < 0) fail(INVALID_ARGUMENT, `${fn}: precision must be 'float32', 'float16' or 'int8', got ${typeof precision === 'string' ? JSON.stringify(precision) : String(precision)}`);
  return code;
}

// float16 stores every tensor of more than one row in half precision: each value must fit.
function checkHalfRange(state, fn) {
  const base = info(state, fn, INFO.parameters) / 4;
  const heap = state.context.module.HEAPF32;
  for (const { name, offset, rows, cols } of state.tensors) {
    if (rows === 1) continue;
    const data = heap.subarray(base + offset, base + offset + rows * cols);
    const at = data.findIndex((x) => Math.abs(x) >= HALF_LIMIT);
    if (at >= 0)
      fail(INVALID_ARGUMENT, `${fn}: ${name}[${Math.floor(at / cols)}][${at % cols}] is ${data[at]}, beyond float16's range (|x| < 65520); save it as 'int8' or 'float32'`);
  }
}

function save(state, options) {
  const fn = 'TransformerModel.save';
  const precision = precisionOf(fn, options);
  if (PRECISIONS[precision] === 'float16') checkHalfRange(state, fn);
  const size = state.context.frame(fn).query('modelSavedBytes', { model: state.handle, precision });
  const f = state.context.frame(fn);
  const bytes = f.output(Math.ceil(size / 4));
  f.call('modelSave', { model: state.handle, precision, bytes, capacity: size });
  return state.context.module.HEAPU8.slice(f.addr(bytes), f.addr(bytes) + size);
}
