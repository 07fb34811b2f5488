// N-dimensional inputs of the batched family: checked { shape, data } tensors
// from typed arrays, plain arrays, nested arrays or float16 bits, and the
// broadcast rule of a mask or bias against [batch, heads, n, keys]. Nothing
// here touches WASM.
import { AttentionError, fail } from './errors.js';

const { INVALID_MATRIX, INVALID_MASK, NON_FINITE, SHAPE_MISMATCH } = AttentionError.codes;

export const shapeText = (shape) => `[${shape.join(', ')}]`;

/** float16 bits → their value (exact: every float16 is a float32). */
export function float16ToNumber(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 31) return fraction ? NaN : sign * Infinity;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

function nestedShape(value) {
  const shape = [];
  for (let level = value; Array.isArray(level) || (shape.length > 0 && ArrayBuffer.isView(level)); level = level[0]) {
    shape.push(level.length);
    if (level.length === 0) break;
  }
  return shape;
}

function flatten(fn, name, value, shape) {
  const out = [];
  const walk = (level, depth, where) => {
    if (depth === shape.length) {
      out.push(level);
      return;
    }
    if ((!Array.isArray(level) && !ArrayBuffer.isView(level)) || level.length !== shape[depth])
      fail(INVALID_MATRIX, `${fn}: ${name}${where} should have ${shape[depth]} entries like ${name}${'[0]'.repeat(depth)}; the nested array is ragged`);
    for (let i = 0; i < level.length; i++) walk(level[i], depth + 1, `${where}[${i}]`);
  };
  walk(value, 0, '');
  return out;
}

/** The shape and the values (not yet float32) of a tensor argument. */
function shapeAndValues(fn, name, value) {
  if (Array.isArray(value)) {
    const shape = nestedShape(value);
    return { shape, values: flatten(fn, name, value, shape) };
  }
  if (value === undefined) fail(INVALID_MATRIX, `${fn}: ${name} is missing`);
  if (value && Number.isInteger(value.rows) && Number.isInteger(value.cols) && !value.shape)
    fail(INVALID_MATRIX, `${fn}: ${name} is a matrix { rows, cols, data }; ${fn} takes a tensor: pass { shape: [batch, heads, ${value.rows}, ${value.cols}], data } (e.g. shape [1, 1, ${value.rows}, ${value.cols}]) or nested arrays`);
  if (ArrayBuffer.isView(value))
    fail(INVALID_MATRIX, `${fn}: ${name} is a flat ${value.constructor.name} of ${value.length} numbers; a tensor needs its shape: pass { shape: [batch, heads, rows, width], data }`);
  if (value === null || typeof value !== 'object' || !Array.isArray(value.shape))
    fail(INVALID_MATRIX, `${fn}: ${name} must be a tensor { shape, data } or nested arrays, got ${value === null ? 'null' : typeof value}`);
  const { shape, data, dtype = 'float32' } = value;
  if (!shape.every((s) => Number.isInteger(s) && s >= 0))
    fail(INVALID_MATRIX, `${fn}: ${name}.shape ${JSON.stringify(shape)} must list non-negative integers`);
  if (dtype !== 'float32' && dtype !== 'float16') fail(INVALID_MATRIX, `${fn}: ${name}.dtype is ${JSON.stringify(dtype)}; expected 'float32' or 'float16'`);
  if (dtype === 'float16' && !(data instanceof Uint16Array))
    fail(INVALID_MATRIX, `${fn}: ${name} has dtype 'float16', so its data must be a Uint16Array of float16 bits`);
  if (!ArrayBuffer.isView(data) && !Array.isArray(data)) fail(INVALID_MATRIX, `${fn}: ${name}.data must be a typed array or an array of numbers`);
  const count = shape.reduce((a, b) => a * b, 1);
  if (data.length !== count) fail(INVALID_MATRIX, `${fn}: ${name} has shape ${shapeText(shape)} but its data has ${data.length} entries (expected ${count})`);
  return { shape, values: dtype === 'float16' ? Array.from(data, float16ToNumber) : data };
}

/**
 * A checked float32 tensor { shape, data }. `allowNegativeInfinity` lets an
 * additive bias hide keys with −∞; NaN and +∞ are always refused.
 */
export function toTensor(fn, name, value, { ranks = [3, 4], allowNegativeInfinity = false } = {}) {
  const { shape, values } = shapeAndValues(fn, name, value);
  if (!ranks.includes(shape.length))
    fail(SHAPE_MISMATCH, `${fn}: ${name} has shape ${shapeText(shape)}; expected ${ranks.join(' or ')} dimensions`);
  if (!ArrayBuffer.isView(values))
    for (let i = 0; i < values.length; i++)
      if (typeof values[i] !== 'number' && typeof values[i] !== 'boolean') fail(INVALID_MATRIX, `${fn}: ${name} entry ${i} is ${typeof values[i]}, not a number`);
  const data = values instanceof Float32Array ? values : Float32Array.from(values, Number);
  for (let i = 0; i < data.length; i++) {
    const x = data[i];
    if (x - x === 0 || (x === -Infinity && allowNegativeInfinity)) continue;  // finite (the one test in the common case)
    if (Number.isFinite(Number(values[i]))) fail(NON_FINITE, `${fn}: ${name} entry ${i} is ${values[i]}, beyond float32's range (±3.4e38)`);
    fail(NON_FINITE, `${fn}: ${name} entry ${i} is ${values[i]}; ${allowNegativeInfinity ? 'a bias may hold −Infinity (hidden) but not NaN or +Infinity' : 'every entry must be finite'}`);
  }
  return { shape: [...shape], data };
}

/**
 * A mask or bias of shape [..., rows, cols] broadcast against [batch, heads,
 * n, keys] (numpy's rule, right-aligned: each leading size equals the target's
 * or is 1; cols may be shorter than keys: the missing keys are hidden).
 * Returns the strides (0 where broadcast) and cols.
 */
export function broadcastPlane(fn, name, shape, [batch, heads, n, keys]) {
  if (shape.length < 2 || shape.length > 4) fail(INVALID_MASK, `${fn}: ${name} has shape ${shapeText(shape)}; expected 2 to 4 dimensions [..., n, keys]`);
  const full = [...Array(4 - shape.length).fill(1), ...shape];
  const [pb, ph, pn, cols] = full;
  const target = `[batch ${batch}, heads ${heads}, n ${n}, keys ${keys}]`;
  const fits = (size, want) => size === want || size === 1;
  if (!fits(pb, batch) || !fits(ph, heads) || !fits(pn, n) || cols > keys)
    fail(INVALID_MASK, `${fn}: ${name} has shape ${shapeText(shape)}, which does not broadcast to ${target} (each leading size must match or be 1; the last may be shorter than keys, never longer)`);
  return {
    batchStride: pb === 1 ? 0 : ph * pn * cols,
    headStride: ph === 1 ? 0 : pn * cols,
    rowStride: pn === 1 ? 0 : cols,
    cols,
  };
}
